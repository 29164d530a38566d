/**
 * The sandbox test clock (CONTRACT 10). Each merchant's business time is the service clock plus
 * the merchant's `clock_offset_ms`, stored in the database so every server and worker process
 * agrees on it. The merchant (POST /api/v1/sandbox/clock/advance) or the operator
 * (POST /admin/v1/merchants/{id}/clock/advance) moves it forward, and only that merchant's time
 * moves. Authentication, rate limits and webhook timestamps use the wall clock and never see the
 * offset.
 *
 * The only way back is the reset (POST /api/v1/sandbox/clock/reset, or the operator's
 * /admin/v1/merchants/{id}/clock/reset): the offset returns to zero, so the merchant's time is
 * wall-clock time again. Records already made keep their timestamps, and nothing moves backwards
 * for a record: an open payment's `expiresAt` stays where it was set (so it expires when the
 * merchant's time reaches it, later in real time than it would have under the moved clock), and
 * a later change to a record made under the moved clock is stamped no earlier than the record's
 * last change (payments/store.ts, withdraws/store.ts), so `updatedAt` never goes back.
 *
 * After moving the clock, the work that has become due for that merchant (payment expiry,
 * verification expiry, settlement) is done before the answer, like Stripe's test clocks: a test
 * that advances past `expiresAt` and then reads the payment sees it expired, without waiting
 * for a worker.
 */

import { withTransaction } from "../db/handles.ts";
import { businessNow } from "../lib/clock.ts";
import { AppError, fieldError, notFound } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { CLOCK_ADVANCE_SECONDS_MAX, CLOCK_OFFSET_MAX_MS } from "../lib/limits.ts";
import type { LifecycleContext } from "./context.ts";
import { expireDuePayments } from "./payments.ts";
import { expireDueVerifications } from "./payouts.ts";
import { settleDuePayments } from "./settlement.ts";
import { advanceClockOffset, readClockOffset, resetClockOffset } from "./store.ts";

export interface ClockView {
  /** The merchant's business time. */
  now: string;
  /** How far the merchant's clock runs ahead of wall-clock time, in whole seconds. */
  offsetSeconds: number;
}

function clockView(ctx: ClockContext, offsetMs: bigint): ClockView {
  return { now: businessNow(ctx.clock, offsetMs).toISOString(), offsetSeconds: Number(offsetMs / 1000n) };
}

/** What reading and resetting a clock use: the store, the service clock and the environment. */
type ClockContext = Pick<LifecycleContext, "db" | "clock"> & {
  config: Pick<LifecycleContext["config"], "env">;
};

function sandboxOnly(ctx: ClockContext): void {
  if (ctx.config.env !== "sandbox") {
    throw new AppError("RESOURCE_NOT_FOUND", "The test clock exists only in sandbox");
  }
}

export async function readMerchantClock(ctx: ClockContext, merchantId: string): Promise<ClockView> {
  sandboxOnly(ctx);
  const offset = isUuid(merchantId) ? await readClockOffset(ctx.db, merchantId) : undefined;
  if (offset === undefined) throw notFound("Merchant");
  return clockView(ctx, offset);
}

/**
 * Brings the merchant's test clock back to wall-clock time. Nothing becomes due by going back, so
 * no work is done; work already due stays done.
 */
export async function resetMerchantClock(ctx: ClockContext, merchantId: string): Promise<ClockView> {
  sandboxOnly(ctx);
  const offset = isUuid(merchantId)
    ? await withTransaction(ctx.db, (trx) => resetClockOffset(trx, merchantId))
    : undefined;
  if (offset === undefined) throw notFound("Merchant");
  return clockView(ctx, offset);
}

/** Does everything of one merchant that is due at its current business time. */
async function runDueWorkForMerchant(ctx: LifecycleContext, merchantId: string): Promise<void> {
  while ((await expireDuePayments(ctx, merchantId)) > 0) {}
  while ((await expireDueVerifications(ctx, merchantId)) > 0) {}
  while ((await settleDuePayments(ctx, merchantId)).length > 0) {}
}

/** The log line of an advance whose due work failed after the clock moved. */
export const DUE_WORK_LEFT =
  "test clock moved; the work it made due failed and is left to the workers (the answer is the moved clock)";

/**
 * Moves the merchant's clock forward, then does the work that became due. The move commits
 * first: when the due work then fails (a database bound under load, CONTRACT 14), the answer is
 * still the moved clock, and `dueWorkFailed` is told (the route logs it); an error answer would
 * read as "not moved" and a retry would move the clock a second time. The workers do what is
 * left, as they compare each record with its merchant's time.
 */
export async function advanceMerchantClock(
  ctx: LifecycleContext,
  merchantId: string,
  seconds: number,
  dueWorkFailed: (error: unknown) => void,
): Promise<ClockView> {
  sandboxOnly(ctx);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > CLOCK_ADVANCE_SECONDS_MAX) {
    throw fieldError(
      "VALIDATION_ERROR",
      "seconds",
      `seconds must be a whole number from 1 to ${CLOCK_ADVANCE_SECONDS_MAX}: the clock moves forward only`,
    );
  }
  if (!isUuid(merchantId)) throw notFound("Merchant");
  const offset = await withTransaction(ctx.db, async (trx) => {
    const moved = await advanceClockOffset(
      trx,
      merchantId,
      BigInt(seconds) * 1000n,
      BigInt(CLOCK_OFFSET_MAX_MS),
    );
    if (moved !== undefined) return moved;
    if ((await readClockOffset(trx, merchantId)) === undefined) throw notFound("Merchant");
    throw fieldError(
      "VALIDATION_ERROR",
      "seconds",
      `The test clock may run at most ${CLOCK_OFFSET_MAX_MS / 86_400_000} days ahead of the service clock`,
    );
  });
  try {
    await runDueWorkForMerchant(ctx, merchantId);
  } catch (error) {
    dueWorkFailed(error);
  }
  return clockView(ctx, offset);
}
