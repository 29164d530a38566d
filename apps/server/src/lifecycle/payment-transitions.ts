/**
 * The payment state machine after create (docs/lifecycle.md), one transition per function, each
 * run inside the caller's transaction with the payment row locked, and each writing its event
 * (and ledger posting) in that same transaction:
 *
 * | from                                   | report / trigger          | to             | also                                 |
 * |----------------------------------------|---------------------------|----------------|--------------------------------------|
 * | requires_action (awaiting the customer) | provider: processing      | processing     | confirmedAt                          |
 * | any open status                        | provider: succeeded       | succeeded      | confirmedAt, capturedAt, settlement pending, payment.received |
 * | any open status                        | provider: failed          | payment_failed | payment.failed                       |
 * | awaiting the customer                  | expiresAt reached         | expired        | payment.expired                      |
 * | expired                                | succeeded within 72 h     | succeeded      | as succeeded (late confirmation)     |
 *
 * A payment expires at `expiresAt` and not a millisecond before: it is due when
 * `expires_at <= business now`. Every path that acts on a payment checks that first with the
 * same rule as the expiry job (`expireIfDue`), so a report arriving after `expiresAt` but before
 * the job ran sees the payment expired, exactly as if the job had been quicker. A payment the
 * provider is already processing does not expire: the customer has paid and the money is on
 * its way.
 */
import type { PaymentRow, PaymentStatus } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import { recordEvent } from "../events/outbox.ts";
import { postPaymentSucceeded } from "../ledger/postings.ts";
import { businessNow } from "../lib/clock.ts";
import { LATE_CONFIRMATION_WINDOW_MS } from "../lib/limits.ts";
import { OPEN_PAYMENT_STATUSES } from "../payments/store.ts";
import { paymentView } from "../payments/view.ts";
import type { PaymentReportOutcome } from "../providers/provider.ts";
import type { Refusal } from "./anomalies.ts";
import type { Trx } from "./store.ts";
import { AWAITING_CUSTOMER_STATUSES, lockPayment, updatePayment } from "./store.ts";

export type PaymentReportResult =
  | { kind: "applied"; payment: PaymentRow }
  | { kind: "refused"; payment: PaymentRow | undefined; refusal: Refusal };

const awaiting = (status: PaymentStatus) =>
  (AWAITING_CUSTOMER_STATUSES as readonly string[]).includes(status);

/** The one expiry rule: waiting for the customer, and `expiresAt` has come. */
export function isExpiryDue(row: PaymentRow, now: Date): boolean {
  return awaiting(row.status) && row.expires_at !== null && row.expires_at.getTime() <= now.getTime();
}

async function emit(
  trx: Trx,
  deps: Deps,
  row: PaymentRow,
  type: "payment.received" | "payment.failed" | "payment.expired" | "payment.canceled",
  at: Date,
): Promise<void> {
  await recordEvent(trx, {
    merchantId: row.merchant_id,
    type,
    objectType: "payment",
    object: paymentView(row, deps.config),
    occurredAt: at,
  });
}

/** Expires a locked payment that waits for the customer; the caller has checked it is due. */
export async function expirePayment(trx: Trx, deps: Deps, row: PaymentRow, now: Date): Promise<PaymentRow> {
  const expired = await updatePayment(trx, row.id, { status: "expired", updated_at: now });
  await emit(trx, deps, expired, "payment.expired", now);
  return expired;
}

/** Applies the expiry rule to a locked payment: the payment as it is after that. */
export async function expireIfDue(trx: Trx, deps: Deps, row: PaymentRow, now: Date): Promise<PaymentRow> {
  return isExpiryDue(row, now) ? expirePayment(trx, deps, row, now) : row;
}

/**
 * Locks the merchant's payment and expires it if due. Used before a merchant's own action (a
 * cancel), so that action sees the same state the expiry job would have left.
 */
export async function expirePaymentIfDue(
  trx: Trx,
  deps: Deps,
  merchantId: string,
  paymentId: string,
): Promise<void> {
  const locked = await lockPayment(trx, paymentId);
  if (!locked || locked.row.merchant_id !== merchantId) return;
  await expireIfDue(trx, deps, locked.row, businessNow(deps.clock, locked.offsetMs));
}

async function succeed(trx: Trx, deps: Deps, row: PaymentRow, now: Date): Promise<PaymentRow> {
  const succeeded = await updatePayment(trx, row.id, {
    status: "succeeded",
    confirmed_at: row.confirmed_at ?? now,
    captured_at: now,
    updated_at: now,
  });
  await postPaymentSucceeded(trx, {
    merchantId: row.merchant_id,
    paymentId: row.id,
    amountSatang: row.amount_satang,
    at: now,
  });
  await emit(trx, deps, succeeded, "payment.received", now);
  return succeeded;
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

async function succeededReport(
  trx: Trx,
  deps: Deps,
  row: PaymentRow,
  now: Date,
): Promise<PaymentReportResult> {
  const open = OPEN_PAYMENT_STATUSES.includes(row.status);
  if (open) return { kind: "applied", payment: await succeed(trx, deps, row, now) };
  switch (row.status) {
    case "expired": {
      const deadline = (row.expires_at?.getTime() ?? 0) + LATE_CONFIRMATION_WINDOW_MS;
      if (now.getTime() <= deadline) {
        return { kind: "applied", payment: await succeed(trx, deps, row, now) };
      }
      return refuse(
        row,
        "late_confirmation_window_passed",
        `Payment expired at ${row.expires_at?.toISOString()}; a confirmation more than 72 hours later is refused and recorded for the operator`,
        true,
      );
    }
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

/**
 * Applies what a provider reported about a payment. The payment is locked for the rest of the
 * transaction; a due payment is expired first. Never throws for a refused transition: the
 * caller records refusals (and anomalies) in the same transaction and decides the answer.
 */
export async function applyPaymentReport(
  trx: Trx,
  deps: Deps,
  paymentId: string,
  outcome: PaymentReportOutcome,
): Promise<PaymentReportResult> {
  const locked = await lockPayment(trx, paymentId);
  if (!locked) {
    return {
      kind: "refused",
      payment: undefined,
      refusal: {
        reason: "unknown_payment",
        message: "No payment has this id",
        anomaly: true,
        merchantId: null,
        subjectStatus: null,
        amountSatang: null,
      },
    };
  }
  const now = businessNow(deps.clock, locked.offsetMs);
  const row = await expireIfDue(trx, deps, locked.row, now);

  if (outcome === "succeeded") return succeededReport(trx, deps, row, now);
  if (outcome === "failed") {
    if (!OPEN_PAYMENT_STATUSES.includes(row.status)) {
      return refuse(row, "already_final", `Payment is already ${row.status}`, false);
    }
    const failed = await updatePayment(trx, row.id, { status: "payment_failed", updated_at: now });
    await emit(trx, deps, failed, "payment.failed", now);
    return { kind: "applied", payment: failed };
  }
  // processing: the provider has the customer's payment and is clearing it.
  if (!awaiting(row.status)) {
    return refuse(
      row,
      "not_awaiting_customer",
      `Payment is ${row.status}, not waiting for the customer`,
      false,
    );
  }
  const processing = await updatePayment(trx, row.id, {
    status: "processing",
    confirmed_at: now,
    updated_at: now,
  });
  return { kind: "applied", payment: processing };
}

/** The payment.canceled event of a cancel, written by payments/service.ts in its transaction. */
export function recordPaymentCanceled(trx: Trx, deps: Deps, row: PaymentRow, at: Date): Promise<void> {
  return emit(trx, deps, row, "payment.canceled", at);
}
