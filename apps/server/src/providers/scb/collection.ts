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
  /**
   * SCB does not show it: forged, or not yet visible. Credits nothing. `retry`: asking again may
   * show it (false when the claim cannot be one of ours at all).
   */
  | { status: "not_found"; claim: ConfirmationClaim; reason: string; retry: boolean }
  /** SCB shows the transaction, but not as claimed (amount, biller). Credits nothing. */
  | { status: "mismatch"; claim: ConfirmationClaim; payment: VerifiedPayment; fields: string[] }
  /** SCB could not be asked: decide later. */
  | { status: "unavailable"; claim: ConfirmationClaim; error: string }
  /** The body is not a confirmation at all. */
  | { status: "malformed"; error: string };

export type PaymentSearch =
  /** `unreadable`: why rows of SCB's answer could not be read (each reported, see UnreadableSink). */
  | { status: "answered"; payments: VerifiedPayment[]; unreadable: string[] }
  | { status: "unavailable"; error: string };

/** An answer (or a row of one) SCB gave that the connector could not read. */
export interface UnreadableAnswer {
  operation: "bill_payment_inquiry" | "slip_verification" | "payment_confirmation";
  /** The record of the exchange (scb_exchanges id), when one was kept. */
  exchangeId: string | null;
  reason: string;
}

/** Told of every answer the connector could not read: counted, logged, listed for the operator. */
export type UnreadableSink = (answer: UnreadableAnswer) => void | Promise<void>;

/**
 * Transaction ids are taken as SCB prints them: any printable ASCII without spaces, 1 to 64
 * characters. SCB's pages type them only as "String"; a narrower rule (letters and digits) would
 * turn every payment into "not found" the day SCB's ids carry a dash (docs/providers/scb.md).
 */
const TRANSACTION_ID_PATTERN = new RegExp(`^[\\x21-\\x7E]{1,${SCB_TRANSACTION_ID_LENGTH_MAX}}$`);

/** Without Retry-After, the first wait after a 429, doubled on each one in a row. */
const THROTTLE_WAIT_FIRST_MS = 60_000;
/** The longest wait after 429s without Retry-After, and the longest Retry-After honoured. */
const THROTTLE_WAIT_MAX_MS = 15 * 60_000;

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/**
 * An amount SCB printed as a JSON number or a string ("250.50", "250.5", "1,250.50"), in satang;
 * null when it is not an exact amount of baht with at most two decimals.
 */
export function scbAmount(value: unknown): bigint | null {
  if (typeof value === "number" && Number.isFinite(value)) return parseThb(String(value));
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  const plain = /^[0-9]{1,3}(,[0-9]{3})+(\.[0-9]{1,2})?$/.test(trimmed) ? trimmed.replace(/,/g, "") : trimmed;
  return parseThb(plain);
}

/**
 * Whether a currency SCB printed is the baht: ISO 4217's numeric "764" (SCB's pages: "Thai Baht
 * is '764'"), as a string or a number, or its letters "THB". Absent counts as the baht: the
 * inquiry is asked for a THB biller.
 */
export function isBaht(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (typeof value === "number") return value === 764;
  if (typeof value !== "string") return false;
  const text = value.trim().toUpperCase();
  return text === "764" || text === "THB";
}

/** What one row of an inquiry's answer is. */
type RowReading =
  | { kind: "payment"; payment: VerifiedPayment }
  /** A payment, but not to this operator (another biller, another currency). */
  | { kind: "other" }
  | { kind: "unreadable"; reason: string };

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
  /**
   * Real time before which the inquiry is not called: SCB answered 429 (throttled). Kept by this
   * process's connector, like its access token; each process backs off on its own 429s.
   */
  private throttledUntilMs = 0;
  private throttledInARow = 0;

  constructor(
    private readonly client: ScbClient,
    private readonly settings: ScbCollectionSettings,
    private readonly clock: Clock,
    private readonly onUnreadable: UnreadableSink = () => {},
  ) {}

  /** Until when SCB asked not to be asked (a 429), or null when it may be asked now. */
  throttledUntil(): Date | null {
    return this.clock.now().getTime() < this.throttledUntilMs ? new Date(this.throttledUntilMs) : null;
  }

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
    return this.checkClaim(parsed.claim);
  }

  /** Checks a confirmation's claim (read before, or kept) with SCB's bill payment inquiry. */
  async checkClaim(claim: ConfirmationClaim): Promise<Exclude<ConfirmationCheck, { status: "malformed" }>> {
    if (!isScbReference(claim.ref1)) {
      return {
        status: "not_found",
        claim,
        reason: "billPaymentRef1 cannot be a reference this service issued",
        retry: false,
      };
    }
    const search = await this.searchDate(claim.ref1, bangkokDate(claim.paidAt));
    if (search.status === "unavailable") return { status: "unavailable", claim, error: search.error };
    const payment = search.payments.find((p) => p.transactionId === claim.transactionId);
    if (!payment && search.unreadable.length > 0) {
      // A row SCB showed could not be read: it may be this transaction. Ask again; the row is
      // counted and listed for the operator (never silently "not found").
      return {
        status: "unavailable",
        claim,
        error: `SCB's answer could not be read: ${search.unreadable.join("; ")}`,
      };
    }
    if (!payment) {
      return {
        status: "not_found",
        claim,
        reason: "SCB's inquiry does not show this transaction for this biller and ref1",
        retry: true,
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
    if (!isScbReference(input.ref1)) return { status: "answered", payments: [], unreadable: [] };
    const byId = new Map<string, VerifiedPayment>();
    const unreadable: string[] = [];
    for (const date of bangkokDatesBetween(input.from, input.to ?? this.clock.now())) {
      const search = await this.searchDate(input.ref1, date);
      if (search.status === "unavailable") return search;
      for (const payment of search.payments) byId.set(payment.transactionId, payment);
      unreadable.push(...search.unreadable);
    }
    return { status: "answered", payments: [...byId.values()], unreadable };
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
    const reading = this.fromSlip(answer.data);
    if (reading.kind === "unreadable") {
      await this.unreadable("slip_verification", answer.exchangeId, reading.reason);
      return { status: "unavailable", error: `SCB's answer could not be read: ${reading.reason}` };
    }
    return { status: "answered", payment: reading.kind === "payment" ? reading.payment : null };
  }

  /** Reports an unreadable answer; a sink that fails never changes what SCB's answer meant. */
  private async unreadable(
    operation: UnreadableAnswer["operation"],
    exchangeId: string | null,
    reason: string,
  ): Promise<void> {
    try {
      await this.onUnreadable({ operation, exchangeId, reason });
    } catch {
      // The answer stays unread either way; the record of the exchange still holds its body.
    }
  }

  /** Notes SCB's answer for the throttle: a 429 starts (or lengthens) a wait, anything else ends it. */
  private noteThrottle(answer: ScbAnswer<unknown>): void {
    if (answer.httpStatus !== 429) {
      this.throttledInARow = 0;
      return;
    }
    this.throttledInARow += 1;
    const doubling = THROTTLE_WAIT_FIRST_MS * 2 ** Math.min(this.throttledInARow - 1, 10);
    const wait = Math.min(answer.retryAfterMs ?? doubling, THROTTLE_WAIT_MAX_MS);
    this.throttledUntilMs = Math.max(this.throttledUntilMs, this.clock.now().getTime() + wait);
  }

  private async searchDate(ref1: string, date: string): Promise<PaymentSearch> {
    const waitUntil = this.throttledUntil();
    if (waitUntil) {
      return {
        status: "unavailable",
        error: `SCB throttled the inquiry (HTTP 429); not asked again before ${waitUntil.toISOString()}`,
      };
    }
    let answer: ScbAnswer<BillPaymentRecord[] | BillPaymentRecord>;
    try {
      answer = await this.client.billPaymentInquiry({
        eventCode: SCB_EVENT_CODE_QR30,
        transactionDate: date,
        billerId: this.settings.billerId,
        reference1: ref1,
      });
    } catch (error) {
      if (error instanceof ScbCallError && error.kind === "malformed")
        await this.unreadable("bill_payment_inquiry", error.exchangeId, error.message);
      return { status: "unavailable", error: error instanceof ScbCallError ? error.message : String(error) };
    }
    this.noteThrottle(answer);
    if (unavailableAnswer(answer)) return { status: "unavailable", error: answerText(answer) };
    // Any other refusal (SCB documents no code for "nothing paid") shows no payment.
    if (answer.code !== SCB_SUCCESS_CODE || answer.data === undefined || answer.data === null)
      return { status: "answered", payments: [], unreadable: [] };
    if (typeof answer.data !== "object") {
      const reason = "data is neither a transaction nor a list of transactions";
      await this.unreadable("bill_payment_inquiry", answer.exchangeId, reason);
      return { status: "answered", payments: [], unreadable: [reason] };
    }
    const rows = Array.isArray(answer.data) ? answer.data : [answer.data];
    const payments: VerifiedPayment[] = [];
    const unreadable: string[] = [];
    rows.forEach((row, index) => {
      const reading = this.fromInquiryRow(row);
      if (reading.kind === "unreadable") unreadable.push(`row ${index + 1}: ${reading.reason}`);
      else if (reading.kind === "payment" && reading.payment.ref1 === ref1) payments.push(reading.payment);
    });
    if (unreadable.length > 0)
      await this.unreadable("bill_payment_inquiry", answer.exchangeId, unreadable.join("; ").slice(0, 500));
    return { status: "answered", payments, unreadable };
  }

  /**
   * A row of the inquiry SCB answered for the operator's biller id. A row naming another biller
   * or another currency is not a payment to this operator; a row without a readable transaction
   * id, ref1, exact amount or (when printed) time is one the connector could not read.
   */
  private fromInquiryRow(row: BillPaymentRecord): RowReading {
    if (typeof row !== "object" || row === null || Array.isArray(row))
      return { kind: "unreadable", reason: "not an object" };
    const transactionId = text(row.transactionId);
    if (!transactionId || !TRANSACTION_ID_PATTERN.test(transactionId))
      return { kind: "unreadable", reason: "transactionId is missing or unreadable" };
    const biller = text(row.payeeProxyId);
    // The inquiry is asked for this biller id: a row that names one must name it.
    if (biller !== null && biller !== this.settings.billerId) return { kind: "other" };
    if (!isBaht(row.currencyCode)) return { kind: "other" };
    const ref1 = text(row.billPaymentRef1);
    if (!ref1) return { kind: "unreadable", reason: `${transactionId}: billPaymentRef1 is missing` };
    const amountSatang = scbAmount(row.amount);
    if (amountSatang === null)
      return { kind: "unreadable", reason: `${transactionId}: amount is unreadable` };
    const when = text(row.transactionDateandTime);
    const paidAt = when ? parseScbTime(when) : null;
    if (when && !paidAt)
      return { kind: "unreadable", reason: `${transactionId}: transactionDateandTime is unreadable` };
    return {
      kind: "payment",
      payment: {
        transactionId,
        billerId: this.settings.billerId,
        ref1,
        ref2: text(row.billPaymentRef2),
        amountSatang,
        paidAt,
        sendingBankCode: text(row.sendingBankCode),
      },
    };
  }

  /** The slip's receiver must be the operator's biller id: the slip query does not name it. */
  private fromSlip(data: SlipData): RowReading {
    const biller = text(data.receiver?.proxy?.value);
    if (biller !== this.settings.billerId) return { kind: "other" };
    const transactionId = text(data.transRef);
    const ref1 = text(data.ref1);
    const amountSatang = scbAmount(data.amount);
    if (!transactionId || !ref1 || amountSatang === null)
      return { kind: "unreadable", reason: "transRef, ref1 or amount is missing or unreadable" };
    return {
      kind: "payment",
      payment: {
        transactionId,
        billerId: biller,
        ref1,
        ref2: text(data.ref2),
        amountSatang,
        paidAt: slipTime(text(data.transDate), text(data.transTime)),
        sendingBankCode: text(data.sendingBank),
      },
    };
  }
}

/** No usable word from SCB: a server error, a throttle, or our own credentials refused after a retry. */
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
