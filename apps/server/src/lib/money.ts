/**
 * Wire form of money. Amounts on the wire are decimal strings in satang (the smallest unit:
 * "1000.00" is 1000 satang, 10.00 THB). Internally every amount is a `bigint` of satang.
 * Only this module parses and prints the wire form.
 */
import { AMOUNT_DIGITS_MAX } from "./limits.ts";

const AMOUNT_PATTERN = new RegExp(`^([0-9]{1,${AMOUNT_DIGITS_MAX}})(?:\\.([0-9]{1,2}))?$`);
const SIGNED_AMOUNT_PATTERN = new RegExp(`^([+-]?)([0-9]{1,${AMOUNT_DIGITS_MAX}})(?:\\.([0-9]{1,2}))?$`);

/** The syntactic pattern published in the OpenAPI document. */
export const AMOUNT_WIRE_PATTERN = `^[0-9]{1,${AMOUNT_DIGITS_MAX}}(\\.[0-9]{1,2})?$`;
export const SIGNED_AMOUNT_WIRE_PATTERN = `^[+-]?[0-9]{1,${AMOUNT_DIGITS_MAX}}(\\.[0-9]{1,2})?$`;

/**
 * Parses a positive amount of whole satang. Returns null for anything else: wrong shape, zero,
 * or a fraction of a satang ("1000.50"), since no Thai rail moves half a satang.
 */
export function parseAmount(text: unknown): bigint | null {
  if (typeof text !== "string") return null;
  const match = AMOUNT_PATTERN.exec(text);
  if (!match) return null;
  const fraction = match[2];
  if (fraction !== undefined && /[1-9]/.test(fraction)) return null;
  const value = BigInt(match[1]!);
  return value > 0n ? value : null;
}

/** Parses a signed, non-zero amount of whole satang (operator wallet adjustments). */
export function parseSignedAmount(text: unknown): bigint | null {
  if (typeof text !== "string") return null;
  const match = SIGNED_AMOUNT_PATTERN.exec(text);
  if (!match) return null;
  const fraction = match[3];
  if (fraction !== undefined && /[1-9]/.test(fraction)) return null;
  const value = BigInt(match[2]!);
  if (value === 0n) return null;
  return match[1] === "-" ? -value : value;
}

/**
 * Reads any figure the API answers in the wire form, zero and negatives included ("0.00",
 * "-2500.00": a balance, an adjustment), for showing it to a person; null when it is not one.
 */
export function parseWireFigure(text: unknown): bigint | null {
  if (typeof text !== "string") return null;
  const match = /^(-?)([0-9]{1,20})(?:\.(0{1,2}))?$/.exec(text);
  if (!match) return null;
  const value = BigInt(match[2]!);
  return match[1] === "-" ? -value : value;
}

/** Prints satang in the wire form with two decimals: 1000n -> "1000.00". */
export function formatAmount(satang: bigint): string {
  return `${satang.toString()}.00`;
}

/**
 * A figure for a message people read: the wire form with its unit and the baht it is,
 * 150000n -> "150000.00 satang (1500.00 THB)".
 */
export function describeSatang(satang: bigint): string {
  return `${formatAmount(satang)} satang (${formatThb(satang)} THB)`;
}

/** Prints satang as Thai baht with two decimals: 1050n -> "10.50". */
export function formatThb(satang: bigint): string {
  const negative = satang < 0n;
  const abs = negative ? -satang : satang;
  const baht = abs / 100n;
  const rest = (abs % 100n).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${baht.toString()}.${rest}`;
}

/**
 * A balance figure as the JSON integer of satang it is answered as: a number where a double
 * holds it exactly, and past 2^53 satang (about 90 trillion THB) the bigint itself, which the
 * response serializer writes digit for digit (`Type.Integer` schemas), so it is never rounded.
 */
export type JsonSatang = number | bigint;

export function satangJson(satang: bigint): JsonSatang {
  const exact = satang <= BigInt(Number.MAX_SAFE_INTEGER) && satang >= BigInt(Number.MIN_SAFE_INTEGER);
  return exact ? Number(satang) : satang;
}

const THB_PATTERN = /^([0-9]{1,11})(?:\.([0-9]{1,2}))?$/;

/**
 * Parses an amount of Thai baht as a bank prints it ("100", "100.5", "100.50") into satang:
 * "100.50" -> 10050n. Null for anything else, zero included, so an amount a bank answers with
 * is either exact or refused, never rounded.
 */
export function parseThb(text: string): bigint | null {
  const match = THB_PATTERN.exec(text);
  if (!match) return null;
  const satang = BigInt(match[1]!) * 100n + BigInt((match[2] ?? "0").padEnd(2, "0"));
  return satang > 0n ? satang : null;
}
