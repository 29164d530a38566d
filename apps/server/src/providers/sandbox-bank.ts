/**
 * What the sandbox drives its bank with (CONTRACT 9): the simulate routes and the
 * hosted page's sandbox button have the bank decide a payout and send a signed callback, which
 * comes back through the same verification and idempotency record as any provider's callback.
 * The bank itself is a connector of its own folder (the registry builds it in sandbox).
 */
import type { PayoutReportOutcome } from "../lib/provider-reports.ts";
import type { IncomingCallback, ProviderReport } from "./provider.ts";

/** A provider whose callbacks carry their own signature: verified, then read into a report. */
export interface CallbackSource {
  /** Stored with every callback it sent (`provider_callbacks.provider`). */
  readonly name: string;
  /**
   * Verifies and parses a callback. A bad signature or a stale timestamp throws
   * INVALID_CREDENTIALS; a well-signed body of the wrong shape throws VALIDATION_ERROR.
   */
  parseCallback(callback: IncomingCallback): Promise<ProviderReport>;
}

/** The callback types the sandbox's bank sends. */
export type SandboxCallbackType =
  | "payment.processing"
  | "payment.succeeded"
  | "payment.failed"
  | "payout.paid"
  | "payout.failed";

/** What a callback's `data` names: a payment (by our id) or a payout (by its key). */
export type SandboxCallbackData =
  | { paymentId: string; transactionId?: string; reference?: string; amountSatang?: string }
  | { payoutKey: string };

export interface SandboxBank extends CallbackSource {
  /** A signed callback as the bank would send it: the exact headers and body text. */
  signCallback(type: SandboxCallbackType, data: SandboxCallbackData, id?: string): Promise<IncomingCallback>;
  /** Signs any body text as the bank would, at the wall clock's time. */
  signBody(rawBody: string): Promise<IncomingCallback>;
  /** The bank decides a payout (booked even when it was never sent: a late confirmation). */
  decidePayout(idempotencyKey: string, outcome: PayoutReportOutcome, amountSatang: bigint): Promise<void>;
}
