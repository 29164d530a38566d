/**
 * CSV text for the exports (CONTRACT 11): RFC 4180 rows and cells that a spreadsheet will not
 * run as a formula.
 *
 * - A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'`,
 *   so Excel, LibreOffice and Google Sheets show it as text (OWASP's CSV injection advice).
 *   Only free text is guarded this way: amounts are written by `formatThb`, whose minus sign
 *   on a ledger debit is meant as a number.
 * - A cell containing `"`, `,`, CR or LF is quoted and its quotes doubled; rows end in CRLF.
 * - Timestamps are written twice: in UTC and in Asia/Bangkok (UTC+7 all year, no daylight
 *   saving), both as `YYYY-MM-DD HH:MM:SS`, which spreadsheets read as a date and time.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;
const BANGKOK_OFFSET_MS = 7 * 60 * 60 * 1000;

/** A value as it appears in a cell: text (guarded), a number written by us, or empty. */
export type Cell = string | null | { number: string };

export function textCell(value: string | null | undefined): Cell {
  return value ?? null;
}

/** A figure we print ourselves (amounts, counts): never prefixed. */
export function numberCell(value: string): Cell {
  return { number: value };
}

function quote(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function encodeCell(cell: Cell): string {
  if (cell === null) return "";
  if (typeof cell === "object") return quote(cell.number);
  return quote(FORMULA_START.test(cell) ? `'${cell}` : cell);
}

/** One CSV line, CRLF-terminated (RFC 4180). */
export function csvRow(cells: readonly Cell[]): string {
  return `${cells.map(encodeCell).join(",")}\r\n`;
}

/** The header row: column names are plain ASCII and need no guard. */
export function csvHeader(columns: readonly string[]): string {
  return csvRow(columns.map((name) => numberCell(name)));
}

function plainTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/**
 * The byte-order mark that tells Excel a CSV file is UTF-8. Without it Excel on Windows reads
 * the file in the machine's legacy code page and Thai names come out garbled; with it, most
 * other readers skip it, but a program that parses the bytes itself may not, so it is asked for.
 */
export const UTF8_BOM = "\uFEFF";

/** The Asia/Bangkok calendar day (YYYY-MM-DD) of an instant: the day a Thai merchant calls it. */
export function bangkokDay(at: Date): string {
  // From the date's parts, not toISOString's text, which writes a year past 9999 as "+010000"
  // (the last Bangkok day of a range ending 9999-12-31T23:59:59.999Z is 10000-01-01).
  const day = new Date(at.getTime() + BANGKOK_OFFSET_MS);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${String(day.getUTCFullYear()).padStart(4, "0")}-${two(day.getUTCMonth() + 1)}-${two(day.getUTCDate())}`;
}

/** `[utc, bangkok]` cells of an instant, both empty when there is none. */
export function timeCells(at: Date | null): [Cell, Cell] {
  if (at === null) return [null, null];
  const ms = at.getTime();
  return [numberCell(plainTime(ms)), numberCell(plainTime(ms + BANGKOK_OFFSET_MS))];
}

/** The two column names of a timestamp: `<name>_utc`, `<name>_bangkok`. */
export function timeColumns(name: string): [string, string] {
  return [`${name}_utc`, `${name}_bangkok`];
}
