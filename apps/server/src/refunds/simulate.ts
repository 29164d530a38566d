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
import { takenByPayoutDesk } from "../db/payout-desk-items.ts";
import type { RefundRow } from "../db/types.ts";
import { businessNow } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { payoutDeskConflict } from "../lib/payout-desk-conflict.ts";
import type { Refusal } from "../lib/provider-reports.ts";
import { applyRefundPayoutReport } from "./reports.ts";
import type { RefundRecord, SimulatedRefundOutcome } from "./schemas.ts";
import { type RefundContext, refundNotFound, refundWalletInactive } from "./service.ts";
import { lockRefund } from "./store.ts";
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
 * The simulated bank's late success, booked as a bank's report of it is (refunds/reports.ts):
 * applied when the payment still has the amount left (below zero if the wallet was spent
 * meanwhile), else refused; the refusal, or the overdrawn wallet, is recorded for the operator
 * as an anomaly in the same transaction. Answers the refund, or the refusal to answer 409 with.
 */
async function lateSuccess(
  trx: Trx,
  ctx: SimulateRefundContext,
  id: string,
): Promise<RefundRow | { refused: Refusal }> {
  const report = await applyRefundPayoutReport(trx, ctx, id, "paid");
  const flagged = report.kind === "refused" ? report.refusal : report.notice;
  if (flagged?.anomaly) await ctx.recordLateSuccessAnomaly(trx, id, flagged);
  if (report.kind === "refused") return { refused: report.refusal };
  return report.refund;
}

/**
 * What the simulate route needs beyond the refunds' own context: the payout mode, and how an
 * anomaly of the simulated bank's late success is recorded (lifecycle/anomalies.ts, given by
 * the sandbox's routes, so this resource module does not reach into the lifecycle).
 */
export type SimulateRefundContext = RefundContext & {
  config: Pick<Config, "payouts">;
  recordLateSuccessAnomaly: (trx: Trx, refundId: string, refusal: Refusal) => Promise<void>;
};

export async function simulateRefund(
  ctx: SimulateRefundContext,
  merchantId: string,
  refundId: string,
  outcome: SimulatedRefundOutcome,
): Promise<RefundRecord> {
  if (!isUuid(refundId)) throw refundNotFound();
  const id = refundId.toLowerCase();
  const row = await withTransaction(ctx.db, async (trx) => {
    const locked = await lockRefund(trx, id);
    if (!locked || locked.merchant_id !== merchantId) throw refundNotFound();
    const inBatch = await takenByPayoutDesk(trx, { refundId: id });
    if (ctx.config.payouts === "manual" || inBatch)
      throw payoutDeskConflict("Refund", locked.status, inBatch);
    const moves = movesFor(outcome, locked.status);
    if (!moves) {
      throw refundConflict(
        locked.status,
        `Refund is ${locked.status}: the bank cannot report ${outcome} on it`,
      );
    }
    // A frozen or closed wallet pays nothing out: its pending refund is not handed to the
    // simulated bank either, as the dispatcher and the payout desk leave it (lifecycle/store.ts).
    if (moves[0] === "dispatch" && (locked.wallet_status === "frozen" || locked.wallet_status === "closed"))
      throw refundWalletInactive(locked.wallet_status);
    if (moves[0] === "succeedLate") return lateSuccess(trx, ctx, id);
    const at = businessNow(ctx.clock, locked.clock_offset_ms);
    let current: RefundRow | undefined = locked;
    for (const move of moves) {
      current = await moveRefund(trx, move, { id, failureReason: SIMULATED_FAILURE_REASON }, at);
      if (!current) throw new Error(`refund ${id} refused ${move} under its lock`);
    }
    return current;
  });
  // A refused late success is recorded (committed) and answered 409.
  if ("refused" in row) {
    const { subjectStatus, message, reason } = row.refused;
    throw refundConflict(subjectStatus ?? "failed", message, reason);
  }
  return refundView(row);
}
