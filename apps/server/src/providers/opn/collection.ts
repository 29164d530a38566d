/**
 * PromptPay collection through Opn Payments, behind the connector port (providers/port.ts,
 * docs/providers/opn.md).
 *
 * - `instruct` creates one charge per payment with a `promptpay` source, our payment id and
 *   reference in its metadata and an expiry no later than the payment's; the customer is shown
 *   the QR image Opn made (Opn gives the image, not the EMVCo payload).
 * - `readNotice` reads Opn's webhook event as a claim and nothing more. When OPN_WEBHOOK_SECRET
 *   is set, an event without a valid `Omise-Signature` is refused as forged before it is read.
 * - `inquire` and `find` retrieve the charge itself: only a `successful` THB charge carrying
 *   our reference is `verified`.
 *
 * Opn has no counterpart of our `bank_transfer` (a customer pushing money to an account with a
 * reference): its bank methods are redirect flows of the payer's bank. So `methods` is
 * `["promptpay"]` only.
 */
import { createHmac } from "node:crypto";
import { ok } from "../../http/envelope.ts";
import type { Clock } from "../../lib/clock.ts";
import { safeEqual } from "../../lib/crypto.ts";
import type {
  CollectionPort,
  CollectionSearch,
  CollectionVerdict,
  InstructInput,
  Instruction,
  NoticeClaim,
  NoticeReading,
  PaymentToCheck,
  ShownPayment,
} from "../port.ts";
import type { IncomingCallback } from "../provider.ts";
import { type OpnClient, opnAmount, satangOf } from "./client.ts";
import type { OpnCharge, OpnEvent } from "./types.ts";

/** Metadata keys this connector writes on a charge and reads back. */
export const OPN_METADATA_PAYMENT_ID = "satang_payment_id";
export const OPN_METADATA_REFERENCE = "satang_reference";

/** How far an `Omise-Signature-Timestamp` may be from now before the event is refused. */
export const OPN_SIGNATURE_TOLERANCE_MS = 5 * 60_000;

const CHARGE_ID = /^chrg_(test_)?[0-9a-z]+$/;

export interface OpnCollectionSettings {
  /** OPN_WEBHOOK_SECRET (base64), or null: then every event is only a claim. */
  webhookSecret: string | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function header(headers: IncomingCallback["headers"], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) return value[0];
    return value === undefined ? undefined : String(value);
  }
  return undefined;
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== "string") return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}

function metadataText(charge: { metadata?: unknown }, key: string): string | null {
  if (!isObject(charge.metadata)) return null;
  const value = charge.metadata[key];
  return typeof value === "string" ? value : null;
}

/** The QR image of a promptpay charge, when Opn printed one. */
function qrImageOf(charge: OpnCharge): string | null {
  const uri = charge.source?.scannable_code?.image?.download_uri;
  return typeof uri === "string" && uri !== "" ? uri : null;
}

/**
 * Opn's webhook signature: hex HMAC-SHA256, keyed by the base64-decoded secret, over
 * `<Omise-Signature-Timestamp>.<raw body>`; `Omise-Signature` may carry two signatures, comma
 * separated, while a secret is being rolled.
 */
export function opnSignature(secret: string, timestamp: string, rawBody: string): string {
  return createHmac("sha256", Buffer.from(secret, "base64")).update(`${timestamp}.${rawBody}`).digest("hex");
}

export class OpnCollection implements CollectionPort {
  readonly methods = ["promptpay"] as const;

  constructor(
    private readonly client: OpnClient,
    private readonly settings: OpnCollectionSettings,
    /** Real time: the signature's timestamp and a notice's arrival are Opn's time, not a test clock's. */
    private readonly clock: Clock,
  ) {}

  /** Expires a canceled payment's pending charge (`POST /charges/{id}/expire`). */
  async revoke(providerPaymentId: string, signal: AbortSignal): Promise<void> {
    if (!CHARGE_ID.test(providerPaymentId)) throw new Error(`${providerPaymentId} is not an Opn charge id`);
    const answer = await this.client.post<OpnCharge>(`/charges/${providerPaymentId}/expire`, {}, { signal });
    if (answer.ok) return;
    throw new Error(
      answer.kind === "refused"
        ? `Opn did not expire the charge: ${answer.code} (${answer.message})`
        : answer.error,
    );
  }

  async instruct(input: InstructInput): Promise<Instruction> {
    if (input.method !== "promptpay") {
      return { status: "unavailable", error: `Opn collects promptpay only, not ${input.method}` };
    }
    let amount: number;
    try {
      amount = opnAmount(input.amountSatang);
    } catch (error) {
      return { status: "unavailable", error: (error as Error).message };
    }
    const answer = await this.client.post<OpnCharge>(
      "/charges",
      {
        amount,
        currency: "thb",
        source: { type: "promptpay" },
        // Our expiry is the charge's: a customer must never be able to pay Opn for a payment we
        // have already expired. Opn's own default (a day) is longer than any payment of ours.
        expires_at: input.expiresAt.toISOString(),
        metadata: { [OPN_METADATA_PAYMENT_ID]: input.paymentId, [OPN_METADATA_REFERENCE]: input.reference },
      },
      { signal: input.signal, idempotencyKey: `satang-charge-${input.paymentId}` },
    );
    if (!answer.ok) {
      return {
        status: "unavailable",
        error:
          answer.kind === "refused"
            ? `Opn refused the charge: ${answer.code} (${answer.message})`
            : answer.error,
      };
    }
    const charge = answer.body;
    if (typeof charge.id !== "string" || !CHARGE_ID.test(charge.id)) {
      return { status: "unavailable", error: "Opn answered the charge without a charge id" };
    }
    const qrImageUrl = qrImageOf(charge);
    if (qrImageUrl === null) {
      return { status: "unavailable", error: `Opn's charge ${charge.id} has no scannable code` };
    }
    return { status: "instructed", providerPaymentId: charge.id, qrPayload: null, qrImageUrl };
  }

  readNotice(notice: IncomingCallback): NoticeReading {
    // Opn needs only a 2xx; the body is the service's envelope, as every answer is (CONTRACT 0).
    const acknowledgment = ok({ received: true });
    if (this.settings.webhookSecret !== null) {
      const refusal = this.signatureRefusal(notice);
      if (refusal !== null) return { status: "malformed", error: refusal };
    }
    let event: unknown;
    try {
      event = JSON.parse(notice.rawBody);
    } catch {
      return { status: "malformed", error: "the body is not JSON" };
    }
    if (!isObject(event) || event.object !== "event" || typeof event.key !== "string") {
      return { status: "malformed", error: "the body is not an Opn event" };
    }
    const { key, data } = event as unknown as OpnEvent & { key: string };
    if (!key.startsWith("charge.")) {
      return { status: "ignored", reason: `Opn event ${key} is not about a charge`, acknowledgment };
    }
    // Opn sends charge.complete when an offline charge (PromptPay) is decided, whichever way;
    // the other charge events (create, update, ...) say nothing a payment waits for.
    if (key !== "charge.complete") {
      return { status: "ignored", reason: `Opn event ${key} does not complete a charge`, acknowledgment };
    }
    if (
      !isObject(data) ||
      data.object !== "charge" ||
      typeof data.id !== "string" ||
      !CHARGE_ID.test(data.id)
    ) {
      return { status: "malformed", error: "the charge.complete event carries no charge id" };
    }
    const charge = data as unknown as OpnCharge;
    return {
      status: "claim",
      claim: {
        transactionId: charge.id,
        reference: metadataText(charge, OPN_METADATA_REFERENCE),
        amountSatang: satangOf(charge.amount),
        paidAt: dateOf(charge.paid_at) ?? this.clock.now(),
      },
      acknowledgment,
    };
  }

  private signatureRefusal(notice: IncomingCallback): string | null {
    const signatures = header(notice.headers, "omise-signature");
    const timestamp = header(notice.headers, "omise-signature-timestamp");
    if (!signatures || !timestamp) return "forged: the notice is not signed (Omise-Signature)";
    if (!/^[0-9]{1,12}$/.test(timestamp)) return "forged: Omise-Signature-Timestamp is not a Unix time";
    const skew = Math.abs(this.clock.now().getTime() - Number(timestamp) * 1000);
    if (skew > OPN_SIGNATURE_TOLERANCE_MS) return "forged: Omise-Signature-Timestamp is too far from now";
    const expected = opnSignature(this.settings.webhookSecret as string, timestamp, notice.rawBody);
    const matches = signatures.split(",").some((signature) => safeEqual(signature.trim(), expected));
    return matches ? null : "forged: Omise-Signature does not match the body";
  }

  async inquire(claim: NoticeClaim): Promise<CollectionVerdict> {
    if (!CHARGE_ID.test(claim.transactionId)) {
      return { status: "not_found", claim, reason: "not an Opn charge id", retry: false };
    }
    const answer = await this.client.get<OpnCharge>(`/charges/${claim.transactionId}`);
    if (!answer.ok) {
      if (answer.kind === "refused" && answer.code === "not_found") {
        return {
          status: "not_found",
          claim,
          reason: `Opn has no charge ${claim.transactionId}`,
          retry: false,
        };
      }
      return {
        status: "unavailable",
        claim,
        error: answer.kind === "refused" ? `Opn refused the retrieve: ${answer.code}` : answer.error,
      };
    }
    const charge = answer.body;
    if (charge.object !== "charge" || charge.id !== claim.transactionId) {
      return { status: "unavailable", claim, error: "Opn answered the retrieve with another object" };
    }
    const reference = metadataText(charge, OPN_METADATA_REFERENCE);
    const amount = satangOf(charge.amount);
    if (charge.status === "pending") {
      return {
        status: "not_found",
        claim,
        reason: `Opn's charge ${charge.id} is still pending`,
        retry: true,
      };
    }
    const payment: ShownPayment = {
      transactionId: charge.id,
      reference: reference ?? "",
      amountSatang: amount ?? 0n,
      paidAt: dateOf(charge.paid_at),
    };
    const fields: string[] = [];
    const final = charge.status === "failed" || charge.status === "expired" ? charge.status : null;
    if (charge.status !== "successful" && final === null) fields.push("status");
    if (typeof charge.currency !== "string" || charge.currency.toLowerCase() !== "thb")
      fields.push("currency");
    if (reference === null || (claim.reference !== null && reference !== claim.reference))
      fields.push("reference");
    if (amount === null || (claim.amountSatang !== null && amount !== claim.amountSatang))
      fields.push("amount");
    if (fields.length > 0) return { status: "mismatch", claim, payment, fields };
    if (final !== null) {
      const code = typeof charge.failure_code === "string" ? `: ${charge.failure_code}` : "";
      return {
        status: "declined",
        claim,
        payment,
        outcome: final,
        reason: `Opn's charge ${charge.id} is ${final}${code}`,
      };
    }
    return { status: "verified", claim, payment };
  }

  /**
   * Opn keeps one charge per payment, so the payment's own charge is the whole answer: it is
   * retrieved and shown when Opn shows it paid in THB. A payment without a charge id never
   * reached Opn (its charge create was not answered), so Opn shows nothing for it.
   */
  async find(payment: PaymentToCheck, _from: Date, _to: Date): Promise<CollectionSearch> {
    if (payment.providerPaymentId === null) return { status: "answered", payments: [], unreadable: [] };
    const answer = await this.client.get<OpnCharge>(`/charges/${payment.providerPaymentId}`);
    if (!answer.ok) {
      if (answer.kind === "refused" && answer.code === "not_found") {
        return { status: "answered", payments: [], unreadable: [] };
      }
      return {
        status: "unavailable",
        error: answer.kind === "refused" ? `Opn refused: ${answer.code}` : answer.error,
      };
    }
    const charge = answer.body;
    if (charge.status !== "successful") return { status: "answered", payments: [], unreadable: [] };
    const reference = metadataText(charge, OPN_METADATA_REFERENCE);
    const amount = satangOf(charge.amount);
    const thb = typeof charge.currency === "string" && charge.currency.toLowerCase() === "thb";
    if (reference === null || amount === null || !thb) {
      return { status: "answered", payments: [], unreadable: [charge.id] };
    }
    return {
      status: "answered",
      payments: [
        { transactionId: charge.id, reference, amountSatang: amount, paidAt: dateOf(charge.paid_at) },
      ],
      unreadable: [],
    };
  }
}
