/**
 * The sets of withdraw statuses the rules speak of, each named once, beside the transition
 * table (transitions.ts) in a module of their own so that the guard, the limits and the stores
 * can use them without importing the status writer.
 */
import { WITHDRAW_STATUSES, type WithdrawStatus } from "../db/types.ts";

/** Open withdraws: their amount is held, and a matching payout is blocked whatever their age. */
export const ACTIVE_WITHDRAW_STATUSES: readonly WithdrawStatus[] = [
  "awaiting_verification",
  "pending",
  "processing",
];

/** Every status but the open ones: the withdraw has ended (paid, failed, canceled, expired). */
export const ENDED_WITHDRAW_STATUSES: readonly WithdrawStatus[] = WITHDRAW_STATUSES.filter(
  (status) => !ACTIVE_WITHDRAW_STATUSES.includes(status),
);

/**
 * Withdraws that use limit capacity (interface.md "Create withdraw" rule 3): the open ones and
 * the paid ones. interface.md's "pending, processing and completed" is the same set.
 */
export const LIMIT_COUNTED_STATUSES: readonly WithdrawStatus[] = [...ACTIVE_WITHDRAW_STATUSES, "paid"];

/** Statuses a merchant can cancel from. Processing is not among them: the bank has the payout. */
export const MERCHANT_CANCELABLE_STATUSES: readonly WithdrawStatus[] = ["awaiting_verification", "pending"];

/** Ended without paying out: the hold went back to the wallet. */
export const ENDED_UNPAID_STATUSES: readonly WithdrawStatus[] = ["failed", "expired", "canceled"];

/** Ended without paying out, from where a provider's late success can still make them paid. */
export const LATE_SUCCESS_STATUSES: readonly WithdrawStatus[] = ["failed", "expired"];

export function isActive(status: WithdrawStatus): boolean {
  return ACTIVE_WITHDRAW_STATUSES.includes(status);
}
