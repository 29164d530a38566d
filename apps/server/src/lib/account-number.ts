import { ACCOUNT_NUMBER_DIGITS_MAX, ACCOUNT_NUMBER_DIGITS_MIN } from "./limits.ts";

/**
 * Bank account numbers: digits only once `-` and spaces are removed, 10 to 15 digits.
 * Returns the normalized digits, or null when the input is not an account number.
 */
export function normalizeAccountNumber(input: unknown): string | null {
  if (typeof input !== "string") return null;
  const digits = input.replace(/[-\s]/g, "");
  if (!/^[0-9]+$/.test(digits)) return null;
  if (digits.length < ACCOUNT_NUMBER_DIGITS_MIN || digits.length > ACCOUNT_NUMBER_DIGITS_MAX) return null;
  return digits;
}

/** Masks every digit but the last four, keeping the length: "1234567890" -> "******7890". */
export function maskAccountNumber(digits: string): string {
  const visible = digits.slice(-4);
  return "*".repeat(Math.max(0, digits.length - visible.length)) + visible;
}
