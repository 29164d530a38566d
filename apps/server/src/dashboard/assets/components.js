// @ts-check
// Pieces several views share: status badges, tables, field lists, alerts, the timeline of a
// payment or withdraw, links to an event's object, the language button.

/** @import { MessageKey } from "./i18n.js" */
/** @import { Child } from "./dom.js" */
/** @import { TimelineEntry, WebhookEvent } from "./types.js" */
import { h, link } from "./dom.js";
import { formatTime } from "./format.js";
import { currentLang, setLang, t, valueText } from "./lang.js";
import { lastListHref } from "./router.js";

/**
 * The colour family of a status badge; text colours all meet WCAG AA on their backgrounds. A
 * status not listed here is muted.
 * @type {Record<string, "good" | "bad" | "warn" | "info" | "muted">}
 */
const TONES = {
  succeeded: "good",
  paid: "good",
  canceled: "muted",
  expired: "muted",
  payment_failed: "bad",
  failed: "bad",
  processing: "info",
  pending: "warn",
  requires_action: "warn",
  requires_payment_method: "warn",
  requires_confirmation: "warn",
  requires_capture: "warn",
  awaiting_verification: "warn",
};

/**
 * A status as a coloured badge.
 * @param {string} status picks the colour
 * @param {string} label the text shown
 */
export function badge(status, label) {
  return h("span", { class: `badge tone-${TONES[status] || "muted"}` }, label);
}

/**
 * @typedef {object} TableOptions
 * @property {string} [describedBy] id of the element that describes the table (a results summary)
 * @property {boolean} [showCaption] show the caption instead of keeping it for screen readers
 */

/**
 * A table with its caption. On a phone the style sheet stacks each row into a card, each cell
 * under its column's name (data-label), so nothing scrolls sideways; the explicit roles keep it
 * a table for assistive technology when its display changes. Its wrapper still scrolls, as a
 * safety net, and Chromium makes such a scroller reachable by keyboard.
 * @param {string} caption
 * @param {string[]} heads
 * @param {HTMLTableRowElement[]} rows
 * @param {TableOptions} [options]
 */
export function table(caption, heads, rows, options = {}) {
  for (const row of rows) {
    for (const [index, cell] of [...row.children].entries()) {
      cell.setAttribute("role", "cell");
      cell.setAttribute("data-label", heads[index] ?? "");
    }
    row.setAttribute("role", "row");
  }
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { role: "table", "aria-describedby": options.describedBy },
      h("caption", { class: options.showCaption ? "" : "visually-hidden" }, caption),
      h(
        "thead",
        { role: "rowgroup" },
        h(
          "tr",
          { role: "row" },
          heads.map((head) => h("th", { scope: "col", role: "columnheader" }, head)),
        ),
      ),
      h("tbody", { role: "rowgroup" }, rows),
    ),
  );
}

/**
 * Terms and their values; a missing value shows the empty-value dash.
 * @param {Array<[string, Child]>} entries
 */
export function definitionList(entries) {
  return h(
    "dl",
    { class: "fields" },
    entries.map(([term, value]) => h("div", null, h("dt", null, term), h("dd", null, value ?? t("none")))),
  );
}

/** @param {string} text */
export function alertBox(text) {
  return h("p", { class: "alert", role: "alert" }, text);
}

/** @param {Child} text */
export function mono(text) {
  return h("span", { class: "mono" }, text);
}

/**
 * The link back to a section's list, with the filters and page it last had.
 * @param {string} key the section
 * @param {string} fallback its plain list
 * @param {MessageKey} textKey
 */
export function backLink(key, fallback, textKey) {
  return h("p", { class: "back" }, link(lastListHref(key, fallback), t(textKey)));
}

/**
 * A view's one heading, which takes the focus when the view is new.
 * @param {string} text
 */
export function heading(text) {
  return h("h1", { tabindex: "-1" }, text);
}

/**
 * A payment's or withdraw's events, oldest first, after its creation.
 * @param {{ createdAt: string }} record
 * @param {TimelineEntry[]} timeline
 */
function timelineSection(record, timeline) {
  const items = [
    h(
      "li",
      null,
      h("span", { class: "when" }, formatTime(record.createdAt)),
      h("span", { class: "what" }, t("timelineCreated")),
    ),
    ...timeline.map((entry) =>
      h(
        "li",
        null,
        h("span", { class: "when" }, formatTime(entry.createdAt)),
        h(
          "span",
          { class: "what" },
          link(`#/events/${encodeURIComponent(entry.id)}`, valueText("event", entry.type)),
          " ",
          h("code", null, entry.type),
        ),
      ),
    ),
  ];
  return h(
    "section",
    { class: "card", "aria-labelledby": "timeline-heading" },
    h("h2", { id: "timeline-heading" }, t("timeline")),
    h("ol", { class: "timeline" }, items),
    timeline.length === 0 ? h("p", { class: "muted" }, t("timelineEmpty")) : null,
  );
}

/**
 * A record's page body: its fields beside its timeline (under it on a phone).
 * @param {Array<[string, Child]>} fields
 * @param {{ createdAt: string }} record
 * @param {TimelineEntry[]} timeline
 */
export function detailGrid(fields, record, timeline) {
  return h(
    "div",
    { class: "detail-grid" },
    h(
      "section",
      { class: "card", "aria-labelledby": "details-heading" },
      h("h2", { id: "details-heading" }, t("details")),
      definitionList(fields),
    ),
    timelineSection(record, timeline),
  );
}

/**
 * The payment, withdraw or refund an event is about, linked to its detail: a refund has no page
 * of its own, so its link opens the payment it returns money from (as the refunds list does).
 * @param {WebhookEvent} event
 * @returns {Child}
 */
export function objectLink(event) {
  const object = event.data?.object || {};
  const kind = event.type.split(".")[0];
  /** @type {[MessageKey, string | undefined]} */
  const [labelKey, target] =
    kind === "payment"
      ? ["objectPayment", object.id && `#/payments/${encodeURIComponent(object.id)}`]
      : kind === "refund"
        ? ["objectRefund", object.paymentId && `#/payments/${encodeURIComponent(object.paymentId)}`]
        : ["objectWithdraw", object.id && `#/withdraws/${encodeURIComponent(object.id)}`];
  const label = `${t(labelKey)} ${object.referenceId || object.id || ""}`;
  return target ? link(target, label) : label;
}

/**
 * The button that switches between Thai and English; `onSwitch` draws the page again.
 * @param {() => void} onSwitch
 */
export function langButton(onSwitch) {
  const other = currentLang() === "th" ? "en" : "th";
  return h(
    "button",
    {
      type: "button",
      class: "button secondary lang",
      lang: other,
      "aria-label": t("switchLanguageLabel"),
      onclick: () => {
        setLang(other);
        onSwitch();
      },
    },
    t("switchLanguage"),
  );
}
