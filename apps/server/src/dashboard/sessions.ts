/**
 * Dashboard login and sessions (CONTRACT 13).
 *
 * - Login checks the lockout (lockout.ts), then the password against the user's argon2id hash;
 *   an unknown email is checked against a dummy hash, so both failures take the same time and
 *   answer the same 401 INVALID_CREDENTIALS with one message.
 * - A session token is 32 random bytes, given to the client once; the database keeps only its
 *   SHA-256, so a leaked copy of the database logs nobody in. A session lasts 12 hours of wall
 *   clock from login, and logout revokes it at once, in every process (the lookup reads the
 *   database on every request).
 * - The dashboard API calls the same services as the public API. Those take an AuthContext;
 *   a session has a merchant but no integration, so `merchantScope` supplies a context whose
 *   integration, if a service ever reads it, stops the request loudly instead of guessing.
 */
import type { FastifyRequest } from "fastify";
import type { Integration, Merchant } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import type { AuthContext } from "../http/auth.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { newId, randomToken } from "../lib/ids.ts";
import { DASHBOARD_SESSION_TOKEN_RANDOM_BYTES, DASHBOARD_SESSION_TTL_MS } from "../lib/limits.ts";
import { findMerchant } from "../merchants/store.ts";
import { beginLoginAttempt } from "./lockout.ts";
import { dummyPasswordHash, verifyPassword } from "./passwords.ts";
import {
  deleteSessionsExpiredBy,
  findActiveSession,
  findUserByEmail,
  insertSession,
  revokeSession,
} from "./store.ts";
import { normalizeEmail, type UserRecord, userView } from "./users.ts";

export interface DashboardContext {
  sessionId: string;
  expiresAt: Date;
  user: UserRecord;
  merchant: Merchant;
}

declare module "fastify" {
  interface FastifyRequest {
    dashboard: DashboardContext | undefined;
  }
}

export interface LoginResult {
  token: string;
  expiresAt: string;
  user: UserRecord;
}

const invalidLogin = () => new AppError("INVALID_CREDENTIALS", "Invalid email or password");
const invalidSession = () =>
  new AppError("INVALID_CREDENTIALS", "Invalid or expired session: log in to the dashboard again");
const merchantUnavailable = () =>
  new AppError("AUTHENTICATION_ERROR", "Merchant context is not available for this account");

export async function login(deps: Deps, input: { email: string; password: string }): Promise<LoginResult> {
  const email = normalizeEmail(input.email);
  const attempt = await beginLoginAttempt(deps, email);
  const user = await findUserByEmail(deps.db, email);
  const matches = await verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), input.password);
  if (!user || !matches) throw invalidLogin();
  await attempt.succeeded();

  // Only someone who knows the password learns that the merchant is disabled.
  const merchant = await findMerchant(deps.db, user.merchant_id);
  if (merchant?.status !== "active") throw merchantUnavailable();

  const token = randomToken(DASHBOARD_SESSION_TOKEN_RANDOM_BYTES);
  const now = deps.wallClock.now();
  const expiresAt = new Date(now.getTime() + DASHBOARD_SESSION_TTL_MS);
  await insertSession(deps.db, {
    id: newId(),
    user_id: user.id,
    merchant_id: user.merchant_id,
    token_sha256: sha256Hex(token),
    created_at: now,
    expires_at: expiresAt,
    revoked_at: null,
  });
  await deleteSessionsExpiredBy(deps.db, now);
  return { token, expiresAt: expiresAt.toISOString(), user: userView(user) };
}

const BEARER_PATTERN = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** Any failure is 401 INVALID_CREDENTIALS; a disabled merchant is 401 AUTHENTICATION_ERROR. */
export function sessionAuthentication(deps: Deps) {
  return async function authenticateSession(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    const token = typeof header === "string" ? BEARER_PATTERN.exec(header)?.[1] : undefined;
    if (!token) throw invalidSession();
    const found = await findActiveSession(deps.db, sha256Hex(token), deps.wallClock.now());
    if (!found) throw invalidSession();
    const merchant = await findMerchant(deps.db, found.session.merchant_id);
    if (merchant?.status !== "active") throw merchantUnavailable();
    request.dashboard = {
      sessionId: found.session.id,
      expiresAt: found.session.expires_at,
      user: userView(found.user),
      merchant,
    };
  };
}

/** The session of a request that passed `sessionAuthentication`. */
export function sessionOf(request: FastifyRequest): DashboardContext {
  if (!request.dashboard) throw invalidSession();
  return request.dashboard;
}

export async function logout(deps: Deps, context: DashboardContext): Promise<void> {
  await revokeSession(deps.db, context.sessionId, deps.wallClock.now());
}

/** The context the shared services expect, for the session's merchant (see the file comment). */
export function merchantScope(merchant: Merchant): AuthContext {
  return {
    merchant,
    get integration(): Integration {
      throw new Error(
        "a dashboard session has no integration: a service called from the dashboard read auth.integration",
      );
    },
  };
}
