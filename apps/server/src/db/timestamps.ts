/**
 * How PostgreSQL's `timestamptz` values are read: `pg`'s own parser (postgres-date, through
 * pg-types) matches each value against three regular expressions and builds the Date in
 * several steps, about a microsecond a value; every record the service reads carries two to
 * nine timestamps, and a list of ten payments thirty and more. `parseTimestamptz` reads the one
 * form PostgreSQL writes with its default DateStyle (ISO) for a year of four digits,
 * `YYYY-MM-DD HH:MM:SS[.ffffff]+HH[:MM]`, by its character positions, and hands every other
 * form (infinity, BC, years before 1000 or after 9999, an offset with seconds, another
 * DateStyle) to pg's parser, so the answer is always the Date pg's parser gives
 * (test/db/timestamps.test.ts checks the two agree on generated values and on PostgreSQL's own
 * output in several time zones).
 */
import pg from "pg";

/** `timestamptz`'s type oid. */
export const TIMESTAMPTZ_OID = 1184;

const pgParser = pg.types.getTypeParser(TIMESTAMPTZ_OID, "text") as (text: string) => Date | number | null;

const ZERO = 48;

/** The value of the `count` decimal digits of `text` from `at`, or -1 if one is not a digit. */
function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i += 1) {
    const d = text.charCodeAt(i) - ZERO;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/** Whether `text` holds `char` at `at`. */
const at = (text: string, index: number, char: string) => text.charCodeAt(index) === char.charCodeAt(0);

/** A `timestamptz` value as PostgreSQL writes it in text, read as pg's own parser reads it. */
export function parseTimestamptz(text: string): Date | number | null {
  const fast = fastParse(text);
  return fast ?? pgParser(text);
}

/** The common form read by position, or undefined to leave `text` to pg's parser. */
function fastParse(text: string): Date | undefined {
  if (text.length < 22 || !at(text, 4, "-") || !at(text, 7, "-") || !at(text, 10, " ")) return undefined;
  if (!at(text, 13, ":") || !at(text, 16, ":")) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined;
  let i = 19;
  let millis = 0;
  if (at(text, i, ".")) {
    // pg's parser takes 1000 * parseFloat(".ffffff") and Date drops what is below a millisecond:
    // the first three digits, for every fraction of one to six digits (each fraction's float
    // falls at least a thousandth of a millisecond from the next whole one, or on it exactly).
    const start = i + 1;
    i = start;
    for (let scale = 100; i < text.length; i += 1, scale /= 10) {
      const d = digits(text, i, 1);
      if (d < 0) break;
      if (scale >= 1) millis += d * scale;
    }
    if (i === start || i - start > 6) return undefined;
  }
  const sign = at(text, i, "+") ? 1 : at(text, i, "-") ? -1 : 0;
  if (sign === 0) return undefined;
  const offsetHours = digits(text, i + 1, 2);
  if (offsetHours < 0) return undefined;
  let offsetMinutes = 0;
  if (text.length === i + 6 && at(text, i + 3, ":")) {
    offsetMinutes = digits(text, i + 4, 2);
    if (offsetMinutes < 0) return undefined;
  } else if (text.length !== i + 3) {
    return undefined;
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  return new Date(utc - sign * (offsetHours * 3_600_000 + offsetMinutes * 60_000));
}
