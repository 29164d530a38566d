/**
 * The login lockout (CONTRACT 13): after DASHBOARD_LOGIN_FAILURES_MAX (5) failed logins of one
 * email within DASHBOARD_LOGIN_FAILURE_WINDOW_MS (15 minutes), further attempts for that email
 * get 429 RATE_LIMIT_EXCEEDED until the oldest counted failure is 15 minutes old. Time is the
 * wall clock, never a sandbox test clock.
 *
 * Every attempt first reserves a failure row, under a per-email advisory lock, and only then
 * checks the password; a correct password deletes its own reservation again. So attempts that
 * run at the same time, in any number of processes, are each counted before any of them is
 * checked, and no burst of parallel guesses gets past the fifth. The password check itself
 * (about 150 ms of argon2) runs outside any transaction.
 *
 * The count is per email, whether or not a user has it, so the lockout answers an unknown email
 * exactly like a known one. It locks the email rather than the caller's address on purpose: the
 * thing being protected is the account, and an attacker has many addresses.
 */
import { type Db, withTransaction } from "../db/handles.ts";
import { unwatched } from "../db/transaction-scope.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { newId } from "../lib/ids.ts";
import { DASHBOARD_LOGIN_FAILURE_WINDOW_MS, DASHBOARD_LOGIN_FAILURES_MAX } from "../lib/limits.ts";
import {
  deleteFailure,
  deleteFailuresBefore,
  insertFailure,
  lockLoginEmail,
  recentFailures,
} from "./store.ts";

export function lockedOut(failures: Date[], now: Date): AppError {
  // The email is allowed again once enough failures have left the window for the count to be
  // below the maximum: that is when the failure at this position turns 15 minutes old.
  const freeing = failures[failures.length - DASHBOARD_LOGIN_FAILURES_MAX] ?? now;
  const resetAt = new Date(freeing.getTime() + DASHBOARD_LOGIN_FAILURE_WINDOW_MS);
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
  return new AppError(
    "RATE_LIMIT_EXCEEDED",
    `Too many failed logins for this email; try again in ${Math.ceil(retryAfter / 60)} minute(s)`,
    { limit: DASHBOARD_LOGIN_FAILURES_MAX, remaining: 0, resetAt: resetAt.toISOString(), retryAfter },
  );
}

/**
 * Counts one login attempt of an email as a failure until `succeeded` says otherwise. Throws
 * 429 when the email is locked out, without counting the attempt.
 */
export async function beginLoginAttempt(
  ctx: { db: Db; wallClock: Clock },
  emailNormalized: string,
): Promise<{ succeeded(): Promise<void> }> {
  const now = ctx.wallClock.now();
  const windowStart = new Date(now.getTime() - DASHBOARD_LOGIN_FAILURE_WINDOW_MS);
  const id = newId();
  // The reservation is bookkeeping, never the request's action: written unwatched, so an audited
  // request (replacing an authenticator) records its entry with its own change, not with this
  // row, and a refused attempt records none ("Refused requests record nothing").
  await unwatched(() =>
    withTransaction(ctx.db, async (trx) => {
      await lockLoginEmail(trx, emailNormalized);
      const failures = await recentFailures(trx, emailNormalized, windowStart);
      if (failures.length >= DASHBOARD_LOGIN_FAILURES_MAX) throw lockedOut(failures, now);
      await insertFailure(trx, { id, emailNormalized, at: now });
    }),
  );
  // Failures that no longer count are of no use to anyone; logins are rare enough that
  // sweeping them on each one costs nothing worth measuring.
  await unwatched(() => deleteFailuresBefore(ctx.db, windowStart));
  return { succeeded: () => unwatched(() => deleteFailure(ctx.db, id)) };
}
