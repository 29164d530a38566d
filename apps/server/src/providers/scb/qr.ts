/**
 * The Thai QR of a live PromptPay payment: tag 30 (bill payment) for the operator's biller id,
 * ref1 = the payment's short reference, ref2 as configured, ref3 (tag 62.07) = SCB_REF3_PREFIX
 * followed by ref1 when a prefix is configured, the amount, currency 764, country TH and the
 * CRC. Generated locally by `promptparse` to the same EMVCo and Thai QR specification SCB's QR
 * create produces (docs/providers/scb.md says why it is not fetched, and why ref3).
 */
import { parse } from "promptparse";
import { billPayment } from "promptparse/generate";
import { billPayment as readBillPayment } from "promptparse/validate";
import { PROMPTPAY_QR_AMOUNT_SATANG_MAX } from "../../lib/limits.ts";
import { formatThb, parseThb } from "../../lib/money.ts";
import { SCB_BILLER_ID_LENGTH, SCB_REFERENCE_LENGTH_MAX } from "./limits.ts";
import { isScbReference } from "./references.ts";

/** ISO 4217 numeric code of the Thai baht, tag 53 of a Thai QR. */
const THB_CURRENCY_CODE = "764";
/** Tag 01 of a QR for one payment of one amount ("dynamic"). */
const DYNAMIC_QR = "12";

export interface BillPaymentQrInput {
  billerId: string;
  ref1: string;
  ref2: string | null;
  /** Tag 62.07; null leaves it out. */
  ref3?: string | null;
  amountSatang: bigint;
}

/**
 * ref3 of a QR under `ref1`: SCB's "Reference 3 prefix" followed by ref1, within ref3's 20
 * characters (the prefix, at most 8 characters, always whole; ref1 cut when both do not fit).
 * SCB routes a QR 30 confirmation by biller id and this prefix; the rest is not read by anyone.
 */
export function ref3For(prefix: string | null, ref1: string): string | null {
  return prefix === null ? null : `${prefix}${ref1}`.slice(0, SCB_REFERENCE_LENGTH_MAX);
}

export function billPaymentQrPayload(input: BillPaymentQrInput): string {
  if (!new RegExp(`^[0-9]{${SCB_BILLER_ID_LENGTH}}$`).test(input.billerId)) {
    throw new Error("a biller id is 15 digits");
  }
  if (!isScbReference(input.ref1)) throw new Error("ref1 must be 1-20 upper-case letters or digits");
  if (input.ref2 !== null && !isScbReference(input.ref2)) {
    throw new Error("ref2 must be 1-20 upper-case letters or digits");
  }
  const ref3 = input.ref3 ?? null;
  if (ref3 !== null && !isScbReference(ref3))
    throw new Error("ref3 must be 1-20 upper-case letters or digits");
  if (input.amountSatang <= 0n || input.amountSatang > PROMPTPAY_QR_AMOUNT_SATANG_MAX) {
    throw new Error("the QR amount must be positive and fit tag 54");
  }
  const payload = billPayment({
    billerId: input.billerId,
    ref1: input.ref1,
    ref2: input.ref2 ?? undefined,
    ref3: ref3 ?? undefined,
    // "10.50" reads back as a double that prints as "10.50" for every amount tag 54 holds.
    amount: Number(formatThb(input.amountSatang)),
  });
  checkBillPaymentQr(payload, { ...input, ref3 });
  return payload;
}

/**
 * Reads a built QR back before anyone sees it and throws unless it says exactly what was asked:
 * the biller id and references (a QR naming someone else's biller or another reference sends
 * the customer's money where no confirmation can find it), and the amount and currency (a QR
 * for another amount is paid with an amount the payment refuses). The amount is compared as
 * printed in tag 54, read exactly, never as a floating-point number.
 */
export function checkBillPaymentQr(payload: string, expected: BillPaymentQrInput): void {
  const check = readBillPayment(payload);
  const fields = parse(payload, true);
  const printedAmount = fields?.getTagValue("54");
  const problems: string[] = [];
  if (!check || !fields) problems.push("it is not a valid bill payment QR");
  else {
    if (check.billerId !== expected.billerId) problems.push("another biller id");
    if (check.ref1 !== expected.ref1) problems.push("another ref1");
    if ((check.ref2 ?? null) !== expected.ref2) problems.push("another ref2");
    if ((check.ref3 ?? null) !== (expected.ref3 ?? null)) problems.push("another ref3");
    if (printedAmount === undefined || parseThb(printedAmount) !== expected.amountSatang) {
      problems.push("another amount");
    }
    if (fields.getTagValue("53") !== THB_CURRENCY_CODE) problems.push("another currency than THB");
    if (fields.getTagValue("01") !== DYNAMIC_QR) problems.push("not a one-payment (dynamic) QR");
  }
  if (problems.length > 0) {
    throw new Error(`the generated bill payment QR does not read back as built: ${problems.join(", ")}`);
  }
}
