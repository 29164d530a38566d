/**
 * What a bank's answer about a refund's payout does to the refund (docs/refunds.md "Live"): which
 * transition of transitions.ts it makes, or why it is refused. The payout worker's own answers,
 * the reconciler, provider callbacks, the operator's resolution of an undecided transfer and the
 * payout desk's outcomes all come here (through lifecycle/ and payout-desk/), in their
 * transaction, with the refund row locked first. It mirrors withdraws/reports.ts:
 *
 * | report | refund is  | result                                                                |
 * |--------|------------|-----------------------------------------------------------------------|
 * | paid   | processing | succeed                                                               |
 * | paid   | failed     | succeedLate, when the payment has the amount left (an overdrawn wallet is told to the operator); else refused for the operator |
 * | paid   | succeeded  | refused (already_paid)                                                |
 * | paid   | canceled   | refused and recorded for the operator                                 |
 * | paid   | pending    | refused and recorded (payout_not_dispatched)                          |
 * | failed | processing | fail, with the bank's reason                                          |
 * | failed | succeeded  | refused and recorded for the operator                                 |
 * | failed | failed, canceled | refused (already_final); a failed one withheld by the operator's decision is returned to its payment's refundable amount |
 * | failed | pending    | refused (payout_not_dispatched)                                       |
 *
 * An undecided answer changes nothing here: the refund stays processing, its hold kept, and
 * lifecycle/payouts.ts asks the bank again.
 */
import type { Trx } from "../db/handles.ts";
import type { RefundRow } from "../db/types.ts";
import { lockWallet } from "../ledger/accounts.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { describeSatang } from "../lib/money.ts";
import {
  overdrawnNotice,
  type PayoutReportOutcome,
  type Refusal,
  unknownSubject,
} from "../lib/provider-reports.ts";
import { settlementPartOf } from "./settlement-part.ts";
import { lockPaymentById, lockRefund, returnWithheld } from "./store.ts";
import { moveRefund } from "./transitions.ts";

export type RefundPayoutReportResult =
  /** `notice`: applied, and the operator must still look at it (recorded as an anomaly). */
  | { kind: "applied"; refund: RefundRow; notice?: Refusal }
  | { kind: "refused"; refund: RefundRow | undefined; refusal: Refusal };

/** The failure reason booked when the bank gave none. */
export const BANK_REFUSED_REASON = "The bank refused the transfer";

/** The refusal of a report whose payout key names no refund. */
export function unknownRefundPayout(): RefundPayoutReportResult {
  return {
    kind: "refused",
    refund: undefined,
    refusal: unknownSubject("unknown_payout", "No refund has this payout key"),
  };
}

function refuse(row: RefundRow, reason: string, message: string, anomaly: boolean): RefundPayoutReportResult {
  return {
    kind: "refused",
    refund: row,
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

async function moved(
  trx: Trx,
  transition: "succeed" | "fail" | "succeedLate",
  row: RefundRow,
  now: Date,
  failureReason?: string,
): Promise<RefundPayoutReportResult> {
  const after = await moveRefund(trx, transition, { id: row.id, failureReason }, now);
  // The row is locked by this transaction: the move the status allows cannot be refused.
  if (!after) throw new Error(`refund ${row.id} refused ${transition} under its lock`);
  return { kind: "applied", refund: after };
}

/**
 * A failed refund whose hold went back is confirmed paid after all: the money has left, so it is
 * taken again as at admission (from the payment's settlement while it is unsettled, the rest
 * from the wallet). The payment must still have the amount left to refund (otherwise
 * the report is refused and left to the operator). When the wallet no longer covers it, it is
 * debited below zero, as a withdraw's late success is (withdraws/reports.ts), and the operator
 * is told.
 */
async function lateSuccess(trx: Trx, row: RefundRow, now: Date): Promise<RefundPayoutReportResult> {
  const payment = await lockPaymentById(trx, row.payment_id);
  if (!payment) throw new Error(`refund ${row.id} names a missing payment`);
  // A withheld refund is on the refunded sum already (store.ts withholdRefundable): it always fits.
  if (!row.refundable_withheld && payment.refunded_satang + row.amount_satang > payment.amount_satang) {
    return refuse(
      row,
      "late_success_over_refunded",
      `Refund is failed and was confirmed paid late, but its payment has since been refunded again; recorded for the operator`,
      true,
    );
  }
  const wallet = await lockWallet(trx, row.merchant_id);
  // What the wallet gives: the part the payment's settlement does not (transitions.ts `paidLate`).
  const walletPart = row.amount_satang - settlementPartOf(payment, row.amount_satang);
  const applied = await moved(trx, "succeedLate", row, now);
  if (applied.kind !== "applied" || wallet.availableSatang >= walletPart) return applied;
  const notice = overdrawnNotice(
    {
      label: "Refund",
      merchantId: row.merchant_id,
      status: row.status,
      amountSatang: row.amount_satang,
      walletDebitSatang: walletPart,
    },
    wallet.availableSatang,
    describeSatang,
  );
  return { ...applied, notice };
}

async function paidReport(trx: Trx, row: RefundRow, now: Date): Promise<RefundPayoutReportResult> {
  switch (row.status) {
    case "processing":
      return moved(trx, "succeed", row, now);
    case "failed":
      return lateSuccess(trx, row, now);
    case "succeeded":
      return refuse(row, "already_paid", "Refund has already succeeded", false);
    case "canceled":
      return refuse(
        row,
        "refund_canceled",
        "Refund was canceled; the bank's payment of it is refused and recorded for the operator",
        true,
      );
    default:
      return refuse(
        row,
        "payout_not_dispatched",
        `Refund is ${row.status}: it has not been sent to the bank`,
        true,
      );
  }
}

async function failedReport(
  trx: Trx,
  row: RefundRow,
  now: Date,
  reason: string | undefined,
): Promise<RefundPayoutReportResult> {
  switch (row.status) {
    case "processing":
      return moved(trx, "fail", row, now, reason ?? BANK_REFUSED_REASON);
    case "succeeded":
      return refuse(
        row,
        "paid_payout_failed",
        "Refund has already succeeded; the bank's failure report is refused and recorded for the operator",
        true,
      );
    case "failed":
      // The bank confirms the operator's failure: a withheld amount may be refunded again.
      await returnWithheld(trx, row.id);
      return refuse(row, "already_final", `Refund is already ${row.status}`, false);
    case "canceled":
      return refuse(row, "already_final", `Refund is already ${row.status}`, false);
    default:
      return refuse(
        row,
        "payout_not_dispatched",
        `Refund is ${row.status}: it has not been sent to the bank`,
        false,
      );
  }
}

/**
 * Applies what the bank said about a refund's payout. `reason` is the bank's reason for a
 * failure, kept as the refund's `failureReason`. Never throws for a refused transition: the
 * caller records refusals and anomalies in the same transaction.
 */
export async function applyRefundPayoutReport(
  trx: Trx,
  ctx: { clock: Clock },
  refundId: string,
  outcome: PayoutReportOutcome,
  reason?: string,
): Promise<RefundPayoutReportResult> {
  const locked = await lockRefund(trx, refundId);
  if (!locked) return unknownRefundPayout();
  const { clock_offset_ms: offsetMs, ...row } = locked;
  const now = businessNow(ctx.clock, offsetMs);
  return outcome === "paid" ? paidReport(trx, row, now) : failedReport(trx, row, now, reason);
}
