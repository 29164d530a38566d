import { AppError } from "./errors.ts";

/**
 * 409 for a sandbox simulate route's report on a withdraw or refund while SATANG_PAYOUTS=manual,
 * or on one the payout desk took into a batch before SATANG_PAYOUTS changed back to `provider`:
 * the operator's payout desk pays them and records what the bank did, so the simulated bank has
 * nothing to report (deciding one in an open batch would release a hold the operator may be
 * paying at that moment).
 */
export function payoutDeskConflict(label: "Withdraw" | "Refund", status: string): AppError {
  return new AppError(
    "STATE_CONFLICT",
    `${label} is paid out through the operator's payout desk (SATANG_PAYOUTS=manual, or a batch of the desk): the desk records what the bank did with it`,
    { status, reason: "payout_desk" },
  );
}
