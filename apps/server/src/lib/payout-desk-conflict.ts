import { AppError } from "./errors.ts";

/**
 * 409 for a sandbox simulate route's report on a withdraw or refund while SATANG_PAYOUTS=manual,
 * or on one the payout desk took into a batch before SATANG_PAYOUTS changed back to `provider`:
 * the operator's payout desk pays them and records what the bank did, so the simulated bank has
 * nothing to report (deciding one in an open batch would release a hold the operator may be
 * paying at that moment).
 */
export function payoutDeskConflict(label: "Withdraw" | "Refund", status: string, inBatch: boolean): AppError {
  const lower = label.toLowerCase();
  let why: string;
  if (inBatch)
    why = `${label} is in a batch of the operator's payout desk: the desk records what the bank did with it`;
  else if (status === "processing")
    why = `${label} was handed to a payout connector before SATANG_PAYOUTS=manual, and the simulated bank reports nothing while the payout desk pays: the operator resolves this ${lower} (the undecided payouts of the desk)`;
  else
    why = `${label} is paid out through the operator's payout desk (SATANG_PAYOUTS=manual): the desk takes it into a batch and records what the bank did with it`;
  return new AppError("STATE_CONFLICT", why, { status, reason: "payout_desk" });
}
