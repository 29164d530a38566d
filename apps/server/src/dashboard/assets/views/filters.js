// @ts-check
// The filter form of the lists. Its fields are the public API's list parameters, so the
// dashboard shows exactly what the API would return for them; dates are Bangkok calendar days.
// On a phone the form folds behind a "Filters" button that says how many filters are on, so
// the results come first; on a wider screen the form is always open.

/** @import { MessageKey } from "../i18n.js" */
/** @import { Child } from "../dom.js" */
/** @import { ValueFamily } from "../lang.js" */
/** @import { Constants } from "../types.js" */
import { constants } from "../constants.js";
import { checkDayFields, dayField, dayValue } from "../day-input.js";
import { h } from "../dom.js";
import { nextDay } from "../format.js";
import { t, valueText } from "../lang.js";
import { navigate } from "../router.js";

/** The page sizes offered, up to the server's largest. */
const PAGE_SIZES = [10, 25, 50, 100];
/** What a list shows when the URL does not say. */
const DEFAULT_SORT = { sortBy: "createdAt", sortOrder: "desc" };

/**
 * A filter of a list: a URL parameter with a closed list of values (from the server's lists).
 * @typedef {object} Filter
 * @property {string} name the URL and API parameter
 * @property {MessageKey} label
 * @property {() => string[]} values
 * @property {(value: string) => string} describe the text of a value
 */

/**
 * The names of the server's lists of words (statuses, methods, ...).
 * @typedef {{ [K in keyof Constants]: Constants[K] extends string[] ? K : never }[keyof Constants]} ServerList
 */

/**
 * A filter whose values are one of the server's lists, each shown by its text.
 * @param {string} name the URL and API parameter
 * @param {MessageKey} label
 * @param {ServerList} values
 * @param {ValueFamily} family
 * @returns {Filter}
 */
export function serverListFilter(name, label, values, family) {
  return { name, label, values: () => constants()[values], describe: (value) => valueText(family, value) };
}

/**
 * What the form needs of a list.
 * @typedef {object} Filterable
 * @property {string} path the list's route and API path, "/payments"
 * @property {Filter[]} filters
 * @property {(() => string[]) | null} sortFields the server's sort fields; null when the list has none
 */

/**
 * The API query of the list URL's parameters. A day picked in the form is a day in Thailand:
 * from its midnight (UTC+7) up to, and not including, the next day's midnight, so the "to"
 * day itself is part of the range.
 * @param {Filterable} list
 * @param {URLSearchParams} params
 */
export function apiQuery(list, params) {
  const query = new URLSearchParams();
  const copied = ["page", "limit", "sortBy", "sortOrder", ...list.filters.map((filter) => filter.name)];
  for (const name of copied) {
    const value = params.get(name);
    if (value) query.set(name, value);
  }
  const from = params.get("from");
  const to = params.get("to");
  if (from) query.set("dateFrom", `${from}T00:00:00+07:00`);
  if (to && /^\d{4}-\d{2}-\d{2}$/.test(to)) query.set("dateTo", `${nextDay(to)}T00:00:00+07:00`);
  return query;
}

/**
 * How many filters narrow the list (sort order and page size do not).
 * @param {Filterable} list
 * @param {URLSearchParams} params
 */
export function activeFilterCount(list, params) {
  const names = [...list.filters.map((filter) => filter.name), "from", "to"];
  return names.filter((name) => params.get(name)).length;
}

/**
 * @param {string} id
 * @param {string} name
 * @param {string} label
 * @param {Array<[string, string]>} options value and text
 * @param {string} current
 */
function select(id, name, label, options, current) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    h(
      "select",
      { id, name, value: current },
      options.map(([value, text]) => h("option", { value }, text)),
    ),
  );
}

/**
 * The sort fields with the default first, as the select offers them.
 * @param {string[]} fields
 */
function sortOptions(fields) {
  const ordered = [DEFAULT_SORT.sortBy, ...fields.filter((field) => field !== DEFAULT_SORT.sortBy)];
  return ordered.filter((field) => fields.includes(field));
}

/**
 * @param {Filterable} list
 * @param {URLSearchParams} params
 * @returns {Child[]}
 */
function fields(list, params) {
  const pageSize = String(constants().pageSizeDefault);
  return [
    list.filters.map((filter) =>
      select(
        `f-${filter.name}`,
        filter.name,
        t(filter.label),
        [
          ["", t("any")],
          ...filter
            .values()
            .map((value) => /** @type {[string, string]} */ ([value, filter.describe(value)])),
        ],
        params.get(filter.name) || "",
      ),
    ),
    dayField("f-from", "from", t("filterFrom"), params.get("from") || ""),
    dayField("f-to", "to", t("filterTo"), params.get("to") || ""),
    list.sortFields &&
      select(
        "f-sortBy",
        "sortBy",
        t("filterSortBy"),
        sortOptions(list.sortFields()).map((field) => [field, valueText("sort", field)]),
        params.get("sortBy") || DEFAULT_SORT.sortBy,
      ),
    select(
      "f-sortOrder",
      "sortOrder",
      t("filterSortOrder"),
      [
        ["desc", t("sortDescending")],
        ["asc", t("sortAscending")],
      ],
      params.get("sortOrder") || DEFAULT_SORT.sortOrder,
    ),
    select(
      "f-limit",
      "limit",
      t("filterPageSize"),
      PAGE_SIZES.filter((size) => size <= constants().pageSizeMax).map((size) => [
        String(size),
        String(size),
      ]),
      params.get("limit") || pageSize,
    ),
  ];
}

/**
 * The URL of the form's values; values equal to the defaults are left out, so the URL stays short.
 * @param {Filterable} list
 * @param {HTMLFormElement} form
 */
function filteredHref(list, form) {
  /** @type {Record<string, string>} */
  const defaults = { ...DEFAULT_SORT, limit: String(constants().pageSizeDefault) };
  const next = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    // A day field's text is in the reader's form (dd/mm/yyyy in Thai); the URL holds ISO days.
    const field = form.elements.namedItem(name);
    const text = field instanceof HTMLInputElement && "day" in field.dataset ? dayValue(field) : value;
    if (text && defaults[name] !== text) next.set(name, String(text));
  }
  return `#${list.path}${next.size ? `?${next}` : ""}`;
}

/**
 * The filter form and, before it, the button that unfolds it on a phone, which names how many
 * filters are on. The form starts folded unless `open` (it is, for instance, when the filters
 * were refused and need changing).
 * @param {Filterable} list
 * @param {URLSearchParams} params
 * @param {{ open?: boolean }} [options]
 * @returns {Child[]}
 */
export function filterPanel(list, params, options = {}) {
  const formId = "filters-form";
  const count = activeFilterCount(list, params);
  const form = h(
    "form",
    {
      id: formId,
      class: options.open ? "card filters" : "card filters folded",
      role: "search",
      "aria-label": t("filters"),
      onsubmit: (event) => {
        event.preventDefault();
        if (checkDayFields(form)) navigate(filteredHref(list, form));
      },
    },
    h("div", { class: "filter-grid" }, fields(list, params)),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "button primary" }, t("applyFilters")),
      h("a", { class: "button secondary", href: `#${list.path}` }, t("resetFilters")),
    ),
  );
  const toggle = h(
    "button",
    {
      type: "button",
      class: "button secondary filters-toggle",
      "aria-expanded": options.open ? "true" : "false",
      "aria-controls": formId,
      onclick: () => {
        const folded = form.classList.toggle("folded");
        toggle.setAttribute("aria-expanded", folded ? "false" : "true");
      },
    },
    count > 0 ? t("filtersToggleActive", { count }) : t("filtersToggle"),
  );
  return [toggle, form];
}
