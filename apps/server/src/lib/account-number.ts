import { ACCOUNT_NUMBER_DIGITS_MAX, ACCOUNT_NUMBER_DIGITS_MIN } from "./limits.ts";

/**
 * The separators account numbers and PromptPay ids may carry between their digits: `-` and
 * spaces (Unicode's space separators: the ASCII space, the no-break space, the thin spaces).
 * Tabs, line breaks and other control characters are not spaces: an account number holding one
 * is refused, not read as its digits. As a character class for the request schemas' patterns
 * (Unicode's space separators named one by one rather than as `\p{Zs}`, which not every regular
 * expression engine reading the OpenAPI document knows), and as a global expression that
 * removes them.
 */
export const DIGIT_SEPARATOR_CLASS = "[- \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000]";
const DIGIT_SEPARATORS = new RegExp(DIGIT_SEPARATOR_CLASS, "g");

/** The digits of an account number or PromptPay id as given: its separators removed. */
export function withoutSeparators(input: string): string {
  return input.replace(DIGIT_SEPARATORS, "");
}

/**
 * Bank account numbers: digits only once `-` and spaces are removed, 10 to 15 digits.
 * Returns the normalized digits, or null when the input is not an account number.
 */
export function normalizeAccountNumber(input: unknown): string | null {
  if (typeof input !== "string") return null;
  const digits = withoutSeparators(input);
  if (!/^[0-9]+$/.test(digits)) return null;
  if (digits.length < ACCOUNT_NUMBER_DIGITS_MIN || digits.length > ACCOUNT_NUMBER_DIGITS_MAX) return null;
  return digits;
}

/** Masks every digit but the last four, keeping the length: "1234567890" -> "******7890". */
export function maskAccountNumber(digits: string): string {
  const visible = digits.slice(-4);
  return "*".repeat(Math.max(0, digits.length - visible.length)) + visible;
}
