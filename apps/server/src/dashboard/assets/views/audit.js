// @ts-check
// The merchant's audit log (#/audit?page=2): who changed what in this account (its users, and
// the operator's actions on its records), from which address and when, newest first, 50 a page.

/** @import { Child } from "../dom.js" */
/** @import { AuditEntry } from "../types.js" */
import { listAuditLog } from "../api.js";
import { heading, table } from "../components.js";
import { h, link } from "../dom.js";
import { formatTime } from "../format.js";
import { t, valueText } from "../lang.js";

const PAGE_SIZE = 50;

/** @param {AuditEntry} entry */
function entryRow(entry) {
  return h(
    "tr",
    null,
    h("td", null, formatTime(entry.createdAt)),
    h("td", { class: "break" }, entry.actorName, h("small", { class: "muted block" }, entry.via)),
    // The action in words, and its name as the operator's audit log and its filter spell it.
    h(
      "td",
      null,
      h("span", null, valueText("auditAction", entry.action)),
      h("small", { class: "muted block" }, h("code", null, entry.action)),
    ),
    h(
      "td",
      { class: "mono break" },
      entry.recordType,
      entry.recordId ? h("small", { class: "block" }, entry.recordId) : null,
    ),
    h("td", { class: "mono" }, entry.clientAddress ?? "—"),
  );
}

/**
 * @param {number} pageNumber
 * @param {number} totalPages
 */
function pager(pageNumber, totalPages) {
  /**
   * @param {number} target
   * @param {"previousPage" | "nextPage"} text
   * @param {boolean} exists
   */
  const step = (target, text, exists) =>
    exists
      ? link(`#/audit${target > 1 ? `?page=${target}` : ""}`, t(text), { class: "button secondary" })
      : h("span", { class: "button secondary", "aria-disabled": "true" }, t(text));
  return h(
    "nav",
    { class: "pager", "aria-label": t("pagination") },
    step(pageNumber - 1, "previousPage", pageNumber > 1),
    h("span", { class: "muted" }, `${pageNumber} / ${Math.max(totalPages, 1)}`),
    step(pageNumber + 1, "nextPage", pageNumber < totalPages),
  );
}

/**
 * @param {URLSearchParams} params
 * @returns {Promise<Child[]>}
 */
export async function auditView(params) {
  const pageNumber = Math.max(1, Number.parseInt(params.get("page") ?? "1", 10) || 1);
  const result = await listAuditLog(
    new URLSearchParams({ page: String(pageNumber), limit: String(PAGE_SIZE) }),
  );
  const heads = [t("colWhen"), t("colWho"), t("colAction"), t("colRecord"), t("colFrom")];
  return [
    heading(t("auditTitle")),
    h("p", { class: "muted" }, t("auditIntro")),
    result.data.length === 0
      ? h("p", { class: "empty card" }, t("nothingYet"))
      : table(t("auditTitle"), heads, result.data.map(entryRow)),
    pager(pageNumber, result.totalPages),
  ];
}
