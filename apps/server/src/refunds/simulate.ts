/**
 * Sandbox: the simulated bank decides a refund (CONTRACT 16). The simulated provider reports
 * nothing by itself, so a sandbox refund stays `pending` until this route says what happened,
 * and merchants' tests are deterministic (CONTRACT 9).
 *
 * - `processing`: a pending refund is handed to the bank (refund.processing).
 * - `succeeded` / `failed`: a pending refund is handed to the bank first, then the bank decides
 *   (refund.succeeded; or refund.failed with the hold released). `succeeded` on a failed refund
 *   is the late success: the wallet is debited again, when it covers the amount and the
 *   payment still has that much left to refund; otherwise 409.
 *
 * Anything else answers 409 STATE_CONFLICT; another merchant's refund 404.
 */

import type { Config } from "../config.ts";
import type { Trx } from "../db/handles.ts";
import { withTransaction } from "../db/handles.ts";
import type { RefundRow } from "../db/types.ts";
import { lockWallet } from "../ledger/accounts.ts";
import { businessNow } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { payoutDeskConflict } from "../lib/provider-reports.ts";
import type { RefundRecord, SimulatedRefundOutcome } from "./schemas.ts";
import { type RefundContext, refundNotFound } from "./service.ts";
import { lockPaymentById, lockRefund } from "./store.ts";
import { moveRefund, type RefundTransition } from "./transitions.ts";
import { refundView } from "./view.ts";

/** The failure reason the simulated bank gives. */
export const SIMULATED_FAILURE_REASON = "The receiving bank refused the transfer (sandbox simulation)";

export function refundConflict(status: string, message: string, reason = "invalid_transition"): AppError {
  return new AppError("STATE_CONFLICT", message, { status, reason });
}

/** The moves the simulated outcome makes from each status, in order; undefined when refused. */
function movesFor(
  outcome: SimulatedRefundOutcome,
  status: RefundRow["status"],
): RefundTransition[] | undefined {
  if (outcome === "processing") return status === "pending" ? ["dispatch"] : undefined;
  const decide: RefundTransition = outcome === "succeeded" ? "succeed" : "fail";
  if (status === "pending") return ["dispatch", decide];
  if (status === "processing") return [decide];
  if (status === "failed" && outcome === "succeeded") return ["succeedLate"];
  return undefined;
}

/**
 * A late success fits only when the payment still has the amount left. The wallet is debited
 * again whatever it holds, below zero if it was spent meanwhile (refunds/reports.ts).
 */
async function checkLateSuccess(trx: Trx, row: RefundRow): Promise<void> {
  const payment = await lockPaymentById(trx, row.payment_id);
  if (!payment) throw new Error(`refund ${row.id} names a missing payment`);
  if (payment.refunded_satang + row.amount_satang > payment.amount_satang) {
    throw refundConflict(
      row.status,
      "The payment has since been refunded again: this late success needs the operator",
      "over_refunded",
    );
  }
  // The wallet is locked before the refund's postings, in the order every posting takes.
  await lockWallet(trx, row.merchant_id);
}

export async function simulateRefund(
  ctx: RefundContext & { config: Pick<Config, "payouts"> },
  merchantId: string,
  refundId: string,
  outcome: SimulatedRefundOutcome,
): Promise<RefundRecord> {
  if (!isUuid(refundId)) throw refundNotFound();
  const id = refundId.toLowerCase();
  const row = await withTransaction(ctx.db, async (trx) => {
    const locked = await lockRefund(trx, id);
    if (!locked || locked.merchant_id !== merchantId) throw refundNotFound();
    if (ctx.config.payouts === "manual") throw payoutDeskConflict("Refund", locked.status);
    const moves = movesFor(outcome, locked.status);
    if (!moves) {
      throw refundConflict(
        locked.status,
        `Refund is ${locked.status}: the bank cannot report ${outcome} on it`,
      );
    }
    if (moves[0] === "succeedLate") await checkLateSuccess(trx, locked);
    const at = businessNow(ctx.clock, locked.clock_offset_ms);
    let current: RefundRow | undefined = locked;
    for (const move of moves) {
      current = await moveRefund(trx, move, { id, failureReason: SIMULATED_FAILURE_REASON }, at);
      if (!current) throw new Error(`refund ${id} refused ${move} under its lock`);
    }
    return current;
  });
  return refundView(row);
}
