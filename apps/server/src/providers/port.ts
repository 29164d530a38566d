/**
 * The port every connector plugs into (CONTRACT 15, docs/providers/README.md). A connector is one
 * folder `providers/<name>/`: its client, its request/response mapping, its tables and its
 * simulator. It answers with verdicts and never acts on them: the lifecycle (one collections
 * flow, one payouts flow) decides what a verdict does to a payment or a payout, the same way for
 * every connector.
 *
 * Capabilities are optional: a connector that only collects has no `payouts`, one that cannot
 * search a day has no `search` (the reconciler then asks about each open payment with `inquire`).
 *
 * Rules every connector follows, because the lifecycle relies on them:
 * - Nothing a notification says is trusted: `readNotice` only turns the bytes that arrived into
 *   a claim; only `inquire` (the connector asking its own API) can answer `verified`.
 * - `verified` means the provider shows the transaction as paid, for this payment's reference,
 *   with `amountSatang` and THB; anything else the provider shows is `mismatch` with the fields
 *   that differ; a provider that could not be asked is `unavailable` (ask again later), never
 *   `not_found`.
 * - `transactionId` is the provider's id of one payment: one id credits once, whatever number
 *   of notifications carry it.
 * - Payouts: see providers/provider.ts (`Provider`): a send is idempotent by its key, may be
 *   indeterminate, and is never made inside a database transaction.
 */
import type { Db } from "../db/handles.ts";
import type { PaymentMethod } from "../db/types.ts";
import type { IncomingCallback, Provider } from "./provider.ts";

/** What a new payment is given by its connector (`instruct`). */
export interface InstructInput {
  paymentId: string;
  merchantId: string;
  method: PaymentMethod;
  amountSatang: bigint;
  /** The payment's collection reference (A-Z 0-9, at most 20): a bank's ref1, a gateway's metadata. */
  reference: string;
  /** When the payment expires (interface.md); a provider-side charge should not outlive it. */
  expiresAt: Date;
  /** The caller's bound: once aborted, the connector starts nothing more. */
  signal?: AbortSignal;
  /**
   * Where the customer's money goes when a connector takes payments straight to the merchant
   * (the sandbox's bank pays the merchant's own PromptPay id or collection account).
   * Connectors that collect into the operator's account ignore it.
   */
  payee?: Payee;
}

/** The merchant's own receiving details, as the merchant record holds them. */
export interface Payee {
  promptpayId: string | null;
  collectionAccount: { bankCode: string; accountNumber: string; accountName: string } | null;
}

/** What the customer is shown to pay. */
export type Instruction =
  | {
      status: "instructed";
      /** The provider's own id of this payment (a gateway's charge id), or null when it has none. */
      providerPaymentId: string | null;
      /** The EMVCo payload of the QR the customer scans, when the connector knows it. */
      qrPayload: string | null;
      /** A QR image the provider made (a gateway's scannable code), when the payload is not given. */
      qrImageUrl: string | null;
    }
  /** The provider could not be asked or refused: the router tries the next connector. */
  | { status: "unavailable"; error: string };

/** What a notification's body claims; used to look the payment up and to spot forgeries. */
export interface NoticeClaim {
  /** The provider's transaction id (a bank's transaction id, a gateway's charge id). */
  transactionId: string;
  /** The payment's collection reference the notice names, or null when it names none. */
  reference: string | null;
  /** The claimed amount, or null when the notice names none. */
  amountSatang: bigint | null;
  /** When the notice says the customer paid (or when it arrived, when it does not say). */
  paidAt: Date;
  /** Whom the notice says was paid (a biller id), when it says; `inquire` compares it. */
  payee?: string | null;
}

export type NoticeReading =
  | {
      status: "claim";
      claim: NoticeClaim;
      /** The body the provider expects as the answer (a bank's acknowledgment). */
      acknowledgment: unknown;
    }
  /** The notice is about something that is not a payment (a gateway's transfer events). */
  | { status: "ignored"; reason: string; acknowledgment: unknown }
  | { status: "malformed"; error: string };

/** A payment as the provider's own API shows it. */
export interface ShownPayment {
  transactionId: string;
  reference: string;
  amountSatang: bigint;
  /** Null when the provider printed no readable time. */
  paidAt: Date | null;
}

export type CollectionVerdict =
  | { status: "verified"; claim: NoticeClaim; payment: ShownPayment }
  /** `retry`: asking again may show it (false when the claim cannot be one of ours at all). */
  | { status: "not_found"; claim: NoticeClaim; reason: string; retry: boolean }
  | { status: "mismatch"; claim: NoticeClaim; payment: ShownPayment; fields: string[] }
  /**
   * The provider shows this payment's transaction (its reference, amount and THB) as never to be
   * paid: `failed` (the provider refused it: the payment fails) or `expired` (the customer did
   * not pay in time: the payment expires by its own `expiresAt`, nothing is done).
   */
  | {
      status: "declined";
      claim: NoticeClaim;
      payment: ShownPayment;
      outcome: "failed" | "expired";
      reason: string;
    }
  | { status: "unavailable"; claim: NoticeClaim; error: string }
  | { status: "malformed"; error: string };

export type CollectionSearch =
  | { status: "answered"; payments: ShownPayment[]; unreadable: string[] }
  | { status: "unavailable"; error: string };

/** A payment the reconciler asks about: what the service knows of it. */
export interface PaymentToCheck {
  paymentId: string;
  reference: string;
  amountSatang: bigint;
  providerPaymentId: string | null;
  createdAt: Date;
}

/** How the lifecycle came to see a transaction the provider showed. */
export type ShownBy = "confirmation" | "reconciler" | "sweep";

/** What the lifecycle did with one transaction the provider showed (`keepShown`). */
export interface ShownOutcome {
  payment: ShownPayment;
  /** Our payment under its reference, or null when none has it. */
  paymentId: string | null;
  /** `applied`, or the reason nothing was credited. */
  result: string;
  seenBy: ShownBy;
  /** Business time of the decision. */
  at: Date;
  /** Real time, for a provider's own dates. */
  realNow: Date;
}

export interface CollectionPort {
  /** The payment methods this connector can collect. */
  readonly methods: readonly PaymentMethod[];
  instruct(input: InstructInput): Promise<Instruction>;
  /** Reads a notification as it arrived (headers and raw body); trusts nothing in it. */
  readNotice(notice: IncomingCallback): NoticeReading | Promise<NoticeReading>;
  /** Asks the provider about a claim: the only way to a `verified` verdict. */
  inquire(claim: NoticeClaim): Promise<CollectionVerdict>;
  /** Every payment the provider shows for one payment since `from` (a lost notice). */
  find(payment: PaymentToCheck, from: Date, to: Date): Promise<CollectionSearch>;
  /**
   * True when its notices can be lost unseen and its `find` answers for one Bangkok date: the
   * daily sweep (lifecycle/collections-sweep.ts) then asks about every reference of the week on
   * each ended date. Absent: the reconciler's questions are enough.
   */
  readonly sweepsDaily?: boolean;
  /** Until when the provider asked not to be asked (a 429), or null; absent: never throttles. */
  throttledUntil?(): Date | null;
  /**
   * Keeps what became of a transaction the provider showed, in the connector's own table (its
   * day's figures), inside the lifecycle's transaction; absent: the connector keeps none.
   */
  keepShown?(db: Db, outcome: ShownOutcome): Promise<void>;
  /**
   * Ends a canceled payment's charge at the provider, so that the customer can no longer pay it.
   * Throws when the provider did not end it; the cancel stands either way. Absent: there is no
   * charge to end (a bill payment QR names the biller and a reference, which any bank app can pay).
   */
  revoke?(providerPaymentId: string, signal: AbortSignal): Promise<void>;
}

/** A notice as it arrived on the connector's route, with the answer the service gave it. */
export interface AnsweredNotice extends IncomingCallback {
  /** Real time the notice arrived. */
  startedAt: Date;
  durationMs: number;
  answer: { status: number; body: unknown; error: string | null };
}

/** A connector as the registry holds it. */
export interface Connector {
  /** Its name in SATANG_PROVIDER and in `/providers/{name}/confirmations/{token}`. */
  readonly name: string;
  /** The secret path segment of its notifications; undefined when it takes none. */
  readonly callbackToken: string | undefined;
  readonly collection: CollectionPort | undefined;
  /**
   * Where new payouts go: undefined when it does not pay out, when another connector takes the
   * payouts (SATANG_PAYOUT_PROVIDER) or when they go to the manual desk.
   */
  readonly payouts: Provider | undefined;
  /**
   * The payouts this connector holds already, whoever takes new ones: asked about, sent again
   * with the same key only after the bank said it never saw it, fenced and shown to the operator
   * by this connector (a transfer already sent stays with the connector that sent it, CONTRACT
   * 15). Undefined when it cannot pay out at all (a bank connector without its payer settings).
   */
  readonly heldPayouts?: Provider | undefined;
  /**
   * Keeps each notice that came with the right token, with its answer, for the operator (a bank's
   * recorded inbound exchanges); optional. A failure to keep it never changes the answer.
   */
  recordNotice?(notice: AnsweredNotice): Promise<void>;
}

/**
 * A background job a connector keeps for its own tables (the job runner's `Job` shape: claims a
 * batch, says how many items it handled).
 */
export interface ConnectorJob<C> {
  name: string;
  /** Pause between runs when the previous run found nothing to do. */
  intervalMs: number;
  runOnce(ctx: C): Promise<number>;
}
