/**
 * The Thai QR of a live PromptPay payment: tag 30 (bill payment) for the operator's biller id,
 * ref1 = the payment's short reference, ref2 as configured, the amount, currency 764, country
 * TH and the CRC. Generated locally by `promptparse` to the same EMVCo and Thai QR
 * specification SCB's QR create produces (docs/providers/scb.md says why it is not fetched).
 */
import { billPayment } from "promptparse/generate";
import { billPayment as readBillPayment } from "promptparse/validate";
import { PROMPTPAY_QR_AMOUNT_SATANG_MAX } from "../../lib/limits.ts";
import { formatThb } from "../../lib/money.ts";
import { SCB_BILLER_ID_LENGTH } from "./limits.ts";
import { isScbReference } from "./references.ts";

export interface BillPaymentQrInput {
  billerId: string;
  ref1: string;
  ref2: string | null;
  amountSatang: bigint;
}

export function billPaymentQrPayload(input: BillPaymentQrInput): string {
  if (!new RegExp(`^[0-9]{${SCB_BILLER_ID_LENGTH}}$`).test(input.billerId)) {
    throw new Error("a biller id is 15 digits");
  }
  if (!isScbReference(input.ref1)) throw new Error("ref1 must be 1-20 upper-case letters or digits");
  if (input.ref2 !== null && !isScbReference(input.ref2)) {
    throw new Error("ref2 must be 1-20 upper-case letters or digits");
  }
  if (input.amountSatang <= 0n || input.amountSatang > PROMPTPAY_QR_AMOUNT_SATANG_MAX) {
    throw new Error("the QR amount must be positive and fit tag 54");
  }
  const payload = billPayment({
    billerId: input.billerId,
    ref1: input.ref1,
    ref2: input.ref2 ?? undefined,
    // "10.50" reads back as a double that prints as "10.50" for every amount tag 54 holds.
    amount: Number(formatThb(input.amountSatang)),
  });
  // A QR that names someone else's biller or another reference would send the customer's money
  // where no confirmation can find it: read it back before anyone sees it.
  const check = readBillPayment(payload);
  if (
    check?.billerId !== input.billerId ||
    check.ref1 !== input.ref1 ||
    (check.ref2 ?? null) !== input.ref2
  ) {
    throw new Error("the generated bill payment QR does not read back as built");
  }
  return payload;
}
