/**
 * Collection through SCB: the QR a customer pays, and the rule that decides whether a payment
 * was made. SCB's payment confirmation carries no signature, so its body is only a claim: a
 * payment is taken as made when SCB's own bill payment inquiry, asked with the operator's
 * credentials for the operator's biller id and the payment's ref1, shows the transaction. What
 * this module returns about a payment comes from that answer (transaction id, biller, ref1,
 * amount, paid time), never from the confirmation's body.
 */

import type { Clock } from "../../lib/clock.ts";
import { parseThb } from "../../lib/money.ts";
import { type ScbAnswer, ScbCallError, type ScbClient } from "./client.ts";
import {
  SCB_CONFIRMATION_BODY_MAX_BYTES,
  SCB_EVENT_CODE_QR30,
  SCB_SUCCESS_CODE,
  SCB_TRANSACTION_ID_LENGTH_MAX,
} from "./limits.ts";
import { billPaymentQrPayload, ref3For } from "./qr.ts";
import { isScbReference } from "./references.ts";
import { bangkokDate, bangkokDatesBetween, parseScbTime } from "./time.ts";
import type { BillPaymentRecord, ConfirmationAck, SlipData } from "./types.ts";

export interface ScbCollectionSettings {
  billerId: string;
  ref2: string | null;
  /** SCB_REF3_PREFIX: every QR's ref3 starts with it (SCB routes confirmations by it); null for none. */
  ref3Prefix: string | null;
}

/** A payment as SCB's answer shows it. */
export interface VerifiedPayment {
  transactionId: string;
  billerId: string;
  ref1: string;
  ref2: string | null;
  amountSatang: bigint;
  /** Null when SCB's answer printed no readable time. */
  paidAt: Date | null;
  sendingBankCode: string | null;
}

/** What a confirmation's body claims; used to look the transaction up and to spot forgeries. */
export interface ConfirmationClaim {
  transactionId: string;
  ref1: string;
  amountSatang: bigint | null;
  paidAt: Date;
  billerId: string | null;
}

export type ConfirmationCheck =
  /** SCB shows this transaction for the operator's biller and ref1, as claimed. */
  | { status: "verified"; claim: ConfirmationClaim; payment: VerifiedPayment }
  /** SCB does not show it: forged, or not yet visible. Credits nothing. */
  | { status: "not_found"; claim: ConfirmationClaim; reason: string }
  /** SCB shows the transaction, but not as claimed (amount, biller). Credits nothing. */
  | { status: "mismatch"; claim: ConfirmationClaim; payment: VerifiedPayment; fields: string[] }
  /** SCB could not be asked: decide later. */
  | { status: "unavailable"; claim: ConfirmationClaim; error: string }
  /** The body is not a confirmation at all. */
  | { status: "malformed"; error: string };

export type PaymentSearch =
  | { status: "answered"; payments: VerifiedPayment[] }
  | { status: "unavailable"; error: string };

const TRANSACTION_ID_PATTERN = new RegExp(`^[A-Za-z0-9]{1,${SCB_TRANSACTION_ID_LENGTH_MAX}}$`);

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** An amount SCB printed as a string or a JSON number, in satang; null when not exact. */
export function scbAmount(value: unknown): bigint | null {
  if (typeof value === "number" && Number.isFinite(value)) return parseThb(String(value));
  if (typeof value === "string") return parseThb(value.trim());
  return null;
}

/** The acknowledgment SCB expects once a confirmation was received. */
export function confirmationAck(transactionId: string): ConfirmationAck {
  return { resCode: "00", resDesc: "success", transactionId };
}

/** Reads a confirmation's claim. Nothing in it is believed; it says what to ask SCB. */
export function parseConfirmation(
  rawBody: string,
): { ok: true; claim: ConfirmationClaim } | { ok: false; error: string } {
  if (Buffer.byteLength(rawBody) > SCB_CONFIRMATION_BODY_MAX_BYTES)
    return { ok: false, error: "body too large" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    return { ok: false, error: "body is not JSON" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: "body is not a JSON object" };
  }
  const body = parsed as BillPaymentRecord;
  const transactionId = text(body.transactionId);
  if (!transactionId || !TRANSACTION_ID_PATTERN.test(transactionId)) {
    return { ok: false, error: "transactionId is missing or malformed" };
  }
  const ref1 = text(body.billPaymentRef1);
  if (!ref1) return { ok: false, error: "billPaymentRef1 is missing" };
  const when = text(body.transactionDateandTime);
  const paidAt = when ? parseScbTime(when) : null;
  if (!paidAt) return { ok: false, error: "transactionDateandTime is missing or unreadable" };
  return {
    ok: true,
    claim: {
      transactionId,
      ref1,
      amountSatang: scbAmount(body.amount),
      paidAt,
      billerId: text(body.payeeProxyId),
    },
  };
}

export class ScbCollection {
  constructor(
    private readonly client: ScbClient,
    private readonly settings: ScbCollectionSettings,
    private readonly clock: Clock,
  ) {}

  /** The QR a customer scans to pay `amountSatang` under `ref1`. */
  instruction(input: { ref1: string; amountSatang: bigint }): {
    qrPayload: string;
    ref1: string;
    ref2: string | null;
  } {
    const { billerId, ref2, ref3Prefix } = this.settings;
    const ref3 = ref3For(ref3Prefix, input.ref1);
    return {
      qrPayload: billPaymentQrPayload({
        billerId,
        ref1: input.ref1,
        ref2,
        ref3,
        amountSatang: input.amountSatang,
      }),
      ref1: input.ref1,
      ref2,
    };
  }

  /**
   * Checks a confirmation as it arrived with SCB's bill payment inquiry for the claimed ref1 on
   * the claimed (Bangkok) date, and answers only with what SCB shows.
   */
  async confirmPayment(rawBody: string): Promise<ConfirmationCheck> {
    const parsed = parseConfirmation(rawBody);
    if (!parsed.ok) return { status: "malformed", error: parsed.error };
    const { claim } = parsed;
    if (!isScbReference(claim.ref1)) {
      return {
        status: "not_found",
        claim,
        reason: "billPaymentRef1 cannot be a reference this service issued",
      };
    }
    const search = await this.searchDate(claim.ref1, bangkokDate(claim.paidAt));
    if (search.status === "unavailable") return { status: "unavailable", claim, error: search.error };
    const payment = search.payments.find((p) => p.transactionId === claim.transactionId);
    if (!payment) {
      return {
        status: "not_found",
        claim,
        reason: "SCB's inquiry does not show this transaction for this biller and ref1",
      };
    }
    const fields: string[] = [];
    if (claim.amountSatang !== payment.amountSatang) fields.push("amount");
    if (claim.billerId !== null && claim.billerId !== payment.billerId) fields.push("billerId");
    if (fields.length > 0) return { status: "mismatch", claim, payment, fields };
    return { status: "verified", claim, payment };
  }

  /**
   * Every payment SCB shows for `ref1` on the Bangkok dates from `from` to `to` (reconciliation
   * of a payment whose confirmation never came). A date SCB could not be asked about makes the
   * whole answer unavailable: a partial answer must not read as "not paid".
   */
  async findPayments(input: { ref1: string; from: Date; to?: Date }): Promise<PaymentSearch> {
    if (!isScbReference(input.ref1)) return { status: "answered", payments: [] };
    const byId = new Map<string, VerifiedPayment>();
    for (const date of bangkokDatesBetween(input.from, input.to ?? this.clock.now())) {
      const search = await this.searchDate(input.ref1, date);
      if (search.status === "unavailable") return search;
      for (const payment of search.payments) byId.set(payment.transactionId, payment);
    }
    return { status: "answered", payments: [...byId.values()] };
  }

  /**
   * Slip verification (GET /v1/payment/billpayment/transactions/{transRef}): the transaction
   * behind a payment slip, for the operator's biller only. Null when SCB shows no such
   * transaction for this biller.
   */
  async verifySlip(
    transRef: string,
    sendingBank: string,
  ): Promise<
    { status: "answered"; payment: VerifiedPayment | null } | { status: "unavailable"; error: string }
  > {
    let answer: ScbAnswer<SlipData>;
    try {
      answer = await this.client.slipVerification(transRef, sendingBank);
    } catch (error) {
      return { status: "unavailable", error: (error as Error).message };
    }
    if (unavailableAnswer(answer)) return { status: "unavailable", error: answerText(answer) };
    if (answer.code !== SCB_SUCCESS_CODE || !answer.data) return { status: "answered", payment: null };
    return { status: "answered", payment: this.fromSlip(answer.data) };
  }

  private async searchDate(ref1: string, date: string): Promise<PaymentSearch> {
    let answer: ScbAnswer<BillPaymentRecord[] | BillPaymentRecord>;
    try {
      answer = await this.client.billPaymentInquiry({
        eventCode: SCB_EVENT_CODE_QR30,
        transactionDate: date,
        billerId: this.settings.billerId,
        reference1: ref1,
      });
    } catch (error) {
      return { status: "unavailable", error: error instanceof ScbCallError ? error.message : String(error) };
    }
    if (unavailableAnswer(answer)) return { status: "unavailable", error: answerText(answer) };
    // Any other refusal (SCB documents no code for "nothing paid") shows no payment.
    if (answer.code !== SCB_SUCCESS_CODE || !answer.data) return { status: "answered", payments: [] };
    const rows = Array.isArray(answer.data) ? answer.data : [answer.data];
    const payments = rows
      .map((row) => this.fromInquiryRow(row))
      .filter((p): p is VerifiedPayment => p !== null && p.ref1 === ref1);
    return { status: "answered", payments };
  }

  /**
   * A row of the inquiry SCB answered for the operator's biller id. A row naming another biller
   * or another currency, or without an exact amount, is not a payment to this operator.
   */
  private fromInquiryRow(row: BillPaymentRecord): VerifiedPayment | null {
    if (typeof row !== "object" || row === null) return null;
    const transactionId = text(row.transactionId);
    const ref1 = text(row.billPaymentRef1);
    const amountSatang = scbAmount(row.amount);
    if (!transactionId || !TRANSACTION_ID_PATTERN.test(transactionId) || !ref1 || amountSatang === null)
      return null;
    const biller = text(row.payeeProxyId);
    // The inquiry is asked for this biller id: a row that names one must name it.
    if (biller !== null && biller !== this.settings.billerId) return null;
    const currency = row.currencyCode;
    if (currency !== undefined && currency !== null && String(currency) !== "764") return null;
    const when = text(row.transactionDateandTime);
    return {
      transactionId,
      billerId: this.settings.billerId,
      ref1,
      ref2: text(row.billPaymentRef2),
      amountSatang,
      paidAt: when ? parseScbTime(when) : null,
      sendingBankCode: text(row.sendingBankCode),
    };
  }

  /** The slip's receiver must be the operator's biller id: the slip query does not name it. */
  private fromSlip(data: SlipData): VerifiedPayment | null {
    const transactionId = text(data.transRef);
    const ref1 = text(data.ref1);
    const amountSatang = scbAmount(data.amount);
    const biller = text(data.receiver?.proxy?.value);
    if (!transactionId || !ref1 || amountSatang === null || biller !== this.settings.billerId) return null;
    return {
      transactionId,
      billerId: biller,
      ref1,
      ref2: text(data.ref2),
      amountSatang,
      paidAt: slipTime(text(data.transDate), text(data.transTime)),
      sendingBankCode: text(data.sendingBank),
    };
  }
}

/** No usable word from SCB: a server error, or our own credentials refused after a retry. */
function unavailableAnswer(answer: ScbAnswer<unknown>): boolean {
  return (
    answer.httpStatus >= 500 ||
    answer.httpStatus === 401 ||
    answer.httpStatus === 403 ||
    answer.httpStatus === 429
  );
}

function answerText(answer: ScbAnswer<unknown>): string {
  return `SCB answered HTTP ${answer.httpStatus}, code ${answer.code ?? "none"}: ${answer.description ?? "no description"}`;
}

/** A slip's date ("2026-01-15" or "20260115") and time ("19:00:00"), Bangkok time. */
function slipTime(date: string | null, time: string | null): Date | null {
  if (!date) return null;
  const day = /^\d{8}$/.test(date) ? `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}` : date;
  return parseScbTime(`${day}T${time && /^\d{2}:\d{2}(:\d{2})?$/.test(time) ? time : "00:00:00"}`);
}
