/**
 * Payments after create: the expiry job and sandbox simulation. The transitions themselves are
 * in payments/transitions.ts; provider reports reach them through callbacks.ts.
 */
import { withTransaction } from "../db/handles.ts";
import { atOffset } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { JOB_BATCH_SIZE } from "../lib/limits.ts";
import type { PaymentRecord } from "../payments/schemas.ts";
import { findPayment } from "../payments/store.ts";
import { moveLockedPayment } from "../payments/transitions.ts";
import { paymentView } from "../payments/view.ts";
import { receiveProviderCallback } from "./callbacks.ts";
import { type LifecycleContext, simulatorOf } from "./context.ts";
import { claimDuePayments } from "./store.ts";

export type SimulatedPaymentOutcome = "succeeded" | "failed";

const paymentNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Payment not found");

/** 409 for a simulated report the payment's status does not allow. */
export function reportRefused(
  message: string | null | undefined,
  status: string | null,
  reason: string,
): AppError {
  return new AppError("STATE_CONFLICT", message ?? "The payment cannot make this transition", {
    status,
    reason,
  });
}

/**
 * Sandbox: the simulated bank reports that the customer paid (`succeeded`) or that the payment
 * failed. The report is a signed callback that goes through the same verification,
 * idempotency record and transition code as a provider's callback over HTTP.
 *
 * `succeeded` on an expired payment within 72 h of `expiresAt` is the late confirmation
 * (-> succeeded, payment.received); after 72 h, or on a canceled or failed payment, it is
 * refused with 409 STATE_CONFLICT and recorded for the operator. A payment of another merchant
 * answers 404 like a missing one. Returns the payment as the API shows it.
 *
 * The hosted payment page's sandbox button calls this too.
 */
export async function simulatePayment(
  ctx: LifecycleContext,
  merchantId: string,
  paymentId: string,
  outcome: SimulatedPaymentOutcome,
): Promise<PaymentRecord> {
  if (!isUuid(paymentId)) throw paymentNotFound();
  const id = paymentId.toLowerCase();
  if (!(await findPayment(ctx.db, merchantId, id))) throw paymentNotFound();
  const bank = simulatorOf(ctx);
  const callback = await bank.signCallback(outcome === "succeeded" ? "payment.succeeded" : "payment.failed", {
    paymentId: id,
  });
  const result = await receiveProviderCallback(ctx, bank, callback);
  if (result.result === "refused") {
    // A fresh callback (its id is new) that was refused always says why.
    throw reportRefused(result.message, result.payment?.status ?? null, result.reason ?? "refused");
  }
  if (!result.payment) throw new Error("an applied payment report without its payment");
  return paymentView(result.payment, ctx.config);
}

/**
 * One batch of the expiry job: payments waiting for the customer whose `expiresAt` has come in
 * their merchant's business time become expired, each with its payment.expired event, in one
 * transaction. With `merchantId`, only that merchant's (a sandbox clock advance acting now).
 */
export async function expireDuePayments(ctx: LifecycleContext, merchantId?: string): Promise<number> {
  return withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const claimed = await claimDuePayments(trx, { now, limit: JOB_BATCH_SIZE, merchantId });
    for (const { row, offsetMs } of claimed) {
      await moveLockedPayment(trx, ctx, "expire", row, atOffset(now, offsetMs));
    }
    return claimed.length;
  });
}
