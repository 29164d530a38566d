/**
 * The references Satang gives SCB, derived from its own ids so that every one can be traced
 * back without a lookup table.
 */
import { isUuid } from "../../lib/ids.ts";
import { SCB_PARTNER_TRANSACTION_ID_LENGTH, SCB_REFERENCE_PATTERN } from "./limits.ts";

/**
 * The partnerTransactionID of a withdraw's transfer: its UUID's 128 bits written in base 36,
 * upper case, left-padded to 25 characters, which is exactly SCB's String(25) (36^25 > 2^128).
 * Every send for one withdraw carries the same id, so SCB's report and a resend both name the
 * withdraw, and `withdrawIdOf` reads it back.
 */
export function partnerTransactionId(withdrawId: string): string {
  if (!isUuid(withdrawId)) throw new Error("a partner transaction id is derived from a withdraw UUID");
  const value = BigInt(`0x${withdrawId.replace(/-/g, "")}`);
  return value.toString(36).toUpperCase().padStart(SCB_PARTNER_TRANSACTION_ID_LENGTH, "0");
}

/** The withdraw id a partnerTransactionID was derived from, or null when it was not one of ours. */
export function withdrawIdOf(partnerId: string): string | null {
  if (!/^[0-9A-Z]{25}$/.test(partnerId)) return null;
  let value = 0n;
  for (const char of partnerId.toLowerCase()) value = value * 36n + BigInt(Number.parseInt(char, 36));
  if (value >= 1n << 128n) return null;
  const hex = value.toString(16).padStart(32, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether a text can be a QR reference (ref1, ref2, ref3): upper-case A-Z and 0-9, 1 to 20. */
export function isScbReference(text: string): boolean {
  return SCB_REFERENCE_PATTERN.test(text);
}
