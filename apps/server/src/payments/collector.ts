/**
 * A live collection: a connector takes a PromptPay payment into the operator's own account under
 * a per-payment reference (a bill payment QR: the operator's biller id and the reference). When the deployment has a connector that collects the method (the composition
 * root passes a `LiveCollection`, lifecycle/connector-choice.ts), the payment is paid there;
 * without one, a PromptPay payment pays the merchant's own PromptPay id (the sandbox).
 */

/** Length of a payment's collection reference: ref1, at most 20 of A-Z 0-9 (CONTRACT 15). */
export const COLLECTION_REFERENCE_LENGTH = 12;
/** What a collection reference can be: the rule of ref1, upper-case A-Z 0-9, 1 to 20 characters. */
export const COLLECTION_REFERENCE_PATTERN = /^[A-Z0-9]{1,20}$/;

import type { PaymentMethod } from "../db/types.ts";

/** What a connector gave a new payment before it is written. */
export interface CollectedPayment {
  /** The new payment's id, which the connector was told. */
  paymentId: string;
  reference: string;
  /** The connector that took it (`payments.provider`). */
  provider: string;
  /** The connector's own id of it, when it has one (`payments.provider_payment_id`). */
  providerPaymentId: string | null;
  qrPayload: string | null;
}

/** Where new live payments go: the deployment's connectors, as the payments service sees them. */
export interface LiveCollection {
  /** Whether a connector takes payments by this method now. */
  takes(method: PaymentMethod): boolean;
  /**
   * A new payment id and collection reference, and what the connector gave it (its QR). Never
   * called inside a database transaction; throws 503 SERVICE_UNAVAILABLE when no connector could
   * take it.
   */
  instruct(input: {
    merchantId: string;
    method: PaymentMethod;
    amountSatang: bigint;
    expiresAt: Date;
  }): Promise<CollectedPayment>;
}
