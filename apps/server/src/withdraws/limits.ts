/**
 * The combined daily and monthly withdrawal limits (interface.md "Create withdraw" rule 3,
 * CONTRACT 7).
 *
 * - Withdraws in awaiting_verification, pending, processing and paid use capacity; failed,
 *   canceled and expired ones use none. (interface.md's "wallet withdraws in pending,
 *   processing and completed" is the same set: every withdraw lives in one table.)
 * - Windows are the UTC calendar day and month of `createdAt` (business time).
 * - A request is admitted when total + amount <= limit: exactly at the limit passes, one
 *   satang over fails. The daily limit is checked before the monthly one.
 * - A merchant without a limit (null) has none.
 * - The limit governs admission only: a late provider-confirmed success that puts a failed or
 *   expired row back into paid makes it count again from then on, which can leave the total
 *   above the limit until the period resets.
 *
 * The check runs under the merchant's wallet lock (withdraws/admission.ts), so concurrent
 * requests are decided one after another against the totals their predecessors left.
 */

import type { Db } from "../db/handles.ts";
import { AppError } from "../lib/errors.ts";
import { describeSatang, formatAmount } from "../lib/money.ts";
import { usedCapacityInWindows, type Window } from "./store.ts";

export function utcDay(at: Date): Window {
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const to = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
  return { from, to };
}

export function utcMonth(at: Date): Window {
  const from = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const to = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { from, to };
}

interface LimitTotals {
  dailySatang: bigint;
  monthlySatang: bigint;
}

/**
 * The capacity already used in the UTC day and month of `now`, by withdraws in
 * LIMIT_COUNTED_STATUSES: read from the per-day totals the database keeps, so its cost does not
 * grow with the month's withdraws (withdraws/store.ts).
 */
export function usedCapacity(db: Db, merchantId: string, now: Date): Promise<LimitTotals> {
  return usedCapacityInWindows(db, { merchantId, day: utcDay(now), month: utcMonth(now) });
}

/** Pure: the limit error for these totals, or undefined when the amount fits both limits. */
export function limitError(
  limits: { dailySatang: bigint | null; monthlySatang: bigint | null },
  totals: LimitTotals,
  amountSatang: bigint,
): AppError | undefined {
  if (limits.dailySatang !== null && totals.dailySatang + amountSatang > limits.dailySatang) {
    return new AppError(
      "INVALID_INPUT",
      `Daily withdrawal limit exceeded: ${describeSatang(totals.dailySatang)} already used today, ` +
        `${describeSatang(amountSatang)} requested, daily limit ${describeSatang(limits.dailySatang)}`,
      {
        dailyTotal: formatAmount(totals.dailySatang),
        amount: formatAmount(amountSatang),
        dailyLimit: formatAmount(limits.dailySatang),
      },
    );
  }
  if (limits.monthlySatang !== null && totals.monthlySatang + amountSatang > limits.monthlySatang) {
    return new AppError(
      "INVALID_INPUT",
      `Monthly withdrawal limit exceeded: ${describeSatang(totals.monthlySatang)} already used this month, ` +
        `${describeSatang(amountSatang)} requested, monthly limit ${describeSatang(limits.monthlySatang)}`,
      {
        monthlyTotal: formatAmount(totals.monthlySatang),
        amount: formatAmount(amountSatang),
        monthlyLimit: formatAmount(limits.monthlySatang),
      },
    );
  }
  return undefined;
}
