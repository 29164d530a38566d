/**
 * Amounts on the wire are decimal strings in satang with two decimals that are always zero:
 * "10000.00" is 10,000 satang, that is 100.00 THB (interface.md; CONTRACT 4). These helpers
 * convert between that form, integer satang and baht for display, exactly: bigint arithmetic,
 * never floats, so 0.1 + 0.2 never reaches a customer's bill.
 */

const WIRE_AMOUNT = /^(-?)([0-9]{1,16})(?:\.([0-9]{1,2}))?$/;
const BAHT_AMOUNT = /^(-?)([0-9]{1,14})(?:\.([0-9]{1,2}))?$/;

function integerSatang(value: bigint | number, what: string): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value !== "number")
    throw new TypeError(`${what} must be a bigint or a number, got ${typeof value}`);
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new RangeError(
      `${what} ${value} is beyond what a number holds exactly (2^53 - 1): pass it as a bigint`,
    );
  }
  if (!Number.isSafeInteger(value))
    throw new RangeError(`${what} must be a whole number of satang, got ${value}`);
  return BigInt(value);
}

/** Integer satang -> the API's amount string: `toSatangString(10000)` is "10000.00". */
export function toSatangString(satang: bigint | number): string {
  return `${integerSatang(satang, "amount")}.00`;
}

/**
 * The API's amount string -> integer satang: `fromSatangString("10000.00")` is 10000n. Accepts
 * "10000", "10000.0" and "10000.00"; refuses a fraction of a satang, which no Thai rail moves.
 */
export function fromSatangString(amount: string): bigint {
  if (typeof amount !== "string") throw new TypeError(`amount must be a string, got ${typeof amount}`);
  const match = WIRE_AMOUNT.exec(amount);
  if (!match) throw new RangeError(`not an amount string: ${JSON.stringify(amount)}`);
  const [, sign, whole, fraction = ""] = match;
  if (/[1-9]/.test(fraction)) {
    throw new RangeError(`amounts are whole satang, got ${JSON.stringify(amount)}`);
  }
  const value = BigInt(whole!);
  return sign === "-" ? -value : value;
}

/** Baht as typed by a person ("100", "100.5", "100.50") -> integer satang (10050n). */
export function bahtToSatang(baht: string): bigint {
  if (typeof baht !== "string")
    throw new TypeError(`baht must be a string as a person typed it, got ${typeof baht}`);
  const match = BAHT_AMOUNT.exec(baht.trim());
  if (!match) throw new RangeError(`not a baht amount: ${JSON.stringify(baht)}`);
  const [, sign, whole, fraction = ""] = match;
  const value = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, "0"));
  return sign === "-" ? -value : value;
}

/** Integer satang (or an amount string) -> baht with two decimals for display: 10050n is "100.50". */
export function satangToBaht(satang: bigint | number | string): string {
  const value = typeof satang === "string" ? fromSatangString(satang) : integerSatang(satang, "satang");
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const fraction = String(abs % 100n).padStart(2, "0");
  return `${negative ? "-" : ""}${abs / 100n}.${fraction}`;
}
