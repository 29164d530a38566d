/**
 * HMAC integration authentication (interface.md "Authentication", CONTRACT 3).
 *
 * v1: X-Signature = "sha256=" + hex HMAC-SHA256(secret, timestamp + "." + raw body).
 * v2: X-Signature = "v2=" + hex HMAC-SHA256(secret, timestamp + "." + METHOD + "." + path with
 *     query + "." + raw body), accepted beside v1; an integration may require it.
 *
 * Every failure before the merchant check answers 401 INVALID_CREDENTIALS with one message, so
 * the response tells an attacker nothing about which part was wrong. In sandbox the answer adds
 * `metadata.reason` (AUTH_FAILURE_REASONS) for the developer; both environments log the reason
 * at info with the request id (docs/authentication.md).
 *
 * Replay: a signed write is accepted once. Its (key, timestamp, signature) is recorded in the
 * database, so a captured request cannot be replayed against any process: before the handler,
 * or, on routes that ask for it (`config.replayInTransaction`), inside the write's own
 * transaction, so the write and its record commit together; a write that fails records its
 * signature before its answer leaves (onSend), so a refused request cannot be replayed later
 * either. A v1 signature of a read is recorded too (a read may repeat it): v1 does not sign the
 * method or path, so an empty-body read's signature would otherwise authorize an empty-body
 * write. A v2 read signs its method and path and needs no record. Records written on their own
 * (a v1 read's, a write's outside its transaction) are grouped with the other records of the
 * process that arrive at the same time: one INSERT and one commit for the group
 * (db/replay-records.ts `recordUseGrouped`).
 */
import { createHash, createHmac } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { Db } from "../db/handles.ts";
import { isReplayRecordConflict, type SignatureUse } from "../db/replay-records.ts";
import type { Integration, Merchant } from "../db/types.ts";
import type { Clock } from "../lib/clock.ts";
import { type SecretBox, safeEqual } from "../lib/crypto.ts";
import type { InvalidCredentialsDetails } from "../lib/error-metadata.ts";
import { AppError } from "../lib/errors.ts";
import { SIGNATURE_REPLAY_RETENTION_MS, TIMESTAMP_TOLERANCE_MS } from "../lib/limits.ts";
import { errorBody } from "./envelope.ts";

/**
 * A signed write's replay record, not yet written: the route's transaction writes it
 * (`recordIn(trx)`), or onResponse does when the request ends without having written it.
 */
export interface PendingReplay {
  /** Writes the record in `db` (a transaction); throws 401 when the signature was used before. */
  recordIn(db: Db): Promise<void>;
  /**
   * The record, for a write that puts it in its own statement (db/replay-records.ts); that
   * write calls `markWritten` once the record has committed.
   */
  readonly use: SignatureUse;
  markWritten(): void;
  /**
   * Runs a statement of the caller's transaction that writes the record itself (a plain INSERT
   * in a data-modifying CTE, db/replay-records.ts); the unique violation of a signature used
   * before becomes the replay refusal (401).
   */
  writtenBy<T>(write: (use: SignatureUse) => Promise<T>): Promise<T>;
}

interface AuthContext {
  integration: Integration;
  merchant: Merchant;
  /** Set on writes whose route records the signature in its own transaction. */
  replay?: PendingReplay | undefined;
}

declare module "fastify" {
  interface FastifyRequest {
    auth: AuthContext | undefined;
  }
  interface FastifyContextConfig {
    /** The route records the signed write's replay record inside its own transaction. */
    replayInTransaction?: boolean;
  }
}

/** Why a request was refused, in sandbox answers and in every environment's log. */
export const AUTH_FAILURE_REASONS = [
  "missing_header",
  "timestamp_format",
  "timestamp_skew",
  "signature_format",
  "signature_mismatch",
  "replayed",
  "unknown_key",
  "revoked_key",
] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

const GENERIC_MESSAGE = "Invalid API credentials or signature";

/** The refusal of any authentication failure: one message, and in sandbox the reason. */
export function credentialsRefused(metadata?: InvalidCredentialsDetails): AppError<"INVALID_CREDENTIALS"> {
  return new AppError("INVALID_CREDENTIALS", GENERIC_MESSAGE, metadata);
}

/** A valid key whose merchant is missing or disabled. */
export function merchantUnavailable(): AppError<"AUTHENTICATION_ERROR"> {
  return new AppError("AUTHENTICATION_ERROR", "Merchant context is not available for these credentials");
}

/**
 * A refusal: the reason the log records, and the metadata sandbox answers carry. The two differ
 * only for a key that is unknown or revoked (or whose secret cannot be opened): its answer is a
 * signature mismatch's, so that no answer tells whether a key exists or was revoked (CONTRACT 3:
 * no oracle); the log keeps the true reason for the operator.
 */
class AuthFailure extends Error {
  readonly reason: AuthFailureReason;
  constructor(
    readonly metadata: InvalidCredentialsDetails,
    loggedReason?: AuthFailureReason,
  ) {
    super(loggedReason ?? metadata.reason);
    this.reason = loggedReason ?? metadata.reason;
  }
}

/**
 * A timestamp that lands within this distance of now once multiplied by 1000 was sent in Unix
 * seconds, the commonest mistake with X-Timestamp (seconds are what most Unix tools and
 * languages print). A day is wide enough for a client whose clock is also off, and far from any
 * skew a millisecond timestamp could have: seconds read as milliseconds fall in January 1970.
 */
const SECONDS_MISTAKE_WINDOW_MS = 24 * 60 * 60 * 1000;
const SECONDS_HINT =
  "X-Timestamp looks like Unix seconds; it must be Unix time in milliseconds (13 digits, e.g. Date.now())";

const SIGNATURE_PATTERN = /^(sha256|v2)=([0-9a-f]{64})$/;
const TIMESTAMP_PATTERN = /^[0-9]{1,16}$/;

/** The body a signature covers: its text, or its bytes when they are not UTF-8 (http/body.ts). */
type SignedBody = string | Buffer;

function signV1(secret: string, timestamp: string, body: SignedBody): string {
  if (typeof body !== "string") {
    return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");
  }
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

function signV2(
  secret: string,
  timestamp: string,
  method: string,
  pathWithQuery: string,
  body: SignedBody,
): string {
  const head = `${timestamp}.${method.toUpperCase()}.${pathWithQuery}.`;
  if (typeof body !== "string") return createHmac("sha256", secret).update(head).update(body).digest("hex");
  return createHmac("sha256", secret).update(`${head}${body}`).digest("hex");
}

/**
 * What the server signed to compare, described without the result (which would let anyone
 * sign without the secret): the layout, and the parts the client can check against its own.
 */
function signedStringOf(
  version: "sha256" | "v2",
  timestamp: string,
  request: FastifyRequest,
): Omit<Extract<InvalidCredentialsDetails, { signatureVersion: string }>, "reason"> {
  const body = request.rawBytes ?? request.rawBody ?? "";
  return {
    signatureVersion: version === "v2" ? "v2" : "v1",
    stringToSign:
      version === "v2" ? "<X-Timestamp>.<METHOD>.<path with query>.<raw body>" : "<X-Timestamp>.<raw body>",
    timestamp,
    ...(version === "v2" ? { method: request.method.toUpperCase(), pathWithQuery: request.url } : {}),
    bodyBytes: Buffer.byteLength(body),
    bodySha256: createHash("sha256").update(body).digest("hex"),
  };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

/**
 * The API keys as authentication sees them, injected by the composition root (deps.ts) so that
 * this module needs nothing above the infrastructure layer; `apiKeysOf` in
 * integrations/store.ts is the implementation over the database.
 */
export interface ApiKeys {
  /** The integration of a key, revoked or not, with its merchant if that still exists. */
  findByApiKey(
    apiKey: string,
  ): Promise<{ integration: Integration; merchant: Merchant | undefined } | undefined>;
  /**
   * Records one use of a signature, in `db` when given (a transaction) and on its own
   * otherwise; false when the same signature was used before.
   */
  recordUse(use: SignatureUse, db?: Db): Promise<boolean>;
  /** Forgets uses whose replay window has passed. */
  deleteExpiredUses(now: Date): Promise<void>;
}

interface HmacAuthenticationContext {
  /** Real time: the timestamp tolerance never follows a sandbox test clock. */
  wallClock: Clock;
  secrets: SecretBox;
  apiKeys: ApiKeys;
  config: Pick<Config, "env">;
}

/**
 * Decrypted secrets, per integration row as the key lookup returned it: a cached row
 * (http/auth-cache.ts) is decrypted once, and forgotten with the row.
 */
const openedSecrets = new WeakMap<Integration, string>();

/**
 * Expired replay records are swept now and then by whichever request comes along: every this
 * many requests that record one (a write, a create recording its own in its transaction, a v1
 * read), so the table holds about ten minutes of them whatever the mix of requests.
 */
const SWEEP_EVERY_WRITES = 200;

interface SignedHeaders {
  apiKey: string;
  timestamp: string;
  timestampMs: number;
  version: "sha256" | "v2";
  signature: string;
}

/** The three headers, well formed and in time, or the reason they are not. */
function readHeaders(request: FastifyRequest, wallClock: Clock): SignedHeaders {
  const apiKey = header(request, "x-api-key");
  const timestamp = header(request, "x-timestamp");
  const signatureHeader = header(request, "x-signature");
  if (!apiKey || !timestamp || !signatureHeader) {
    const missing = [
      ...(apiKey ? [] : ["X-API-Key"]),
      ...(timestamp ? [] : ["X-Timestamp"]),
      ...(signatureHeader ? [] : ["X-Signature"]),
    ];
    throw new AuthFailure({ reason: "missing_header", missingHeaders: missing });
  }
  if (!TIMESTAMP_PATTERN.test(timestamp)) {
    throw new AuthFailure({ reason: "timestamp_format", expected: "Unix time in milliseconds, digits only" });
  }
  const timestampMs = Number(timestamp);
  const nowMs = wallClock.now().getTime();
  if (Math.abs(nowMs - timestampMs) > TIMESTAMP_TOLERANCE_MS) {
    const inSeconds = Math.abs(nowMs - timestampMs * 1000) <= SECONDS_MISTAKE_WINDOW_MS;
    throw new AuthFailure({
      reason: "timestamp_skew",
      serverTime: new Date(nowMs).toISOString(),
      serverTimeMs: nowMs,
      toleranceMs: TIMESTAMP_TOLERANCE_MS,
      ...(inSeconds ? { hint: SECONDS_HINT } : {}),
    });
  }
  const match = SIGNATURE_PATTERN.exec(signatureHeader.trim());
  if (!match) {
    throw new AuthFailure({
      reason: "signature_format",
      expected: "sha256=<64 lower-case hex> (v1) or v2=<64 lower-case hex>",
    });
  }
  const [, version, signature] = match as unknown as [string, "sha256" | "v2", string];
  return { apiKey, timestamp, timestampMs, version, signature };
}

/** The integration and merchant of a correctly signed request, or the reason it is not one. */
async function verify(
  deps: HmacAuthenticationContext,
  request: FastifyRequest,
  signed: SignedHeaders,
): Promise<Omit<AuthContext, "merchant"> & { merchant: AuthContext["merchant"] | undefined }> {
  const { timestamp, version, signature } = signed;
  // What any refusal past this point answers in sandbox: the same for every key.
  const mismatch = (loggedReason: AuthFailureReason) =>
    new AuthFailure(
      { reason: "signature_mismatch", ...signedStringOf(version, timestamp, request) },
      loggedReason,
    );
  const found = await deps.apiKeys.findByApiKey(signed.apiKey);
  if (!found) throw mismatch("unknown_key");
  const { integration, merchant } = found;
  if (integration.revoked_at !== null) throw mismatch("revoked_key");
  let secret = openedSecrets.get(integration);
  try {
    if (secret === undefined) {
      secret = deps.secrets.open(integration.secret_encrypted);
      openedSecrets.set(integration, secret);
    }
  } catch {
    request.log.error(
      { integrationId: integration.id },
      "integration secret cannot be decrypted with SECRET_KEY",
    );
    throw mismatch("signature_mismatch");
  }
  const expected =
    version === "v2"
      ? signV2(secret, timestamp, request.method, request.url, request.rawBytes ?? request.rawBody)
      : signV1(secret, timestamp, request.rawBytes ?? request.rawBody);
  if (!safeEqual(expected, signature)) throw mismatch("signature_mismatch");
  if (version !== "v2" && integration.require_signature_v2) {
    throw new AuthFailure({
      reason: "signature_format",
      expected: "v2=<64 lower-case hex>: this key requires v2",
    });
  }
  return { integration, merchant };
}

const REPLAYED = () => new AuthFailure({ reason: "replayed" });

/** The replay record of a signed request. */
function signatureUseOf(signed: SignedHeaders, wallClock: Clock): SignatureUse {
  const nowMs = wallClock.now().getTime();
  return {
    apiKey: signed.apiKey,
    timestampMs: BigInt(signed.timestampMs),
    signature: `${signed.version}=${signed.signature}`,
    expiresAt: new Date(Math.max(nowMs, signed.timestampMs) + SIGNATURE_REPLAY_RETENTION_MS),
  };
}

export function hmacAuthentication(deps: HmacAuthenticationContext) {
  // Counted per authenticator (one per app): a sweep every so many writes is all that matters.
  let writesSinceSweep = 0;
  const sweep = (request: FastifyRequest, now: Date) => {
    writesSinceSweep += 1;
    if (writesSinceSweep < SWEEP_EVERY_WRITES) return;
    writesSinceSweep = 0;
    deps.apiKeys.deleteExpiredUses(now).catch((err) => request.log.warn({ err }, "signature sweep failed"));
  };

  const useOf = (signed: SignedHeaders) => signatureUseOf(signed, deps.wallClock);
  /** Records the signature; true when it was not seen before. */
  const recordUse = (use: SignatureUse, db?: Db) => deps.apiKeys.recordUse(use, db);

  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const signed = readHeaders(request, deps.wallClock);
    const { integration, merchant } = await verify(deps, request, signed);
    const read = request.method === "GET" || request.method === "HEAD";
    // A missing merchant (deleted row) is refused like a disabled one. A signed write spends its
    // signature even so, as every refused write does, so it cannot be accepted once the
    // merchant is active again.
    if (merchant?.status !== "active") {
      if (!read || signed.version === "sha256") await recordUse(useOf(signed));
      throw merchantUnavailable();
    }
    const auth: AuthContext = { integration, merchant };
    if (read) {
      // A read may repeat its signature; a v1 one is recorded so no write can use it later.
      if (signed.version === "sha256") {
        await recordUse(useOf(signed));
        sweep(request, deps.wallClock.now());
      }
    } else if (request.routeOptions.config?.replayInTransaction) {
      const pending = pendingReplay(useOf(signed), recordUse, () =>
        refusal(REPLAYED(), request, deps.config.env),
      );
      auth.replay = pending;
      unsettled.set(request, pending);
      // Recorded with the create it authorizes (payments, withdraws, refunds), counted here.
      sweep(request, deps.wallClock.now());
    } else {
      if (!(await recordUse(useOf(signed)))) throw REPLAYED();
      sweep(request, deps.wallClock.now());
    }
    request.auth = auth;
  };

  return async function authenticateRequest(request: FastifyRequest): Promise<void> {
    try {
      await authenticate(request);
    } catch (err) {
      throw refusal(err, request, deps.config.env);
    }
  };
}

/**
 * onSend of the whole app: a request carrying a v1 signature that no signed route authenticated
 * (an unknown route's 404, a public route such as the OpenAPI document) spends that signature
 * when it verifies, before the answer goes out. v1 signs neither the method nor the path, so
 * such a signature, captured on its way, would otherwise authorize an empty-body write (or a
 * write of the same body) within its five minutes. A signed route records its own (above); a
 * v2 signature names its method and path and authorizes nothing else.
 */
export function spendStraySignatures(deps: HmacAuthenticationContext) {
  return async function spendStraySignature(request: FastifyRequest): Promise<void> {
    const signature = request.headers["x-signature"];
    if (typeof signature !== "string" || !signature.startsWith("sha256=")) return;
    if ((request as { auth?: AuthContext }).auth !== undefined) return;
    try {
      const signed = readHeaders(request, deps.wallClock);
      await verify(deps, request, signed);
      await deps.apiKeys.recordUse(signatureUseOf(signed, deps.wallClock));
    } catch (err) {
      // Not a signature any route would accept (or the store is down): nothing to spend.
      if (!(err instanceof AuthFailure)) request.log.warn({ err }, "stray signature not recorded");
    }
  };
}

/** The answer for a refusal: one generic message; in sandbox, the reason too. */
function refusal(err: unknown, request: FastifyRequest, env: Config["env"]): unknown {
  if (!(err instanceof AuthFailure)) return err;
  const hint = "hint" in err.metadata ? err.metadata.hint : undefined;
  request.log.info(
    { reason: err.reason, ...(hint === undefined ? {} : { hint }) },
    "request refused by authentication",
  );
  return env === "sandbox" ? credentialsRefused(err.metadata) : credentialsRefused();
}

interface Unsettled extends PendingReplay {
  /** True once a transaction wrote the record (it commits if the write succeeds). */
  written(): boolean;
  recordAfter(): Promise<boolean>;
}

/** Writes whose replay record the route's transaction was to write, until the answer is sent. */
const unsettled = new WeakMap<FastifyRequest, Unsettled>();

function pendingReplay(
  use: SignatureUse,
  recordUse: (use: SignatureUse, db?: Db) => Promise<boolean>,
  replayed: () => unknown,
): Unsettled {
  let written = false;
  return {
    use,
    written: () => written,
    markWritten: () => {
      written = true;
    },
    recordIn: async (db: Db) => {
      if (!(await recordUse(use, db))) throw replayed();
      written = true;
    },
    writtenBy: async (write) => {
      try {
        const result = await write(use);
        written = true;
        return result;
      } catch (error) {
        if (isReplayRecordConflict(error)) throw replayed();
        throw error;
      }
    },
    recordAfter: () => recordUse(use),
  };
}

/**
 * onSend of the authenticated scope: a write whose transaction did not commit its replay
 * record (refused, failed, or never reached its handler) records it now, before its answer
 * leaves, so the same signed request cannot be accepted later. When the signature turns out
 * to have been used before, the answer becomes the replay refusal (401), as it would have been
 * had the record been written first, and the rate limiter, which counted the request before
 * the replay was known, gives it back (`giveBack`): an authentication refusal spends nothing of
 * the merchant's budget. A 2xx answer means the record committed with the write.
 */
export function settleReplay(
  env: Config["env"],
  giveBack: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
) {
  const settle = async (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    pending: Unsettled,
  ) => {
    let fresh: boolean;
    try {
      fresh = await pending.recordAfter();
    } catch (err) {
      request.log.warn({ err }, "recording a refused write's signature failed");
      return payload;
    }
    if (fresh || pending.written()) return payload;
    const replayed = refusal(REPLAYED(), request, env) as AppError;
    await giveBack(request, reply);
    reply.code(replayed.status).header("content-type", "application/json; charset=utf-8");
    return JSON.stringify(errorBody(replayed));
  };
  // Callback style: most writes were recorded with their own statement and pass at once, with
  // no promise made for them; only a record still to write waits for it.
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload?: unknown) => void,
  ): void => {
    const pending = unsettled.get(request);
    if (!pending) {
      done(null, payload);
      return;
    }
    unsettled.delete(request);
    if (pending.written() && reply.statusCode < 300) {
      done(null, payload);
      return;
    }
    settle(request, reply, payload, pending).then(
      (answer) => done(null, answer),
      (error: unknown) => done(error as Error),
    );
  };
}

/** The authenticated merchant context of a request on the public API. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError("AUTHENTICATION_ERROR", "Merchant context is not available");
  return request.auth;
}

/** The merchant a request on the public API acts for. */
export function merchantOf(request: FastifyRequest): Merchant {
  return authOf(request).merchant;
}
