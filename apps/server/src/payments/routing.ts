/**
 * A live payment's connector (CONTRACT 15, docs/providers/routing.md). The payment row is
 * inserted first, with its collection reference and no QR, so that its unique keys (idempotency
 * key, reference id, PromptPay reuse slot) decide which of several concurrent creates makes it;
 * only that create asks the router, outside any transaction, and then records the connector's
 * answer (connector, its id of the payment, the QR payload or image) on the row. When no
 * connector takes it, the row is deleted: no payment is made, and the API answers 503
 * SERVICE_UNAVAILABLE with Retry-After.
 *
 * A replay (or a PromptPay reuse) that finds the row still waiting for its connector waits for
 * the creating request's answer, so one Idempotency-Key never instructs twice and every answer
 * shows the same QR.
 */
import type { Db } from "../db/handles.ts";
import type { Merchant, PaymentRow } from "../db/types.ts";
import { AppError } from "../lib/errors.ts";
import { CONNECTOR_UNAVAILABLE_RETRY_AFTER_S } from "../lib/limits.ts";
import type { PaymentRouter } from "./collector.ts";
import { deleteUninstructedPayment, findPayment, recordInstruction } from "./store.ts";

/** How often a replay looks again at a payment still waiting for its connector. */
const INSTRUCTION_POLL_MS = 50;

/** A routed payment inserted and not yet given to a connector: no connector and no QR yet. */
export function awaitsInstruction(row: PaymentRow): boolean {
  return (
    row.provider === null &&
    row.collection_reference !== null &&
    row.qr_payload === null &&
    row.qr_image_url === null
  );
}

export function noConnectorTookIt(): AppError {
  return new AppError(
    "SERVICE_UNAVAILABLE",
    "No payment provider can take this payment now; nothing was created, retry later",
    { retryAfter: CONNECTOR_UNAVAILABLE_RETRY_AFTER_S },
  );
}

/** Gives the just-inserted payment to a connector and records its answer, or deletes the row. */
export async function instructPayment(
  db: Db,
  router: PaymentRouter,
  merchant: Merchant,
  row: PaymentRow,
): Promise<PaymentRow> {
  const reference = row.collection_reference;
  const method = row.payment_method;
  if (reference === null || row.expires_at === null || method === null) {
    throw new Error("a routed payment is inserted with a method, a collection reference and an expiry");
  }
  const routed = await router.instruct(
    {
      paymentId: row.id,
      merchantId: merchant.id,
      method,
      amountSatang: row.amount_satang,
      reference,
      expiresAt: row.expires_at,
    },
    merchant.provider,
  );
  if (routed.status !== "instructed") {
    await deleteUninstructedPayment(db, row.id);
    throw noConnectorTookIt();
  }
  const recorded = await recordInstruction(db, row.id, {
    provider: routed.connector,
    provider_payment_id: routed.instruction.providerPaymentId,
    qr_payload: routed.instruction.qrPayload,
    qr_image_url: routed.instruction.qrImageUrl,
  });
  if (!recorded) throw new Error(`payment ${row.id} left its awaiting state while its creator instructed it`);
  return recorded;
}

/**
 * The payment a replay returns once its creating request has given it to a connector; 503 when
 * that request found none (the row is gone) or never answered within the router's bound.
 */
export async function instructedPayment(
  db: Db,
  router: PaymentRouter,
  merchantId: string,
  id: string,
): Promise<PaymentRow> {
  const deadline = Date.now() + router.instructBoundMs() + 2 * INSTRUCTION_POLL_MS;
  for (;;) {
    const row = await findPayment(db, merchantId, id);
    if (!row) throw noConnectorTookIt();
    if (!awaitsInstruction(row)) return row;
    if (Date.now() > deadline) throw noConnectorTookIt();
    await new Promise((resolve) => setTimeout(resolve, INSTRUCTION_POLL_MS));
  }
}
