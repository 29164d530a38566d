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
 * - The dashboard API calls the same services as the public API, with the session's merchant.
 */
import type { FastifyRequest } from "fastify";
import type { AuditActor } from "../audit/service.ts";
import type { Config } from "../config.ts";
import { type Db, withTransaction } from "../db/handles.ts";
import type { Merchant } from "../db/types.ts";
import { bearerToken } from "../http/bearer.ts";
import type { Clock } from "../lib/clock.ts";
import { type SecretBox, sha256Hex } from "../lib/crypto.ts";
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
import { loginCodeAccepted } from "./two-factor.ts";
import { normalizeEmail, type UserRecord, userView } from "./users.ts";

/**
 * What sessions use: the database, real time (sessions and lockouts never follow a test clock),
 * the key that seals authenticator secrets, and the environment (live owners must enrol TOTP).
 */
export interface SessionContext {
  db: Db;
  wallClock: Clock;
  secrets: SecretBox;
  config: Pick<Config, "env">;
}

/** A logged-in person of a merchant: the request's session. */
export interface DashboardSession {
  sessionId: string;
  expiresAt: Date;
  user: UserRecord;
  merchant: Merchant;
  /** An owner in live without two-factor login: nothing but enrolment is allowed (CONTRACT 13). */
  twoFactorRequired: boolean;
  /**
   * In live, why a route that makes credentials carrying the merchant's whole API
   * (`config.twoFactorInLive`, creating an API key) is refused to this session, or undefined:
   * its user has no two-factor login (`enrolment`), or the session was signed in without a code
   * (`login`: it was made before the user enrolled, in it or elsewhere).
   */
  secondFactorMissingInLive: "enrolment" | "login" | undefined;
}

declare module "fastify" {
  interface FastifyRequest {
    dashboard: DashboardSession | undefined;
  }
}

interface LoginResult {
  token: string;
  expiresAt: string;
  user: UserRecord;
}

export const invalidLogin = () => new AppError("INVALID_CREDENTIALS", "Invalid email or password");
export const invalidSession = () =>
  new AppError("INVALID_CREDENTIALS", "Invalid or expired session: log in to the dashboard again");
/** The user's merchant is disabled: told only to a caller who proved the password or holds a session. */
export const merchantUnavailable = () =>
  new AppError("AUTHENTICATION_ERROR", "Merchant context is not available for this account");

/** Runs a password check when the process has room for it (password-queue.ts). */
type PasswordCheckGate = <T>(check: () => Promise<T>) => Promise<T>;

const ungated: PasswordCheckGate = (check) => check();

export async function login(
  ctx: SessionContext,
  input: { email: string; password: string; otp?: string | undefined },
  gate: PasswordCheckGate = ungated,
): Promise<LoginResult> {
  const email = normalizeEmail(input.email);
  const attempt = await beginLoginAttempt(ctx, email);
  const user = await findUserByEmail(ctx.db, email);
  let matches: boolean;
  try {
    matches = await gate(async () =>
      verifyPassword(user?.password_hash ?? (await dummyPasswordHash()), input.password),
    );
  } catch (error) {
    // A login refused before its password was checked made no guess: it is not a failure.
    await attempt.succeeded();
    throw error;
  }
  if (!user || !matches) throw invalidLogin();
  // An enrolled user's missing or wrong code is a failed login like a wrong password: counted.
  if (!(await loginCodeAccepted(ctx, user, input.otp))) throw invalidLogin();
  await attempt.succeeded();

  // Only someone who knows the password learns that the merchant is disabled.
  const merchant = await findMerchant(ctx.db, user.merchant_id);
  if (merchant?.status !== "active") throw merchantUnavailable();

  const token = randomToken(DASHBOARD_SESSION_TOKEN_RANDOM_BYTES);
  const now = ctx.wallClock.now();
  const expiresAt = new Date(now.getTime() + DASHBOARD_SESSION_TTL_MS);
  // The result names the user, so the login's audit entry is written in this transaction.
  return withTransaction(ctx.db, async (trx) => {
    await insertSession(trx, {
      id: newId(),
      user_id: user.id,
      merchant_id: user.merchant_id,
      token_sha256: sha256Hex(token),
      created_at: now,
      expires_at: expiresAt,
      revoked_at: null,
      // The code was checked above when the user is enrolled: this session proved both factors.
      second_factor: user.totp_secret !== null,
    });
    await deleteSessionsExpiredBy(trx, now);
    return { token, expiresAt: expiresAt.toISOString(), user: userView(user) };
  });
}

/** Any failure is 401 INVALID_CREDENTIALS; a disabled merchant is 401 AUTHENTICATION_ERROR. */
export function sessionAuthentication(ctx: SessionContext) {
  return async function authenticateSession(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw invalidSession();
    const found = await findActiveSession(ctx.db, sha256Hex(token), ctx.wallClock.now());
    if (!found) throw invalidSession();
    const merchant = await findMerchant(ctx.db, found.session.merchant_id);
    if (merchant?.status !== "active") throw merchantUnavailable();
    const user = userView(found.user);
    request.dashboard = {
      sessionId: found.session.id,
      expiresAt: found.session.expires_at,
      user,
      merchant,
      twoFactorRequired: twoFactorRequired(ctx.config.env, user),
      secondFactorMissingInLive: secondFactorMissing(ctx.config.env, user, found.session.second_factor),
    };
  };
}

function secondFactorMissing(env: Config["env"], user: UserRecord, signedInWithCode: boolean) {
  if (env !== "live") return undefined;
  if (!user.twoFactorEnabled) return "enrolment";
  return signedInWithCode ? undefined : "login";
}

/** CONTRACT 13: in live, an owner must enrol two-factor login before anything but enrolment. */
export function twoFactorRequired(env: Config["env"], user: UserRecord): boolean {
  return env === "live" && user.role === "owner" && !user.twoFactorEnabled;
}

/** The session of a request that passed `sessionAuthentication`. */
export function sessionOf(request: FastifyRequest): DashboardSession {
  if (!request.dashboard) throw invalidSession();
  return request.dashboard;
}

export async function logout(ctx: SessionContext, context: DashboardSession): Promise<void> {
  await withTransaction(ctx.db, (trx) => revokeSession(trx, context.sessionId, ctx.wallClock.now()));
}

/** The audit log's actor of a dashboard request: the session's user. */
export function dashboardAuditActor(request: FastifyRequest): AuditActor {
  const user = sessionOf(request).user;
  return { kind: "dashboard_user", id: user.id, name: user.email, via: "dashboard" };
}
