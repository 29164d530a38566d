// @ts-check
// The language the dashboard is shown in, and its texts. The choice is kept in localStorage;
// a first visit follows the browser's language.

/** @import { Lang, MessageKey } from "./i18n.js" */
import { LANGS, MESSAGES } from "./i18n.js";

const LANG_KEY = "satang.dashboard.lang";

/**
 * The families of values the server names (its lists come from GET /dashboard/api/constants)
 * and the texts name by "family.value" keys.
 * @typedef {"paymentStatus" | "withdrawStatus" | "refundStatus" | "method" | "destination" | "event" | "deliveryStatus" | "attemptErrorCode" | "sort" | "auditAction"} ValueFamily
 */

/** @type {Lang} */
let lang = initialLang();

/** @returns {Lang} */
function initialLang() {
  const saved = LANGS.find((candidate) => candidate === localStorage.getItem(LANG_KEY));
  if (saved) return saved;
  return (navigator.language || "").toLowerCase().startsWith("th") ? "th" : "en";
}

/** @returns {Lang} */
export function currentLang() {
  return lang;
}

/** @param {Lang} next */
export function setLang(next) {
  lang = next;
  localStorage.setItem(LANG_KEY, next);
  applyLang();
}

/** Puts the language on the document: its lang attribute (fonts, screen readers) and title. */
export function applyLang() {
  document.documentElement.lang = lang;
  document.title = t("appTitle");
}

/**
 * The text of `key` in the current language, its {placeholders} filled from `vars`.
 * @param {MessageKey} key
 * @param {Record<string, string | number>} [vars]
 * @returns {string}
 */
export function t(key, vars = {}) {
  const text = MESSAGES[lang][key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/**
 * The text of a value of one of the server's lists ("canceled" of "paymentStatus"). A value the
 * texts do not know yet (the server added it after this page was written) shows as it is.
 * @param {ValueFamily} family
 * @param {string} value
 * @returns {string}
 */
export function valueText(family, value) {
  const key = `${family}.${value}`;
  return key in MESSAGES.en ? t(/** @type {MessageKey} */ (key)) : value;
}

/** The locale of dates and numbers: Thai gives Buddhist-era years. */
export function locale() {
  return lang === "th" ? "th-TH" : "en-GB";
}
