/**
 * What a provider's report does to a payment (docs/lifecycle.md): which transition of
 * transitions.ts it makes, or why it is refused. Provider callbacks and the sandbox's simulated
 * bank both come here (through lifecycle/callbacks.ts), in the callback's transaction.
 *
 * | report     | payment is                     | result                                    |
 * |------------|--------------------------------|-------------------------------------------|
 * | processing | awaiting the customer          | process                                   |
 * | processing | anything else                  | refused (not_awaiting_customer)           |
 * | succeeded  | open                           | succeed                                   |
 * | succeeded  | expired, within 72 h           | confirmLate (unless refused as too late before) |
 * | succeeded  | expired later, canceled, failed | refused and recorded for the operator    |
 * | succeeded  | succeeded                      | refused (already_succeeded)               |
 * | failed     | open                           | fail                                      |
 * | failed     | final                          | refused (already_final)                   |
 *
 * A due payment is expired first (transitions.ts `expireIfDue`), so a report that arrives after
 * `expiresAt` finds the payment expired whether or not the expiry job has run.
 */
import type { Trx } from "../db/handles.ts";
import type { PaymentRow } from "../db/types.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { LATE_CONFIRMATION_WINDOW_MS } from "../lib/limits.ts";
import { type PaymentReportOutcome, type Refusal, unknownSubject } from "../lib/provider-reports.ts";
import { isAwaitingCustomer, isOpen } from "./statuses.ts";
import { LATE_WINDOW_PASSED, lateConfirmationRefusedBefore, lockPayment } from "./store.ts";
import { expireIfDue, moveLockedPayment, type PaymentEventContext } from "./transitions.ts";

type PaymentReportResult =
  | { kind: "applied"; payment: PaymentRow }
  | { kind: "refused"; payment: PaymentRow | undefined; refusal: Refusal };

/** An expired payment may still be confirmed until 72 hours after its `expiresAt`, inclusive. */
export function withinLateConfirmationWindow(row: Pick<PaymentRow, "expires_at">, now: Date): boolean {
  return now.getTime() <= (row.expires_at?.getTime() ?? 0) + LATE_CONFIRMATION_WINDOW_MS;
}

function refuse(row: PaymentRow, reason: string, message: string, anomaly: boolean): PaymentReportResult {
  return {
    kind: "refused",
    payment: row,
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

/** A `succeeded` report on a payment that is not open: a late confirmation, or a refusal. */
async function succeededWhenNotOpen(
  trx: Trx,
  ctx: PaymentEventContext,
  row: PaymentRow,
  now: Date,
): Promise<PaymentReportResult> {
  switch (row.status) {
    case "expired":
      // A confirmation refused as too late stays refused, also after a sandbox clock reset.
      if (withinLateConfirmationWindow(row, now) && !(await lateConfirmationRefusedBefore(trx, row))) {
        return { kind: "applied", payment: await moveLockedPayment(trx, ctx, "confirmLate", row, now) };
      }
      return refuse(
        row,
        LATE_WINDOW_PASSED,
        `Payment expired at ${row.expires_at?.toISOString()}; a confirmation more than 72 hours later is refused and recorded for the operator`,
        true,
      );
    case "canceled":
      return refuse(
        row,
        "payment_canceled",
        "Payment was canceled; its confirmation is refused and recorded for the operator",
        true,
      );
    case "payment_failed":
      return refuse(
        row,
        "payment_failed",
        "Payment has failed; a later confirmation is refused and recorded for the operator",
        true,
      );
    default:
      return refuse(row, "already_succeeded", "Payment has already succeeded", false);
  }
}

/** What one outcome does to a locked payment that is not due for expiry. */
async function applyOutcome(
  trx: Trx,
  ctx: PaymentEventContext,
  row: PaymentRow,
  outcome: PaymentReportOutcome,
  now: Date,
): Promise<PaymentReportResult> {
  if (outcome === "succeeded") {
    if (!isOpen(row.status)) return succeededWhenNotOpen(trx, ctx, row, now);
    return { kind: "applied", payment: await moveLockedPayment(trx, ctx, "succeed", row, now) };
  }
  if (outcome === "failed") {
    if (!isOpen(row.status)) return refuse(row, "already_final", `Payment is already ${row.status}`, false);
    return { kind: "applied", payment: await moveLockedPayment(trx, ctx, "fail", row, now) };
  }
  // processing: the provider has the customer's payment and is clearing it.
  if (!isAwaitingCustomer(row.status)) {
    return refuse(
      row,
      "not_awaiting_customer",
      `Payment is ${row.status}, not waiting for the customer`,
      false,
    );
  }
  return { kind: "applied", payment: await moveLockedPayment(trx, ctx, "process", row, now) };
}

/**
 * Applies what a provider reported about a payment. The payment is locked for the rest of the
 * transaction; a due payment is expired first. Never throws for a refused transition: the
 * caller records refusals (and anomalies) in the same transaction and decides the answer.
 */
export async function applyPaymentReport(
  trx: Trx,
  ctx: PaymentEventContext & { clock: Clock },
  paymentId: string,
  outcome: PaymentReportOutcome,
): Promise<PaymentReportResult> {
  const locked = await lockPayment(trx, paymentId);
  if (!locked) {
    return {
      kind: "refused",
      payment: undefined,
      refusal: unknownSubject("unknown_payment", "No payment has this id"),
    };
  }
  const now = businessNow(ctx.clock, locked.offsetMs);
  const row = await expireIfDue(trx, ctx, locked.row, now);
  return applyOutcome(trx, ctx, row, outcome, now);
}
