/**
 * Provider callbacks: the one way a provider's report changes a payment or a withdraw. The
 * HTTP callback endpoint (providers/routes.ts) and the sandbox simulate routes both come here
 * with a signed callback, so what a merchant simulates takes exactly the path a bank's report
 * takes.
 *
 * Idempotent: the callback id is recorded in `provider_callbacks` (unique per provider) in the
 * same transaction as the transition it causes. The same callback a second time finds its id
 * taken and changes nothing; it gets the first delivery's result back. Two deliveries racing
 * meet on the unique key: the second waits for the first to commit and then sees the id.
 */
import type { PaymentRow, WithdrawRow } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import { isUuid } from "../lib/ids.ts";
import type { IncomingCallback, Provider, ProviderReport } from "../providers/provider.ts";
import { type Refusal, recordAnomaly } from "./anomalies.ts";
import { applyPaymentReport } from "./payment-transitions.ts";
import { applyPayoutReport, type PayoutReportResult } from "./payout-transitions.ts";
import { findCallback, insertCallbackIfAbsent, setCallbackResult, type Trx } from "./store.ts";

export interface CallbackOutcome {
  callbackId: string;
  /** True when this callback id was processed before; nothing changed this time. */
  duplicate: boolean;
  result: "applied" | "refused";
  reason: string | null;
  /** Why it was refused, for a person; null when applied or when this is a duplicate. */
  message: string | null;
  payment: PaymentRow | undefined;
  withdraw: WithdrawRow | undefined;
}

/** Verifies, parses and applies one callback exactly as it arrived. */
export async function receiveProviderCallback(
  deps: Deps,
  provider: Provider,
  incoming: IncomingCallback,
): Promise<CallbackOutcome> {
  const report = await provider.parseCallback(incoming);
  return applyProviderReport(deps, provider.name, report);
}

/** What a refusal leaves behind, in the callback's transaction. */
async function refused(
  trx: Trx,
  deps: Deps,
  providerName: string,
  report: ProviderReport,
  refusal: Refusal,
): Promise<void> {
  await setCallbackResult(trx, providerName, report.callbackId, "refused", refusal.reason);
  if (!refusal.anomaly) return;
  await recordAnomaly(trx, deps, {
    provider: providerName,
    subjectType: report.subject === "payment" ? "payment" : "withdraw",
    subjectId: report.subject === "payment" ? report.paymentId : report.payoutKey,
    report: `${report.subject}.${report.outcome}`,
    callbackId: report.callbackId,
    refusal,
  });
}

function applyPayout(trx: Trx, deps: Deps, report: Extract<ProviderReport, { subject: "payout" }>) {
  // The payout key is the withdraw id. Anything else cannot name one of our payouts; asking
  // the database with it would only fail on the uuid type.
  if (!isUuid(report.payoutKey)) {
    const unknown: PayoutReportResult = {
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
    return Promise.resolve(unknown);
  }
  return applyPayoutReport(trx, deps, report.payoutKey.toLowerCase(), report.outcome);
}

export async function applyProviderReport(
  deps: Deps,
  providerName: string,
  report: ProviderReport,
): Promise<CallbackOutcome> {
  return deps.db.transaction().execute(async (trx): Promise<CallbackOutcome> => {
    const base = { callbackId: report.callbackId, payment: undefined, withdraw: undefined };
    const fresh = await insertCallbackIfAbsent(trx, {
      provider: providerName,
      callback_id: report.callbackId,
      subject_type: report.subject,
      subject_id: report.subject === "payment" ? report.paymentId : report.payoutKey,
      outcome: report.outcome,
      result: "applied",
      reason: null,
      received_at: deps.clock.now(),
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
    if (report.subject === "payment") {
      const result = await applyPaymentReport(trx, deps, report.paymentId, report.outcome);
      if (result.kind === "applied") {
        return {
          ...base,
          duplicate: false,
          result: "applied",
          reason: null,
          message: null,
          payment: result.payment,
        };
      }
      await refused(trx, deps, providerName, report, result.refusal);
      return {
        ...base,
        duplicate: false,
        result: "refused",
        reason: result.refusal.reason,
        message: result.refusal.message,
        payment: result.payment,
      };
    }
    const result = await applyPayout(trx, deps, report);
    if (result.kind === "applied") {
      return {
        ...base,
        duplicate: false,
        result: "applied",
        reason: null,
        message: null,
        withdraw: result.withdraw,
      };
    }
    await refused(trx, deps, providerName, report, result.refusal);
    return {
      ...base,
      duplicate: false,
      result: "refused",
      reason: result.refusal.reason,
      message: result.refusal.message,
      withdraw: result.withdraw,
    };
  });
}
