/**
 * HMAC integration authentication (interface.md "Authentication", CONTRACT 3).
 *
 * v1: X-Signature = "sha256=" + hex HMAC-SHA256(secret, timestamp + "." + raw body).
 * v2: X-Signature = "v2=" + hex HMAC-SHA256(secret, timestamp + "." + METHOD + "." + path with
 *     query + "." + raw body), accepted beside v1; an integration may require it.
 *
 * Every failure before the merchant check answers 401 INVALID_CREDENTIALS with one message, so
 * the response tells an attacker nothing about which part was wrong. Signed writes are
 * accepted once: the (key, timestamp, signature) triple is recorded in the database, so a
 * captured request cannot be replayed against any process.
 */
import { createHmac } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { Integration, Merchant } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import { deleteExpiredSignatureUses, findActiveByApiKey, recordSignatureUse } from "../integrations/store.ts";
import { safeEqual } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { SIGNATURE_REPLAY_RETENTION_MS, TIMESTAMP_TOLERANCE_MS } from "../lib/limits.ts";

export interface AuthContext {
  integration: Integration;
  merchant: Merchant;
}

declare module "fastify" {
  interface FastifyRequest {
    auth: AuthContext | undefined;
  }
}

const GENERIC_MESSAGE = "Invalid API credentials or signature";
const invalid = () => new AppError("INVALID_CREDENTIALS", GENERIC_MESSAGE);

const SIGNATURE_PATTERN = /^(sha256|v2)=([0-9a-f]{64})$/;
const TIMESTAMP_PATTERN = /^[0-9]{1,16}$/;

export function signV1(secret: string, timestamp: string, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

export function signV2(
  secret: string,
  timestamp: string,
  method: string,
  pathWithQuery: string,
  body: string,
): string {
  return createHmac("sha256", secret)
    .update(`${timestamp}.${method.toUpperCase()}.${pathWithQuery}.${body}`)
    .digest("hex");
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** Expired replay records are swept now and then by whichever request comes along. */
let writesSinceSweep = 0;
const SWEEP_EVERY_WRITES = 200;

export function hmacAuthentication(deps: Deps) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const apiKey = header(request, "x-api-key");
    const timestamp = header(request, "x-timestamp");
    const signatureHeader = header(request, "x-signature");
    if (!apiKey || !timestamp || !signatureHeader) throw invalid();
    if (!TIMESTAMP_PATTERN.test(timestamp)) throw invalid();
    const timestampMs = Number(timestamp);
    if (Math.abs(deps.wallClock.now().getTime() - timestampMs) > TIMESTAMP_TOLERANCE_MS) throw invalid();
    const match = SIGNATURE_PATTERN.exec(signatureHeader.trim());
    if (!match) throw invalid();
    const [, version, signature] = match as unknown as [string, "sha256" | "v2", string];

    const found = await findActiveByApiKey(deps.db, apiKey);
    if (!found) throw invalid();
    const { integration, merchant } = found;
    let secret: string;
    try {
      secret = deps.secrets.open(integration.secret_encrypted);
    } catch {
      request.log.error(
        { integrationId: integration.id },
        "integration secret cannot be decrypted with SECRET_KEY",
      );
      throw invalid();
    }
    const expected =
      version === "v2"
        ? signV2(secret, timestamp, request.method, request.url, request.rawBody)
        : signV1(secret, timestamp, request.rawBody);
    if (!safeEqual(expected, signature)) throw invalid();
    if (version !== "v2" && integration.require_signature_v2) throw invalid();

    // A missing merchant (deleted row) is refused like a disabled one.
    if (merchant?.status !== "active") {
      throw new AppError("AUTHENTICATION_ERROR", "Merchant context is not available for these credentials");
    }

    if (request.method !== "GET" && request.method !== "HEAD") {
      const now = deps.wallClock.now();
      const fresh = await recordSignatureUse(deps.db, {
        apiKey,
        timestampMs: BigInt(timestampMs),
        signature: `${version}=${signature}`,
        expiresAt: new Date(Math.max(now.getTime(), timestampMs) + SIGNATURE_REPLAY_RETENTION_MS),
      });
      if (!fresh) throw invalid();
      writesSinceSweep += 1;
      if (writesSinceSweep >= SWEEP_EVERY_WRITES) {
        writesSinceSweep = 0;
        deleteExpiredSignatureUses(deps.db, now).catch((err) =>
          request.log.warn({ err }, "signature sweep failed"),
        );
      }
    }
    request.auth = { integration, merchant };
  };
}

/** The authenticated merchant context of a request on the public API. */
export function authOf(request: FastifyRequest): AuthContext {
  if (!request.auth) throw new AppError("AUTHENTICATION_ERROR", "Merchant context is not available");
  return request.auth;
}
