/**
 * The references Satang gives SCB, derived from its own ids so that every one can be traced
 * back without a lookup table.
 */
import { isUuid } from "../../lib/ids.ts";
import { type PayoutSubject, refundSubject, withdrawSubject } from "../../lib/payout-subjects.ts";
import { SCB_PARTNER_TRANSACTION_ID_LENGTH, SCB_REFERENCE_PATTERN } from "./limits.ts";

/**
 * The partnerTransactionID of a withdraw's transfer: its UUID's 128 bits written in base 36,
 * upper case, left-padded to 25 characters, which is exactly SCB's String(25) (36^25 > 2^128).
 * Every send for one withdraw carries the same id, so SCB's report and a resend both name the
 * withdraw, and `withdrawIdOf` reads it back.
 */
export function partnerTransactionId(withdrawId: string): string {
  if (!isUuid(withdrawId)) throw new Error("a partner transaction id is derived from a withdraw UUID");
  return partnerIdOfValue(BigInt(`0x${withdrawId.replace(/-/g, "")}`));
}

/**
 * A refund's transfer gets its own partnerTransactionID, never one a withdraw can have: its
 * UUID's 128 bits plus 2^128, in base 36, upper case, left-padded to 25 characters. Withdraws'
 * ids stay below 2^128 and refunds' between 2^128 and 2^129, both within SCB's String(25)
 * (36^25 > 2^129), so `payoutSubjectOfPartnerId` tells them apart without a lookup.
 */
const REFUND_PARTNER_OFFSET = 1n << 128n;

function partnerIdOfValue(value: bigint): string {
  return value.toString(36).toUpperCase().padStart(SCB_PARTNER_TRANSACTION_ID_LENGTH, "0");
}

/** The partnerTransactionID of a withdraw's or a refund's transfer. */
export function partnerTransactionIdOf(subject: PayoutSubject): string {
  if (subject.kind === "withdraw") return partnerTransactionId(subject.id);
  if (!isUuid(subject.id)) throw new Error("a partner transaction id is derived from a refund UUID");
  return partnerIdOfValue(BigInt(`0x${subject.id.replace(/-/g, "")}`) + REFUND_PARTNER_OFFSET);
}

function uuidOfValue(value: bigint): string {
  const hex = value.toString(16).padStart(32, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function partnerValueOf(partnerId: string): bigint | null {
  if (!/^[0-9A-Z]{25}$/.test(partnerId)) return null;
  let value = 0n;
  for (const char of partnerId.toLowerCase()) value = value * 36n + BigInt(Number.parseInt(char, 36));
  return value;
}

/** The withdraw id a partnerTransactionID was derived from, or null when it was not one of ours. */
export function withdrawIdOf(partnerId: string): string | null {
  const value = partnerValueOf(partnerId);
  if (value === null || value >= REFUND_PARTNER_OFFSET) return null;
  return uuidOfValue(value);
}

/** The withdraw or refund a partnerTransactionID was derived from, or null when none of ours. */
export function payoutSubjectOfPartnerId(partnerId: string): PayoutSubject | null {
  const value = partnerValueOf(partnerId);
  if (value === null) return null;
  if (value < REFUND_PARTNER_OFFSET) return withdrawSubject(uuidOfValue(value));
  if (value < REFUND_PARTNER_OFFSET * 2n) return refundSubject(uuidOfValue(value - REFUND_PARTNER_OFFSET));
  return null;
}

/** Whether a text can be a QR reference (ref1, ref2, ref3): upper-case A-Z and 0-9, 1 to 20. */
export function isScbReference(text: string): boolean {
  return SCB_REFERENCE_PATTERN.test(text);
}
