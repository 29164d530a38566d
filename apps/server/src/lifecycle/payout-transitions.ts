/**
 * The withdraw state machine after admission (docs/lifecycle.md). Each transition runs in the
 * caller's transaction with the withdraw row locked, and writes its ledger posting and event in
 * that same transaction:
 *
 * | from                  | trigger                          | to         | ledger              | event               |
 * |-----------------------|----------------------------------|------------|---------------------|---------------------|
 * | pending               | handed to the provider           | processing | -                   | withdraw.processing |
 * | processing            | provider: paid                   | paid       | hold consumed       | withdraw.paid       |
 * | processing            | provider: failed                 | failed     | hold released       | withdraw.failed     |
 * | failed, expired       | provider: paid (late success)    | paid       | wallet debited again| withdraw.paid       |
 * | awaiting_verification | 24 h without approval            | expired    | hold released       | (none in CONTRACT 12) |
 *
 * An indeterminate provider answer changes nothing here: the withdraw stays processing and
 * lifecycle/payouts.ts reconciles it by asking the provider.
 *
 * Locks: the withdraw row first, then (for a late success) the merchant's wallet lock, then the
 * ledger accounts in the ledger's own order. Withdraw admission takes the wallet lock but never
 * an existing withdraw's row, so the two orders cannot meet in a cycle.
 */
import type { WithdrawRow } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import { recordEvent } from "../events/outbox.ts";
import { lockWallet } from "../ledger/accounts.ts";
import { postWithdrawLateSuccess, postWithdrawPaid, postWithdrawRelease } from "../ledger/postings.ts";
import { businessNow } from "../lib/clock.ts";
import { formatAmount } from "../lib/money.ts";
import type { PayoutReportOutcome } from "../providers/provider.ts";
import { withdrawView } from "../withdraws/view.ts";
import type { Refusal } from "./anomalies.ts";
import type { Trx } from "./store.ts";
import { findPayout, lockWithdraw, updatePayout, updateWithdraw } from "./store.ts";

export type PayoutReportResult =
  | { kind: "applied"; withdraw: WithdrawRow }
  | { kind: "refused"; withdraw: WithdrawRow | undefined; refusal: Refusal };

type WithdrawEvent = "withdraw.processing" | "withdraw.paid" | "withdraw.failed" | "withdraw.canceled";

export async function emitWithdrawEvent(
  trx: Trx,
  row: WithdrawRow,
  type: WithdrawEvent,
  at: Date,
): Promise<void> {
  await recordEvent(trx, {
    merchantId: row.merchant_id,
    type,
    objectType: "withdraw",
    object: withdrawView(row),
    occurredAt: at,
  });
}

/** Closes the payout attempt record, if the withdraw has one, once its outcome is booked. */
async function completePayout(trx: Trx, withdrawId: string, at: Date): Promise<void> {
  if (await findPayout(trx, withdrawId)) await updatePayout(trx, withdrawId, { state: "completed", at });
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

async function markPaid(trx: Trx, row: WithdrawRow, now: Date): Promise<PayoutReportResult> {
  const paid = await updateWithdraw(trx, row.id, { status: "paid", paid_at: now, updated_at: now });
  await postWithdrawPaid(trx, {
    merchantId: row.merchant_id,
    withdrawId: row.id,
    amountSatang: row.amount_satang,
    at: now,
  });
  await emitWithdrawEvent(trx, paid, "withdraw.paid", now);
  await completePayout(trx, row.id, now);
  return { kind: "applied", withdraw: paid };
}

/**
 * A failed or expired withdraw whose hold went back to the wallet is confirmed paid after all:
 * the money has left, so the wallet is debited again and the withdraw counts towards the
 * limits again (it is `paid`). The wallet must still hold the amount; when the merchant has
 * spent it meanwhile, the ledger cannot go below zero, so the report is refused and left to
 * the operator.
 */
async function lateSuccess(trx: Trx, row: WithdrawRow, now: Date): Promise<PayoutReportResult> {
  const wallet = await lockWallet(trx, row.merchant_id);
  if (wallet.availableSatang < row.amount_satang) {
    return refuse(
      row,
      "late_success_insufficient_balance",
      `Withdraw is ${row.status} and was confirmed paid late, but the available wallet ` +
        `(${formatAmount(wallet.availableSatang)}) no longer covers ${formatAmount(row.amount_satang)}; recorded for the operator`,
      true,
    );
  }
  const paid = await updateWithdraw(trx, row.id, { status: "paid", paid_at: now, updated_at: now });
  await postWithdrawLateSuccess(trx, {
    merchantId: row.merchant_id,
    withdrawId: row.id,
    amountSatang: row.amount_satang,
    at: now,
  });
  await emitWithdrawEvent(trx, paid, "withdraw.paid", now);
  await completePayout(trx, row.id, now);
  return { kind: "applied", withdraw: paid };
}

async function markFailed(trx: Trx, row: WithdrawRow, now: Date): Promise<PayoutReportResult> {
  const failed = await updateWithdraw(trx, row.id, { status: "failed", failed_at: now, updated_at: now });
  await postWithdrawRelease(trx, {
    merchantId: row.merchant_id,
    withdrawId: row.id,
    amountSatang: row.amount_satang,
    at: now,
  });
  await emitWithdrawEvent(trx, failed, "withdraw.failed", now);
  await completePayout(trx, row.id, now);
  return { kind: "applied", withdraw: failed };
}

/**
 * Applies what a provider reported about a payout (its key is the withdraw id). Never throws
 * for a refused transition: the caller records refusals and anomalies in the same transaction.
 */
export async function applyPayoutReport(
  trx: Trx,
  deps: Deps,
  withdrawId: string,
  outcome: PayoutReportOutcome,
): Promise<PayoutReportResult> {
  const locked = await lockWithdraw(trx, withdrawId);
  if (!locked) {
    return {
      kind: "refused",
      withdraw: undefined,
      refusal: {
        reason: "unknown_payout",
        message: "No withdraw has this payout key",
        anomaly: true,
        merchantId: null,
        subjectStatus: null,
        amountSatang: null,
      },
    };
  }
  const row = locked.row;
  const now = businessNow(deps.clock, locked.offsetMs);
  const notDispatched = (anomaly: boolean) =>
    refuse(
      row,
      "payout_not_dispatched",
      `Withdraw is ${row.status}: it has not been sent to the provider`,
      anomaly,
    );

  if (outcome === "paid") {
    switch (row.status) {
      case "processing":
        return markPaid(trx, row, now);
      case "failed":
      case "expired":
        return lateSuccess(trx, row, now);
      case "paid":
        return refuse(row, "already_paid", "Withdraw is already paid", false);
      case "canceled":
        return refuse(
          row,
          "withdraw_canceled",
          "Withdraw was canceled; the provider's payment of it is refused and recorded for the operator",
          true,
        );
      default:
        return notDispatched(true);
    }
  }
  switch (row.status) {
    case "processing":
      return markFailed(trx, row, now);
    case "paid":
      return refuse(
        row,
        "paid_payout_failed",
        "Withdraw is already paid; the provider's failure report is refused and recorded for the operator",
        true,
      );
    case "failed":
    case "expired":
    case "canceled":
      return refuse(row, "already_final", `Withdraw is already ${row.status}`, false);
    default:
      return notDispatched(false);
  }
}

/** Ends a withdraw that waited 24 h for approval: expired, with its hold released. */
export async function expireVerification(trx: Trx, row: WithdrawRow, now: Date): Promise<WithdrawRow> {
  const expired = await updateWithdraw(trx, row.id, { status: "expired", updated_at: now });
  await postWithdrawRelease(trx, {
    merchantId: row.merchant_id,
    withdrawId: row.id,
    amountSatang: row.amount_satang,
    at: now,
  });
  return expired;
}

/**
 * Locks the withdraw and expires it if its approval deadline has passed. Used before the
 * merchant's cancel and the operator's approve or reject, so that they see what the expiry job
 * would have left: an approval one millisecond late is refused, like the job would refuse it.
 */
export async function expireVerificationIfDue(
  trx: Trx,
  deps: Deps,
  withdrawId: string,
  merchantId?: string,
): Promise<void> {
  const locked = await lockWithdraw(trx, withdrawId);
  if (!locked) return;
  const { row } = locked;
  if (merchantId !== undefined && row.merchant_id !== merchantId) return;
  const now = businessNow(deps.clock, locked.offsetMs);
  if (
    row.status === "awaiting_verification" &&
    row.verification_expires_at !== null &&
    row.verification_expires_at.getTime() <= now.getTime()
  ) {
    await expireVerification(trx, row, now);
  }
}
