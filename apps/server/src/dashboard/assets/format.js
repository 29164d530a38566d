// @ts-check
// Amounts, times and bank names as the dashboard prints them, in the current language.

import { constants } from "./constants.js";
import { currentLang, locale, t } from "./lang.js";

/** Everyone sees Bangkok time (UTC+7), whatever the time zone of their computer. */
const TIME_ZONE = "Asia/Bangkok";

/**
 * A time in Bangkok time, or the empty-value dash.
 * @param {string | null | undefined} iso
 * @returns {string}
 */
export function formatTime(iso) {
  if (!iso) return t("none");
  return new Intl.DateTimeFormat(locale(), {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: TIME_ZONE,
  }).format(new Date(iso));
}

/**
 * Amounts are exact: a wire amount is a decimal string of satang ("123450.00" is 1,234.50 THB)
 * and a balance a whole number of satang; both are converted with BigInt, never floats.
 * @param {string | number} value
 * @returns {string} "฿1,234.50"; a negative amount starts with a minus sign
 */
export function formatSatang(value) {
  const text = typeof value === "number" ? String(Math.trunc(value)) : String(value).split(".")[0];
  let satang = BigInt(text || "0");
  const negative = satang < 0n;
  if (negative) satang = -satang;
  const baht = new Intl.NumberFormat(locale()).format(satang / 100n);
  const cents = String(satang % 100n).padStart(2, "0");
  return `${negative ? "−" : ""}฿${baht}.${cents}`;
}

/**
 * The satang of a wire amount ("72300.00", "-30000.00"), exact.
 * @param {string} value
 * @returns {bigint}
 */
export function satangOf(value) {
  return BigInt(String(value).split(".")[0] || "0");
}

/**
 * YYYY-MM-DD of the day after a date input's value.
 * @param {string} date YYYY-MM-DD
 * @returns {string}
 */
export function nextDay(date) {
  const [year = 0, month = 1, day = 1] = date.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
}

/**
 * A bank by its three-digit code, named in the current language: "Kasikornbank (004)". A code
 * the table does not hold shows as it is.
 * @param {string | null} code
 * @returns {string | null}
 */
export function bankText(code) {
  if (!code) return null;
  const bank = constants().banks.find((candidate) => candidate.code === code);
  if (!bank) return code;
  return `${currentLang() === "th" ? bank.nameTh : bank.name} (${code})`;
}

/**
 * A whole number of seconds in words, largest units first: "5 min 1 s".
 * @param {number} totalSeconds
 * @returns {string}
 */
export function formatDuration(totalSeconds) {
  /** @type {Array<[number, import("./i18n.js").MessageKey]>} */
  const units = [
    [86_400, "durationDays"],
    [3_600, "durationHours"],
    [60, "durationMinutes"],
    [1, "durationSeconds"],
  ];
  let rest = Math.max(0, Math.floor(totalSeconds));
  const parts = [];
  for (const [size, key] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) parts.push(t(key, { n: new Intl.NumberFormat(locale()).format(n) }));
  }
  return parts.length === 0 ? t("durationSeconds", { n: 0 }) : parts.join(" ");
}
