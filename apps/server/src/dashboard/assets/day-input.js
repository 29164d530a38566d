// @ts-check
// The day fields of the list filters and of the Exports page. A native <input type="date">
// writes its date in the browser's own locale: Chromium ignores the page's lang, so a browser
// set to English shows mm/dd/yyyy to a reader who chose Thai. In Thai the field is therefore a
// text field in the Thai order, dd/mm/yyyy, with the Buddhist-era year the rest of the Thai
// dashboard shows (26/11/2569); a Christian-era year (26/11/2026) and an ISO day (2026-11-26)
// are accepted as well. In English the native date input stays. Either way the value the code
// reads is an ISO day, YYYY-MM-DD, so URLs and API queries do not depend on the language.

import { h } from "./dom.js";
import { currentLang, t } from "./lang.js";

/** Buddhist era = Christian era + 543. */
const BUDDHIST_ERA_OFFSET = 543;
/** A year from here on is read as Buddhist era (2400 BE is 1857 CE; no record is that old). */
const BUDDHIST_ERA_FROM = 2400;

/**
 * The ISO day of a year, month and day, or null when no such day exists (31/02).
 * @param {number} year
 * @param {number} month
 * @param {number} day
 */
function isoOf(year, month, day) {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    return null;
  }
  return date.toISOString().slice(0, 10);
}

/**
 * The ISO day a person typed: "26/11/2569" (Buddhist era), "26/11/2026", "2026-11-26";
 * "" for an empty field; null for anything else.
 * @param {string} text
 * @returns {string | null}
 */
export function parseDay(text) {
  const value = text.trim();
  if (value === "") return "";
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (iso) return isoOf(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const thai = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(value);
  if (!thai) return null;
  const year = Number(thai[3]);
  return isoOf(
    year >= BUDDHIST_ERA_FROM ? year - BUDDHIST_ERA_OFFSET : year,
    Number(thai[2]),
    Number(thai[1]),
  );
}

/**
 * An ISO day as the Thai field shows it: dd/mm/yyyy with the Buddhist-era year.
 * @param {string} iso YYYY-MM-DD, or ""
 */
export function thaiDay(iso) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!match) return "";
  return `${match[3]}/${match[2]}/${Number(match[1]) + BUDDHIST_ERA_OFFSET}`;
}

/**
 * Whether the page shows its own dd/mm/yyyy field rather than the browser's date input.
 */
function ownField() {
  return currentLang() === "th";
}

/**
 * A day field: the input and, in Thai, a line saying the expected form. The input carries
 * `data-day`; `dayValue` reads it as an ISO day.
 * @param {string} id
 * @param {string} name
 * @param {string} label
 * @param {string} iso the day shown at first (YYYY-MM-DD or "")
 * @param {{ required?: boolean }} [options]
 */
export function dayField(id, name, label, iso, options = {}) {
  if (!ownField()) {
    return h(
      "div",
      { class: "field" },
      h("label", { for: id }, label),
      h("input", { id, name, type: "date", value: iso, required: options.required, "data-day": "" }),
    );
  }
  const hintId = `${id}-hint`;
  const input = /** @type {HTMLInputElement} */ (
    h("input", {
      id,
      name,
      type: "text",
      inputmode: "numeric",
      autocomplete: "off",
      placeholder: t("dayPlaceholder"),
      "aria-describedby": hintId,
      value: thaiDay(iso),
      required: options.required,
      "data-day": "",
    })
  );
  // The browser's own check (required) and ours (a real day in a form we read) report alike.
  input.addEventListener("input", () => {
    input.setCustomValidity(parseDay(input.value) === null ? t("dayInvalid") : "");
  });
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    h("small", { id: hintId, class: "muted small" }, t("dayHint")),
  );
}

/**
 * The ISO day of a day field ("" when empty), or null when what was typed is no day.
 * @param {HTMLInputElement} input
 * @returns {string | null}
 */
export function dayValue(input) {
  return input.type === "date" ? input.value : parseDay(input.value);
}

/**
 * Checks every day field of a form before it is used; the first one that holds no day is
 * marked invalid and reported, and false is returned. So is a "to" day before the "from" day.
 * @param {HTMLFormElement} form
 */
export function checkDayFields(form) {
  for (const input of form.querySelectorAll("input[data-day]")) {
    if (!(input instanceof HTMLInputElement)) continue;
    if (dayValue(input) === null) {
      input.setCustomValidity(t("dayInvalid"));
      input.reportValidity();
      return false;
    }
    input.setCustomValidity("");
  }
  // A range whose last day comes before its first would match nothing: said, not searched.
  const from = form.elements.namedItem("from");
  const to = form.elements.namedItem("to");
  if (from instanceof HTMLInputElement && to instanceof HTMLInputElement) {
    const first = dayValue(from);
    const last = dayValue(to);
    if (first && last && last < first) {
      to.setCustomValidity(t("dayRangeReversed"));
      to.reportValidity();
      // Typing in the field again clears the message (the browser keeps it until told).
      to.addEventListener("input", () => to.setCustomValidity(""), { once: true });
      return false;
    }
  }
  return true;
}
