/**
 * Provider callbacks: the one way a provider's report changes a payment or a withdraw. The
 * HTTP callback endpoint (callback-routes.ts) and the sandbox simulate routes both come here
 * with a signed callback, so what a merchant simulates takes exactly the path a bank's report
 * takes.
 *
 * Idempotent: the callback id is recorded in `provider_callbacks` (unique per provider) in the
 * same transaction as the transition it causes. The same callback a second time finds its id
 * taken and changes nothing; it gets the first delivery's result back. Two deliveries racing
 * meet on the unique key: the second waits for the first to commit and then sees the id.
 *
 * What a report does to the record is the resource's rule (payments/reports.ts,
 * withdraws/reports.ts); this file records the callback, the refusal and any anomaly.
 */
import { type Trx, withTransaction } from "../db/handles.ts";
import type { PaymentRow, RefundRow, WithdrawRow } from "../db/types.ts";
import { type PayoutSubject, payoutSubjectOfKey } from "../lib/payout-subjects.ts";
import { type Refusal, unknownSubject } from "../lib/provider-reports.ts";
import { applyPaymentReport } from "../payments/reports.ts";
import type { IncomingCallback, ProviderReport } from "../providers/provider.ts";
import type { CallbackSource } from "../providers/sandbox-bank.ts";
import { applyRefundPayoutReport } from "../refunds/reports.ts";
import { applyPayoutReport } from "../withdraws/reports.ts";
import { recordAnomaly } from "./anomalies.ts";
import type { LifecycleContext } from "./context.ts";
import {
  findCallback,
  findPayout,
  insertCallbackIfAbsent,
  setCallbackResult,
  updatePayout,
} from "./store.ts";

interface CallbackOutcome {
  callbackId: string;
  /** True when this callback id was processed before; nothing changed this time. */
  duplicate: boolean;
  result: "applied" | "refused";
  reason: string | null;
  /** Why it was refused, for a person; null when applied or when this is a duplicate. */
  message: string | null;
  payment: PaymentRow | undefined;
  withdraw: WithdrawRow | undefined;
  refund?: RefundRow | undefined;
}

/** Verifies, parses and applies one callback exactly as it arrived. */
export async function receiveProviderCallback(
  ctx: LifecycleContext,
  provider: CallbackSource,
  incoming: IncomingCallback,
): Promise<CallbackOutcome> {
  const report = await provider.parseCallback(incoming);
  return applyProviderReport(ctx, provider.name, report);
}

/** Records a refusal, or an applied report's notice, for the operator when it is an anomaly. */
async function recordIfAnomaly(
  trx: Trx,
  ctx: LifecycleContext,
  providerName: string,
  report: ProviderReport,
  refusal: Refusal,
): Promise<void> {
  if (!refusal.anomaly) return;
  await recordAnomaly(trx, ctx, {
    provider: providerName,
    subjectType:
      report.subject === "payment" ? "payment" : (payoutSubjectOfKey(report.payoutKey)?.kind ?? "withdraw"),
    subjectId:
      report.subject === "payment"
        ? report.paymentId
        : (payoutSubjectOfKey(report.payoutKey)?.id ?? report.payoutKey),
    report: `${report.subject}.${report.outcome}`,
    callbackId: report.callbackId,
    refusal,
  });
}

/**
 * The notice of a transfer the operator resolved `failed` (its attempt `watching`) that the bank
 * then executed after all, however the bank says so (its callback, or the reconciler's
 * inquiry): booked as a late success, and recorded for the operator, whose decision it
 * contradicts (docs/lifecycle.md).
 */
function resolvedFailedThenPaid(subject: PayoutSubject, row: WithdrawRow | RefundRow): Refusal {
  const name = subject.kind === "withdraw" ? "Withdraw" : "Refund";
  return {
    reason: "resolved_failed_then_paid",
    message: `${name} was resolved failed by the operator, but the bank shows the transfer executed: booked as a late success, debited again`,
    anomaly: true,
    merchantId: row.merchant_id,
    subjectStatus: row.status,
    amountSatang: row.amount_satang,
  };
}

/**
 * Closes the payout attempt record, if the subject has one, once its outcome is booked; a paid
 * outcome on an attempt the operator resolved failed answers its notice (the wallet's own
 * notice, an overdrawn one, comes first).
 */
async function completePayout(
  trx: Trx,
  subject: PayoutSubject,
  outcome: "paid" | "failed",
  row: WithdrawRow | RefundRow,
  notice: Refusal | undefined,
): Promise<Refusal | undefined> {
  const payout = await findPayout(trx, subject);
  if (!payout) return notice;
  await updatePayout(trx, subject, { state: "completed", at: row.updated_at });
  if (outcome === "paid" && payout.state === "watching")
    return notice ?? resolvedFailedThenPaid(subject, row);
  return notice;
}

/** A payout report booked on its withdraw or refund: what it did, and the record as it is now. */
export type BookedPayout =
  | { kind: "applied"; withdraw?: WithdrawRow; refund?: RefundRow; notice?: Refusal | undefined }
  | { kind: "refused"; refusal: Refusal; withdraw?: WithdrawRow | undefined; refund?: RefundRow | undefined };

/**
 * Books a provider's answer about a payout: the subject's transition (withdraws/reports.ts or
 * refunds/reports.ts) and, once its outcome is booked, the payout attempt record closed. The
 * payout worker, the reconciler and the operator's resolution book through this too. `reason`
 * is the bank's reason for a failure, kept on a failed refund.
 */
export async function bookPayoutReport(
  trx: Trx,
  ctx: LifecycleContext,
  subject: PayoutSubject,
  outcome: "paid" | "failed",
  reason?: string,
): Promise<BookedPayout> {
  if (subject.kind === "refund") {
    const result = await applyRefundPayoutReport(trx, ctx, subject.id, outcome, reason);
    if (result.kind === "refused") return { kind: "refused", refusal: result.refusal, refund: result.refund };
    const notice = await completePayout(trx, subject, outcome, result.refund, result.notice);
    return { kind: "applied", refund: result.refund, notice };
  }
  const result = await applyPayoutReport(trx, ctx, subject.id, outcome);
  if (result.kind === "refused")
    return { kind: "refused", refusal: result.refusal, withdraw: result.withdraw };
  // The booked move stamped the withdraw with the merchant's business time of the report.
  const notice = await completePayout(trx, subject, outcome, result.withdraw, result.notice);
  return { kind: "applied", withdraw: result.withdraw, notice };
}

function applyPayout(
  trx: Trx,
  ctx: LifecycleContext,
  report: Extract<ProviderReport, { subject: "payout" }>,
): Promise<BookedPayout> {
  // The payout key names a withdraw or a refund (lib/payout-subjects.ts). Anything else cannot
  // name one of our payouts; asking the database with it would only fail on the uuid type.
  const subject = payoutSubjectOfKey(report.payoutKey);
  if (!subject) {
    const refusal = unknownSubject("unknown_payout", "No withdraw or refund has this payout key");
    return Promise.resolve({ kind: "refused", refusal });
  }
  return bookPayoutReport(trx, ctx, subject, report.outcome);
}

/** The report applied to its payment, withdraw or refund: what it did, and the record as it is now. */
type Applied =
  | {
      kind: "applied";
      payment?: PaymentRow;
      withdraw?: WithdrawRow;
      refund?: RefundRow;
      notice?: Refusal | undefined;
    }
  | {
      kind: "refused";
      refusal: Refusal;
      payment?: PaymentRow | undefined;
      withdraw?: WithdrawRow | undefined;
      refund?: RefundRow | undefined;
    };

async function applyReport(trx: Trx, ctx: LifecycleContext, report: ProviderReport): Promise<Applied> {
  if (report.subject === "payment") return applyPaymentReport(trx, ctx, report.paymentId, report.outcome);
  return applyPayout(trx, ctx, report);
}

async function applyProviderReport(
  ctx: LifecycleContext,
  providerName: string,
  report: ProviderReport,
): Promise<CallbackOutcome> {
  return withTransaction(ctx.db, async (trx): Promise<CallbackOutcome> => {
    const base = { callbackId: report.callbackId, payment: undefined, withdraw: undefined };
    const fresh = await insertCallbackIfAbsent(trx, {
      provider: providerName,
      callback_id: report.callbackId,
      subject_type: report.subject,
      subject_id: report.subject === "payment" ? report.paymentId : report.payoutKey,
      outcome: report.outcome,
      result: "applied",
      reason: null,
      received_at: ctx.clock.now(),
    });
    if (!fresh) {
      const seen = await findCallback(trx, providerName, report.callbackId);
      return {
        ...base,
        duplicate: true,
        result: seen?.result ?? "applied",
        reason: seen?.reason ?? null,
        message: null,
      };
    }
    const applied = await applyReport(trx, ctx, report);
    const records = { payment: applied.payment, withdraw: applied.withdraw, refund: applied.refund };
    if (applied.kind === "applied") {
      if (applied.notice) await recordIfAnomaly(trx, ctx, providerName, report, applied.notice);
      return { ...base, ...records, duplicate: false, result: "applied", reason: null, message: null };
    }
    await setCallbackResult(trx, providerName, report.callbackId, "refused", applied.refusal.reason);
    await recordIfAnomaly(trx, ctx, providerName, report, applied.refusal);
    return {
      ...base,
      ...records,
      duplicate: false,
      result: "refused",
      reason: applied.refusal.reason,
      message: applied.refusal.message,
    };
  });
}
