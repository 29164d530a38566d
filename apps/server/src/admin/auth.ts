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
 */
import type { FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { Db } from "../db/handles.ts";
import { safeEqual, sha256Hex } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { ADMIN_TOKEN_ACTOR, setOperatorActor } from "./actor.ts";
import { operatorTokenOf } from "./operator-tokens.ts";

const ADMIN_TOKEN_SETTING = "admin_token_sha256";

/** The one refusal of the operator token, whatever was wrong with it. */
export const adminTokenRefused = () => new AppError("INVALID_CREDENTIALS", "Invalid or missing admin token");

const BEARER_PATTERN = /^Bearer[ ]+([^\s]+)[ ]*$/i;

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

/** The hash a presented token must match, or undefined when no token is configured at all. */
/** What the operator check reads: ADMIN_TOKEN, or the stored hash of the generated token. */
interface AdminAuthContext {
  db: Db;
  config: Pick<Config, "adminToken">;
}

async function expectedHash(ctx: AdminAuthContext): Promise<string | undefined> {
  if (ctx.config.adminToken !== undefined) return sha256Hex(ctx.config.adminToken);
  // Read on every request rather than cached: admin traffic is light, and a token stored by
  // another process (or replaced by an operator in the database) takes effect at once.
  return readAdminTokenHash(ctx.db);
}

export function adminAuthentication(ctx: AdminAuthContext) {
  return async function authenticateOperator(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const match = typeof header === "string" ? BEARER_PATTERN.exec(header) : null;
    const presented = match?.[1];
    if (!presented) throw adminTokenRefused();
    const presentedHash = sha256Hex(presented);
    const expected = await expectedHash(ctx);
    if (expected !== undefined && safeEqual(presentedHash, expected)) {
      setOperatorActor(request, ADMIN_TOKEN_ACTOR);
      return;
    }
    const named = await operatorTokenOf(ctx.db, presentedHash);
    // The lookup found the row by its hash; comparing again in constant time keeps the check
    // itself free of early exits on the secret, whatever the index does.
    if (!named || !safeEqual(presentedHash, named.token_sha256)) throw adminTokenRefused();
    setOperatorActor(request, named.name, named.id);
  };
}
