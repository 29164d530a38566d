/**
 * A merchant's PromptPay id, the proxy its payment QR codes pay to: a Thai mobile number (10
 * digits, 06, 08 or 09 after the leading 0), a national or tax id (13 digits whose last is the
 * check digit of the twelve before it) or an e-wallet id (15 digits). `-` and spaces between the
 * digits are accepted and removed, as for bank account numbers. An id no bank can resolve would
 * give every customer a QR code their banking app refuses, so it is refused when it is set.
 */
import { DIGIT_SEPARATOR_CLASS, withoutSeparators } from "../lib/account-number.ts";

export const PROMPTPAY_ID_MESSAGE =
  "must be a mobile number (10 digits starting with 06, 08 or 09), a national or tax id (13 digits " +
  "ending in its check digit) or an e-wallet id (15 digits)";

const SEP = DIGIT_SEPARATOR_CLASS;
/** The shapes alone (the OpenAPI document's pattern); the check digit is `normalizePromptpayId`'s. */
export const PROMPTPAY_ID_PATTERN = `^(?:0${SEP}*[689](?:${SEP}*[0-9]){8}|[0-9](?:${SEP}*[0-9]){12}|[0-9](?:${SEP}*[0-9]){14})$`;

/** The check digit of a Thai national or tax id's first twelve digits (weights 13 down to 2, mod 11). */
function nationalIdCheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i += 1) sum += Number(digits[i]) * (13 - i);
  return (11 - (sum % 11)) % 10;
}

/** The id's digits, or null when it is none of the three kinds. */
export function normalizePromptpayId(input: unknown): string | null {
  if (typeof input !== "string") return null;
  const digits = withoutSeparators(input);
  if (!/^[0-9]+$/.test(digits)) return null;
  if (digits.length === 10) return /^0[689]/.test(digits) ? digits : null;
  if (digits.length === 13) return nationalIdCheckDigit(digits) === Number(digits[12]) ? digits : null;
  return digits.length === 15 ? digits : null;
}
