/**
 * A live collection: a connector takes a PromptPay payment into the operator's own account under
 * a per-payment reference (a bank's bill payment QR with the reference as ref1, a gateway's
 * charge with it in its metadata). When the deployment has live connectors, the composition root passes their
 * router (`PaymentRouter`, providers/routing/router.ts) and the payment is paid there; without
 * one, a PromptPay payment pays the merchant's own PromptPay id (the sandbox).
 */

/** Length of a payment's collection reference: ref1, at most 20 of A-Z 0-9 (CONTRACT 15). */
export const COLLECTION_REFERENCE_LENGTH = 12;
/** What a collection reference can be: the rule of ref1, upper-case A-Z 0-9, 1 to 20 characters. */
export const COLLECTION_REFERENCE_PATTERN = /^[A-Z0-9]{1,20}$/;

/**
 * The live connectors new payments are offered to (providers/routing/router.ts): the router
 * decides which connector takes a payment; this service only records its answer. A payment with a
 * connector's answer is made; without one it is not (docs/providers/routing.md).
 */
export interface PaymentRouter {
  /** Whether a connector (the pinned one, when pinned) collects this method at all. */
  collects(method: "promptpay" | "bank_transfer", pinned: string | null): boolean;
  instruct(
    input: {
      paymentId: string;
      merchantId: string;
      method: "promptpay" | "bank_transfer";
      amountSatang: bigint;
      reference: string;
      expiresAt: Date;
    },
    pinned: string | null,
  ): Promise<
    | {
        status: "instructed";
        connector: string;
        instruction: {
          providerPaymentId: string | null;
          qrPayload: string | null;
          qrImageUrl: string | null;
        };
      }
    | { status: "unavailable" }
  >;
  /** Ends a canceled payment's charge at its connector: null when done (or nothing to end), else why not. */
  revoke?(connector: string, providerPaymentId: string): Promise<string | null>;
  /** The longest one `instruct` can take, every connector tried: how long a replay waits for it. */
  instructBoundMs(): number;
}
