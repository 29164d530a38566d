/**
 * What a provider's report about a payout does to its withdraw (docs/lifecycle.md): which
 * transition of transitions.ts it makes, or why it is refused. Provider callbacks, the payout
 * worker's own answers and the reconciler all come here (through lifecycle/), in their
 * transaction, with the withdraw row locked first.
 *
 * | report | withdraw is                  | result                                              |
 * |--------|------------------------------|-----------------------------------------------------|
 * | paid   | processing                   | pay                                                 |
 * | paid   | failed, expired              | payLate (the wallet may go below zero: recorded for the operator) |
 * | paid   | paid                         | refused (already_paid)                              |
 * | paid   | canceled                     | refused and recorded for the operator               |
 * | paid   | pending, awaiting_verification | refused and recorded (payout_not_dispatched)      |
 * | failed | processing                   | fail                                                |
 * | failed | paid                         | refused and recorded for the operator               |
 * | failed | failed, expired, canceled    | refused (already_final)                             |
 * | failed | pending, awaiting_verification | refused (payout_not_dispatched)                   |
 *
 * An indeterminate provider answer changes nothing here: the withdraw stays processing and
 * lifecycle/payouts.ts reconciles it by asking the provider.
 */
import type { Trx } from "../db/handles.ts";
import type { WithdrawRow } from "../db/types.ts";
import { lockWallet } from "../ledger/accounts.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { describeSatang } from "../lib/money.ts";
import {
  overdrawnNotice,
  type PayoutReportOutcome,
  type Refusal,
  unknownSubject,
} from "../lib/provider-reports.ts";
import { ENDED_UNPAID_STATUSES, LATE_SUCCESS_STATUSES } from "./statuses.ts";
import { lockWithdraw } from "./store.ts";
import { moveLockedWithdraw } from "./transitions.ts";

export type PayoutReportResult =
  /** `notice`: applied, and the operator must still look at it (recorded as an anomaly). */
  | { kind: "applied"; withdraw: WithdrawRow; notice?: Refusal }
  | { kind: "refused"; withdraw: WithdrawRow | undefined; refusal: Refusal };

/** The refusal of a report whose payout key names no withdraw. */
export function unknownPayout(): PayoutReportResult {
  return {
    kind: "refused",
    withdraw: undefined,
    refusal: unknownSubject("unknown_payout", "No withdraw has this payout key"),
  };
}

function refuse(row: WithdrawRow, reason: string, message: string, anomaly: boolean): PayoutReportResult {
  return {
    kind: "refused",
    withdraw: row,
    refusal: {
      reason,
      message,
      anomaly,
      merchantId: row.merchant_id,
      subjectStatus: row.status,
      amountSatang: row.amount_satang,
    },
  };
}

const notDispatched = (row: WithdrawRow, anomaly: boolean) =>
  refuse(
    row,
    "payout_not_dispatched",
    `Withdraw is ${row.status}: it has not been sent to the provider`,
    anomaly,
  );

/**
 * A failed or expired withdraw whose hold went back to the wallet is confirmed paid after all:
 * the money has left, so the withdraw is `paid` again (it counts towards the limits again) and
 * the wallet is debited again, whatever it holds by now (interface.md, CONTRACT 8). When the
 * merchant has spent the released amount meanwhile, the available wallet goes below zero (the
 * merchant owes the difference; migration 0111 allows it for this posting only) and the
 * operator is told: the report is applied with a notice, recorded as an anomaly.
 */
async function lateSuccess(trx: Trx, row: WithdrawRow, now: Date): Promise<PayoutReportResult> {
  const wallet = await lockWallet(trx, row.merchant_id);
  const withdraw = await moveLockedWithdraw(trx, "payLate", row, now);
  if (wallet.availableSatang >= row.amount_satang) return { kind: "applied", withdraw };
  const notice = overdrawnNotice(
    { label: "Withdraw", merchantId: row.merchant_id, status: row.status, amountSatang: row.amount_satang },
    wallet.availableSatang,
    describeSatang,
  );
  return { kind: "applied", withdraw, notice };
}

async function paidReport(trx: Trx, row: WithdrawRow, now: Date): Promise<PayoutReportResult> {
  if (row.status === "processing") {
    return { kind: "applied", withdraw: await moveLockedWithdraw(trx, "pay", row, now) };
  }
  if (LATE_SUCCESS_STATUSES.includes(row.status)) return lateSuccess(trx, row, now);
  if (row.status === "paid") return refuse(row, "already_paid", "Withdraw is already paid", false);
  if (row.status === "canceled") {
    return refuse(
      row,
      "withdraw_canceled",
      "Withdraw was canceled; the provider's payment of it is refused and recorded for the operator",
      true,
    );
  }
  return notDispatched(row, true);
}

async function failedReport(trx: Trx, row: WithdrawRow, now: Date): Promise<PayoutReportResult> {
  if (row.status === "processing") {
    return { kind: "applied", withdraw: await moveLockedWithdraw(trx, "fail", row, now) };
  }
  if (row.status === "paid") {
    return refuse(
      row,
      "paid_payout_failed",
      "Withdraw is already paid; the provider's failure report is refused and recorded for the operator",
      true,
    );
  }
  if (ENDED_UNPAID_STATUSES.includes(row.status)) {
    return refuse(row, "already_final", `Withdraw is already ${row.status}`, false);
  }
  return notDispatched(row, false);
}

/**
 * Applies what a provider reported about a payout (its key is the withdraw id). Never throws
 * for a refused transition: the caller records refusals and anomalies in the same transaction.
 */
export async function applyPayoutReport(
  trx: Trx,
  ctx: { clock: Clock },
  withdrawId: string,
  outcome: PayoutReportOutcome,
): Promise<PayoutReportResult> {
  const locked = await lockWithdraw(trx, withdrawId);
  if (!locked) return unknownPayout();
  const now = businessNow(ctx.clock, locked.offsetMs);
  return outcome === "paid" ? paidReport(trx, locked.row, now) : failedReport(trx, locked.row, now);
}
