/**
 * The sandbox test clock (CONTRACT 10). Each merchant's business time is the service clock plus
 * the merchant's `clock_offset_ms`, stored in the database so every server and worker process
 * agrees on it. The merchant (POST /api/v1/sandbox/clock/advance) or the operator
 * (POST /admin/v1/merchants/{id}/clock/advance) moves it forward, never back, and only that
 * merchant's time moves. Authentication, rate limits and webhook timestamps use the wall clock
 * and never see the offset.
 *
 * After moving the clock, the work that has become due for that merchant (payment expiry,
 * verification expiry, settlement) is done before the answer, like Stripe's test clocks: a test
 * that advances past `expiresAt` and then reads the payment sees it expired, without waiting
 * for a worker.
 */
import type { Deps } from "../deps.ts";
import { businessNow } from "../lib/clock.ts";
import { AppError, fieldError, notFound } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { CLOCK_ADVANCE_SECONDS_MAX, CLOCK_OFFSET_MAX_MS } from "../lib/limits.ts";
import { expireDuePayments } from "./payments.ts";
import { expireDueVerifications } from "./payouts.ts";
import { settleDuePayments } from "./settlement.ts";
import { advanceClockOffset, readClockOffset } from "./store.ts";

export interface ClockView {
  now: string;
}

function sandboxOnly(deps: Deps): void {
  if (deps.config.env !== "sandbox") {
    throw new AppError("RESOURCE_NOT_FOUND", "The test clock exists only in sandbox");
  }
}

export async function readMerchantClock(deps: Deps, merchantId: string): Promise<ClockView> {
  sandboxOnly(deps);
  const offset = isUuid(merchantId) ? await readClockOffset(deps.db, merchantId) : undefined;
  if (offset === undefined) throw notFound("Merchant");
  return { now: businessNow(deps.clock, offset).toISOString() };
}

/** Does everything of one merchant that is due at its current business time. */
export async function runDueWorkForMerchant(deps: Deps, merchantId: string): Promise<void> {
  while ((await expireDuePayments(deps, merchantId)) > 0) {}
  while ((await expireDueVerifications(deps, merchantId)) > 0) {}
  while ((await settleDuePayments(deps, merchantId)).length > 0) {}
}

export async function advanceMerchantClock(
  deps: Deps,
  merchantId: string,
  seconds: number,
): Promise<ClockView> {
  sandboxOnly(deps);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > CLOCK_ADVANCE_SECONDS_MAX) {
    throw fieldError(
      "VALIDATION_ERROR",
      "seconds",
      `seconds must be a whole number from 1 to ${CLOCK_ADVANCE_SECONDS_MAX}: the clock moves forward only`,
    );
  }
  if (!isUuid(merchantId)) throw notFound("Merchant");
  const offset = await advanceClockOffset(
    deps.db,
    merchantId,
    BigInt(seconds) * 1000n,
    BigInt(CLOCK_OFFSET_MAX_MS),
  );
  if (offset === undefined) {
    if ((await readClockOffset(deps.db, merchantId)) === undefined) throw notFound("Merchant");
    throw fieldError(
      "VALIDATION_ERROR",
      "seconds",
      `The test clock may run at most ${CLOCK_OFFSET_MAX_MS / 86_400_000} days ahead of the service clock`,
    );
  }
  await runDueWorkForMerchant(deps, merchantId);
  return { now: businessNow(deps.clock, offset).toISOString() };
}
