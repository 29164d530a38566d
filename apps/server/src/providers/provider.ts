/**
 * The one interface every payment and payout provider sits behind (CONTRACT 9). The service
 * never talks to a bank in any other way, so a live bank adapter is one more implementation of
 * this file's `Provider`, and the sandbox's bank (a connector of its own) is the first.
 *
 * Rules every implementation follows, because the lifecycle code relies on them:
 * - `sendPayout` is idempotent by `idempotencyKey` (the withdraw id): a second send with the
 *   same key is the same payout, never a new one. The service only sends again after
 *   `getPayout` said the provider has never seen the key.
 * - `sendPayout` may throw or time out; the caller then treats the result as indeterminate and
 *   reconciles later with `getPayout`. It never calls the provider inside a database
 *   transaction.
 *
 * Payments are collected through the connector port (providers/port.ts), not through here. A
 * provider whose signed callbacks report outcomes directly (the sandbox's simulated bank) is a
 * `CallbackSource`: it verifies the signature over the raw body before it trusts a byte of it,
 * and turns its own vocabulary into a `ProviderReport`.
 */
import type { Trx } from "../db/handles.ts";
import type { PaymentMethod } from "../db/types.ts";
import type { PaymentReportOutcome, PayoutReportOutcome } from "../lib/provider-reports.ts";

/** What the sandbox's simulated bank is asked for a payment's instruction. */
export interface PaymentInstructionInput {
  paymentId: string;
  amountSatang: bigint;
  method: PaymentMethod;
  /** The merchant's PromptPay proxy id (promptpay). */
  promptpayId: string | null;
  /** The account the customer transfers to (bank_transfer). */
  collectionAccount: { bankCode: string; accountNumber: string; accountName: string } | null;
  /** The payment's collection reference, for a provider that collects under one (a bank's ref1). */
  reference?: string;
}

/** What the customer is told to do to pay. */
export interface PaymentInstruction {
  providerReference: string;
  /** EMVCo PromptPay payload for a QR code, for promptpay. */
  qrPayload: string | null;
  bankTransfer: { bankCode: string; accountNumber: string; accountName: string } | null;
}

export interface PayoutInput {
  /** The withdraw id: stable across every send and check of this payout. */
  idempotencyKey: string;
  merchantId: string;
  amountSatang: bigint;
  destinationType: "bank_account" | "wallet";
  bankCode: string;
  accountNumber: string;
  accountName: string;
}

/**
 * A payout the provider holds and has not decided. `recheckAfterMs`: when the provider wants to
 * be asked again (instead of the lifecycle's own backoff); `note`: why it is undecided.
 */
interface PayoutTaken {
  status: "accepted";
  providerReference: string;
  recheckAfterMs?: number;
  note?: string;
}

/** A decided payout; a failed one may say why (kept on the payout attempt record). */
type PayoutDecided =
  | { status: "paid"; providerReference: string }
  | { status: "failed"; providerReference: string; reason?: string };

/** The provider's answer to a send: taken (outcome later), already final, or unknown. */
export type SendPayoutResult = PayoutTaken | PayoutDecided | { status: "indeterminate"; error: string };

/** What the provider knows about a payout key when asked. */
export type PayoutLookup = { status: "not_found" } | PayoutTaken | PayoutDecided;

/** The caller's bound of one send or lookup: once aborted, the provider starts nothing more. */
export interface PayoutCallOptions {
  signal?: AbortSignal;
}

/**
 * What the provider can show an operator about a payout it has not decided: where its transfer
 * stands, in the provider's words, and the provider's last answers about it, newest first.
 */
export interface PayoutEvidence {
  transfer: Record<string, unknown> | null;
  lastAnswers: {
    at: Date;
    operation: string;
    httpStatus: number | null;
    answer: unknown;
    error: string | null;
  }[];
}

export type CancelPayoutResult = { status: "canceled" } | { status: "not_cancelable"; reason: string };

/** A verified provider callback in the service's terms. */
export type ProviderReport =
  | { callbackId: string; subject: "payment"; paymentId: string; outcome: PaymentReportOutcome }
  | { callbackId: string; subject: "payout"; payoutKey: string; outcome: PayoutReportOutcome };

/** A provider callback exactly as it arrived: headers and the raw body text. */
export interface IncomingCallback {
  headers: Record<string, string | string[] | number | undefined>;
  rawBody: string;
}

export interface Provider {
  /** Stable name, stored with every payout and callback it handled ("sandbox"). */
  readonly name: string;
  /**
   * Past `options.signal` nothing more may be started for this send: a provider that takes
   * several steps checks it before each, so a send the lifecycle gave up on stops.
   */
  sendPayout(input: PayoutInput, options?: PayoutCallOptions): Promise<SendPayoutResult>;
  getPayout(idempotencyKey: string, options?: PayoutCallOptions): Promise<PayoutLookup>;
  /** What the operator is shown about an undecided payout (CONTRACT 15); optional. */
  payoutEvidence?(idempotencyKey: string): Promise<PayoutEvidence>;
  /**
   * Why the payout may not be resolved `failed` now, or null: a step that may move money (a
   * transfer create, a confirm) was claimed so recently that it may still be on its way to the
   * bank, and its answer decides first. Read in the operator's resolve transaction, after the
   * payout attempt is locked: no new step can be claimed then (providers/payout-fence.ts), so
   * what it reads is the last claim there will be. Absent: nothing is ever in flight.
   */
  moneyInFlight?(trx: Trx, idempotencyKey: string): Promise<string | null>;
  /**
   * What the bank's last answer about the payout says left the account, or null: a transfer the
   * bank showed completed but that the connector could not book (another amount, say). The
   * operator may then not resolve it `failed`: the bank said the money left, and no hold is
   * released against the bank's own word (only `paid`, or the bank's later answer, decides).
   */
  bankShowsPaid?(trx: Trx, idempotencyKey: string): Promise<string | null>;
}

/** A provider whose signed callbacks report payment and payout outcomes (the sandbox's bank). */
export interface CallbackSource {
  /** Stable name, stored with every callback it sent. */
  readonly name: string;
  /**
   * Verifies and parses a callback. A bad signature or a stale timestamp throws
   * INVALID_CREDENTIALS; a well-signed body of the wrong shape throws VALIDATION_ERROR.
   */
  parseCallback(callback: IncomingCallback): Promise<ProviderReport>;
}
