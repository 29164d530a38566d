// @ts-check
// The list view that payments, withdraws and events share, driven by a description of each
// list: what to fetch, which filters it has, which columns it shows. A new list is a new
// description (payments.js is one), not a new view.

/** @import { MessageKey } from "../i18n.js" */
/** @import { Child } from "../dom.js" */
/** @import { Page } from "../types.js" */
/** @import { Filter } from "./filters.js" */
import { ApiError, describeError } from "../api.js";
import { alertBox, heading, table } from "../components.js";
import { h, link, uid } from "../dom.js";
import { t } from "../lang.js";
import { rememberList } from "../router.js";
import { activeFilterCount, apiQuery, filterPanel } from "./filters.js";

/**
 * A column: its heading's text and how a record fills its cell.
 * @template R
 * @typedef {[MessageKey, (record: R) => Child]} Column
 */

/**
 * @template R
 * @typedef {object} ListDescription
 * @property {string} key the section, for the "back" links of its details
 * @property {MessageKey} title
 * @property {string} path the list's route and API path: "/payments"
 * @property {(query: URLSearchParams) => Promise<Page<R>>} fetch
 * @property {Filter[]} filters
 * @property {(() => string[]) | null} sortFields the server's sort fields; null when the list has none
 * @property {Array<Column<R>>} columns
 */

/**
 * A table row of each record, one cell a column.
 * @template R
 * @param {Array<Column<R>>} columns
 * @param {R[]} records
 */
export function recordRows(columns, records) {
  return records.map((record) =>
    h(
      "tr",
      null,
      columns.map(([, cell]) => h("td", null, cell(record))),
    ),
  );
}

/**
 * @template R
 * @param {ListDescription<R>} list
 * @param {URLSearchParams} params
 * @param {number} pageNumber
 */
function pageHref(list, params, pageNumber) {
  const next = new URLSearchParams(params);
  if (pageNumber <= 1) next.delete("page");
  else next.set("page", String(pageNumber));
  return `#${list.path}${next.size ? `?${next}` : ""}`;
}

/**
 * Previous and next page, and where the list is.
 * @template R
 * @param {ListDescription<R>} list
 * @param {URLSearchParams} params
 * @param {Page<R>} result
 */
function pager(list, params, result) {
  const pages = Math.max(result.totalPages, 1);
  /**
   * @param {number} target
   * @param {MessageKey} text
   * @param {"prev" | "next"} rel
   * @param {boolean} exists
   */
  const step = (target, text, rel, exists) =>
    exists
      ? link(pageHref(list, params, target), t(text), { class: "button secondary", rel })
      : h("span", { class: "button secondary", "aria-disabled": "true" }, t(text));
  return h(
    "nav",
    { class: "pager", "aria-label": t("pagination") },
    // Past the last page (the summary says so, with a link to it), Previous goes to the last page
    // and no "9 / 1" is shown.
    step(Math.min(result.page - 1, pages), "previousPage", "prev", result.page > 1),
    result.page <= pages ? h("span", { class: "muted" }, `${result.page} / ${pages}`) : null,
    step(result.page + 1, "nextPage", "next", result.page < result.totalPages),
  );
}

/**
 * A list with its filters, a summary of the results (which takes the focus when the filters
 * change, so a screen reader reads the outcome), the records and the pager.
 * @template R
 * @param {ListDescription<R>} list
 * @param {URLSearchParams} params
 * @returns {Promise<Child[]>}
 */
export async function listView(list, params) {
  rememberList(list.key, location.hash || `#${list.path}`);
  const title = heading(t(list.title));
  /** @type {Page<R>} */
  let result;
  try {
    result = await list.fetch(apiQuery(list, params));
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    // Refused filters: the form opens, so they can be changed at once.
    return [
      title,
      filterPanel(list, params, { open: true }),
      h("div", { "data-focus-on-update": true, tabindex: "-1" }, alertBox(describeError(error))),
    ];
  }
  const summaryId = uid("summary");
  const pages = Math.max(result.totalPages, 1);
  // A page past the last (an old link, a hand-typed address; page 1 is the last of an empty list)
  // says so and leads to the last page, never "page 9 of 1".
  const pastLast = result.page > pages;
  const summary = h(
    "p",
    { id: summaryId, class: "summary", role: "status", tabindex: "-1", "data-focus-on-update": true },
    t(pastLast ? "pastLastPage" : "resultsSummary", { total: result.total, page: result.page, pages }),
  );
  const empty = pastLast
    ? link(pageHref(list, params, pages), t("goToLastPage"))
    : activeFilterCount(list, params) > 0
      ? t("noResults")
      : t("nothingYet");
  return [
    title,
    filterPanel(list, params),
    summary,
    result.data.length === 0
      ? h("p", { class: "empty card" }, empty)
      : table(
          t(list.title),
          list.columns.map(([head]) => t(head)),
          recordRows(list.columns, result.data),
          { describedBy: summaryId },
        ),
    pager(list, params, result),
  ];
}
