/**
 * Two-factor login (CONTRACT 13): TOTP (RFC 6238: 30-second steps, 6 digits, SHA-1, the
 * parameters every authenticator app knows), by otplib.
 *
 * - Enrolment: `startEnrolment` makes a secret and keeps it sealed (SECRET_KEY) as pending; the
 *   answer carries it, its otpauth:// URI and that URI as a QR code. `confirmEnrolment` with a
 *   current code from the app turns it on. Until then login is unchanged.
 * - Login: an enrolled user's login needs the current code; missing or wrong is the login's one
 *   401 INVALID_CREDENTIALS and counts towards the lockout. A code is accepted one step either
 *   side of now (clock drift) and only once: the step of the last accepted code is kept, and a
 *   code of that step or an earlier one is refused.
 * - Recovery: there are no recovery codes (CONTRACT 13 names none); a user who lost the device
 *   asks the operator, who resets the user's two-factor login (POST /admin/v1/users/{id}/two-factor/reset,
 *   audited), after which the user enrols again.
 */
import { generateSecret, generateURI, verify } from "otplib";
import QRCode from "qrcode";
import { type Db, withTransaction } from "../db/handles.ts";
import type { DashboardUserRow } from "../db/types.ts";
import type { Clock } from "../lib/clock.ts";
import type { SecretBox } from "../lib/crypto.ts";
import { AppError, fieldError, notFound } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { TOTP_DRIFT_STEPS } from "../lib/limits.ts";
import { beginLoginAttempt } from "./lockout.ts";
import {
  claimTotpStep,
  deleteFailuresOf,
  findUserById,
  lockLoginEmail,
  revokeSessionsOfUser,
  updateUser,
} from "./store.ts";
import { type UserRecord, userView } from "./users.ts";

const PERIOD_S = 30;
const ISSUER = "Satang";
const CODE_PATTERN = /^[0-9]{6}$/;

export interface TwoFactorContext {
  db: Db;
  wallClock: Clock;
  secrets: SecretBox;
}

export const wrongCode = () =>
  fieldError("VALIDATION_ERROR", "otp", "The code is not the authenticator's current code");
const noPendingEnrolment = () =>
  new AppError("STATE_CONFLICT", "Start two-factor enrolment first: no enrolment is waiting for a code", {
    reason: "no_pending_enrolment",
  });

/** The step of `code` if it is the secret's code within the drift window and after `afterStep`. */
export async function acceptedStep(
  secret: string,
  code: string | undefined,
  now: Date,
  afterStep: bigint | null,
): Promise<bigint | undefined> {
  if (code === undefined || !CODE_PATTERN.test(code)) return undefined;
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: TOTP_DRIFT_STEPS * PERIOD_S,
    ...(afterStep === null ? {} : { afterTimeStep: Number(afterStep) }),
  });
  return result.valid && "timeStep" in result ? BigInt(result.timeStep) : undefined;
}

/**
 * Whether an enrolled user's login code is good: the current code, not used before. The step is
 * claimed in the database, so one code logs in once even across processes.
 */
export async function loginCodeAccepted(
  ctx: TwoFactorContext,
  user: DashboardUserRow,
  code: string | undefined,
): Promise<boolean> {
  if (user.totp_secret === null) return true;
  const step = await acceptedStep(
    ctx.secrets.open(user.totp_secret),
    code,
    ctx.wallClock.now(),
    user.totp_last_step,
  );
  return step !== undefined && (await claimTotpStep(ctx.db, user.id, step));
}

/** An enrolled user replacing the authenticator without the current one's code. */
const currentCodeNeeded = () =>
  fieldError(
    "VALIDATION_ERROR",
    "otp",
    "Two-factor login is on: send the current code of the enrolled authenticator to replace it " +
      "(or ask the operator to reset two-factor login for a lost one)",
  );

/**
 * Starts an enrolment: a new secret waits for its first code (`confirmEnrolment`). A user who is
 * enrolled already replaces the authenticator only with its current code (`otp`, used once like
 * a login's), so a session alone, left open on a shared computer, cannot move the second factor.
 * Each code sent for that is counted by the login lockout of the user's email as a login's is
 * (lockout.ts): a session cannot guess the code either, and its wrong codes and the login's
 * share the five a quarter of an hour.
 */
export async function startEnrolment(
  ctx: TwoFactorContext,
  user: UserRecord,
  otp?: string,
): Promise<{ secret: string; otpauthUri: string; qrCode: string }> {
  const row = await findUserById(ctx.db, user.id);
  if (row?.totp_secret) {
    if (!otp) throw currentCodeNeeded();
    const attempt = await beginLoginAttempt(ctx, row.email_normalized);
    if (!(await loginCodeAccepted(ctx, row, otp))) throw currentCodeNeeded();
    await attempt.succeeded();
  }
  const secret = generateSecret();
  await withTransaction(ctx.db, (trx) =>
    updateUser(trx, user.id, {
      totp_pending_secret: ctx.secrets.seal(secret),
      updated_at: ctx.wallClock.now(),
    }),
  );
  const otpauthUri = generateURI({ issuer: ISSUER, label: user.email, secret });
  const qrCode = await QRCode.toDataURL(otpauthUri, { margin: 1, width: 240 });
  return { secret, otpauthUri, qrCode };
}

export async function confirmEnrolment(
  ctx: TwoFactorContext,
  user: UserRecord,
  code: string,
): Promise<UserRecord> {
  const row = await findUserById(ctx.db, user.id);
  if (!row?.totp_pending_secret) throw noPendingEnrolment();
  const now = ctx.wallClock.now();
  const step = await acceptedStep(ctx.secrets.open(row.totp_pending_secret), code, now, null);
  if (step === undefined) throw wrongCode();
  const updated = await withTransaction(ctx.db, (trx) =>
    updateUser(trx, user.id, {
      totp_secret: row.totp_pending_secret,
      totp_pending_secret: null,
      totp_enabled_at: now,
      totp_last_step: step,
      updated_at: now,
    }),
  );
  if (!updated) throw noPendingEnrolment();
  return userView(updated);
}

/**
 * The operator's reset for a user who lost the authenticator: enrolment starts over, every
 * session of the user ends with it (a lost device may be a stolen one, still signed in), and the
 * email's counted login failures are forgotten (a user without the device has usually just
 * failed its codes, and the reset says the next login needs only the password), under the
 * email's lock so that it is ordered with the attempts being counted (dashboard/lockout.ts).
 */
export async function resetTwoFactor(ctx: TwoFactorContext, userId: string): Promise<UserRecord> {
  const missing = notFound("Dashboard user");
  if (!isUuid(userId)) throw missing;
  const now = ctx.wallClock.now();
  const updated = await withTransaction(ctx.db, async (trx) => {
    const user = await updateUser(trx, userId, {
      totp_secret: null,
      totp_pending_secret: null,
      totp_enabled_at: null,
      totp_last_step: null,
      updated_at: now,
    });
    if (user) {
      await revokeSessionsOfUser(trx, userId, now);
      await lockLoginEmail(trx, user.email_normalized);
      await deleteFailuresOf(trx, user.email_normalized);
    }
    return user;
  });
  if (!updated) throw missing;
  return userView(updated);
}
