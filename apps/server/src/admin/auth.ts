/**
 * Operator authentication: `Authorization: Bearer <token>`.
 *
 * Two kinds of token are accepted: the bootstrap token (below), which acts as "admin-token",
 * and a named operator token (operator-tokens.ts), looked up by its SHA-256 on every request
 * (so a revoke holds at once on every process), which acts under its own name.
 *
 * The valid token is ADMIN_TOKEN when it is set. Otherwise it is the token generated at first
 * start (bootstrap.ts), of which the database keeps only the SHA-256 hash, so every process of a
 * deployment agrees on it and a copy of the database does not reveal it. Both are compared as
 * SHA-256 hashes in constant time, so the comparison takes the same time whatever the caller
 * sent. Any failure answers 401 INVALID_CREDENTIALS with one message.
 *
 * One client address may fail OPERATOR_AUTH_FAILURES_PER_MINUTE times (default 20) in a sliding
 * minute of the wall clock; past that every operator request of the address, right token or wrong,
 * answers 429 RATE_LIMIT_EXCEEDED with Retry-After until its oldest failure is a minute old, so a
 * token (ADMIN_TOKEN is chosen by a person) cannot be guessed at the speed of the API, not even by
 * sending many at once (http/address-window.ts `createFailureGate`). Counted in the process's
 * memory, once for the operator API and /metrics (METRICS_TOKEN too) of one store.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { Db } from "../db/handles.ts";
import { createFailureGate, type FailureGate, fullWindowRefusal } from "../http/address-window.ts";
import { bearerToken } from "../http/bearer.ts";
import type { Clock } from "../lib/clock.ts";
import { safeEqual, sha256Hex } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { ADMIN_TOKEN_ACTOR, setOperatorActor } from "./actor.ts";
import { operatorTokenOf } from "./operator-tokens.ts";

const ADMIN_TOKEN_SETTING = "admin_token_sha256";

/** The one refusal of the operator token, whatever was wrong with it. */
export const adminTokenRefused = () => new AppError("INVALID_CREDENTIALS", "Invalid or missing admin token");

export async function readAdminTokenHash(db: Db): Promise<string | undefined> {
  const row = await db
    .selectFrom("server_settings")
    .select("value")
    .where("key", "=", ADMIN_TOKEN_SETTING)
    .executeTakeFirst();
  return row?.value;
}

/** Stores the hash of a generated token; false when another process stored one first. */
export async function storeAdminTokenHash(db: Db, hash: string, at: Date): Promise<boolean> {
  const result = await db
    .insertInto("server_settings")
    .values({ key: ADMIN_TOKEN_SETTING, value: hash, created_at: at })
    .onConflict((oc) => oc.column("key").doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** What the operator check reads: ADMIN_TOKEN, or the stored hash of the generated token. */
interface AdminAuthContext {
  db: Db;
  config: Pick<Config, "adminToken" | "operatorAuthFailuresPerMinute">;
  wallClock: Clock;
}

const THROTTLED_MESSAGE = "Too many failed operator token attempts from this address; retry later";

/** What an address past its failures gets (an example for the API's document). */
export function adminTokenThrottled(perMinute: number, now: Date): AppError<"RATE_LIMIT_EXCEEDED"> {
  return fullWindowRefusal(perMinute, now, THROTTLED_MESSAGE);
}

/** The failures of each address, shared by every operator check on one store. */
const failureGates = new WeakMap<Db, FailureGate>();

function gateOf(ctx: AdminAuthContext): FailureGate {
  let gate = failureGates.get(ctx.db);
  if (!gate) {
    gate = createFailureGate(ctx.config.operatorAuthFailuresPerMinute, ctx.wallClock, THROTTLED_MESSAGE);
    failureGates.set(ctx.db, gate);
  }
  return gate;
}

async function expectedHash(ctx: AdminAuthContext): Promise<string | undefined> {
  if (ctx.config.adminToken !== undefined) return sha256Hex(ctx.config.adminToken);
  // Read on every request rather than cached: admin traffic is light, and a token stored by
  // another process (or replaced by an operator in the database) takes effect at once.
  return readAdminTokenHash(ctx.db);
}

/**
 * A bearer check within the address's limit of failures: `accepts` says whether the request's
 * credential is right; a wrong one answers `refused()` and counts, and so does a check the store
 * could not answer (its 503), so that an outage is no way round the limit.
 */
export function limitedCredentialCheck(
  ctx: AdminAuthContext,
  accepts: (request: FastifyRequest) => Promise<boolean>,
  refused: () => AppError,
) {
  const gate = gateOf(ctx);
  return async function checkCredential(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    let accepted: boolean;
    try {
      accepted = await gate.run(request.ip, () => accepts(request));
    } catch (error) {
      if (error instanceof AppError && error.code === "RATE_LIMIT_EXCEEDED") {
        reply.header("Retry-After", String((error.metadata as { retryAfter: number }).retryAfter));
      }
      throw error;
    }
    if (!accepted) throw refused();
  };
}

export function adminAuthentication(ctx: AdminAuthContext) {
  return limitedCredentialCheck(ctx, (request) => tokenAccepted(ctx, request), adminTokenRefused);
}

/** Whether the request's bearer token is an operator's (then its actor is set on the request). */
async function tokenAccepted(ctx: AdminAuthContext, request: FastifyRequest): Promise<boolean> {
  const presented = bearerToken(request.headers.authorization);
  if (!presented) return false;
  const presentedHash = sha256Hex(presented);
  const expected = await expectedHash(ctx);
  if (expected !== undefined && safeEqual(presentedHash, expected)) {
    setOperatorActor(request, ADMIN_TOKEN_ACTOR);
    return true;
  }
  const named = await operatorTokenOf(ctx.db, presentedHash);
  // The lookup found the row by its hash; comparing again in constant time keeps the check
  // itself free of early exits on the secret, whatever the index does.
  if (!named || !safeEqual(presentedHash, named.token_sha256)) return false;
  setOperatorActor(request, named.name, named.id);
  return true;
}
