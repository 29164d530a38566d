// @ts-check
// CSV exports (#/exports): payments, withdraws, refunds or ledger movements for a range of Bangkok
// days, downloaded from the same exports as GET /api/v1/reports/<kind>.csv (at most 366 days),
// with the byte-order mark Excel needs for Thai unless the user unticks "For Excel".

/** @import { Child } from "../dom.js" */
/** @import { ExportKind } from "../api.js" */
import { canExport, currentRole, roleName } from "../account.js";
import { ApiError, downloadExport, SessionEnded } from "../api.js";
import { alertBox, heading } from "../components.js";
import { checkDayFields, dayField, dayValue } from "../day-input.js";
import { h, replace } from "../dom.js";
import { nextDay } from "../format.js";
import { t } from "../lang.js";

/** @type {Array<[ExportKind, import("../i18n.js").MessageKey]>} */
const KINDS = [
  ["payments", "exportPayments"],
  ["withdraws", "exportWithdraws"],
  ["refunds", "exportRefunds"],
  ["ledger", "exportLedger"],
];

/** Today in Bangkok, YYYY-MM-DD. */
function bangkokToday() {
  return new Date(Date.now() + 7 * 3600_000).toISOString().slice(0, 10);
}

/** The first day of the current month in Bangkok. */
function monthStart() {
  return `${bangkokToday().slice(0, 8)}01`;
}

/**
 * Saves a downloaded file under its name, through a temporary link.
 * @param {Blob} blob
 * @param {string} filename
 */
function save(blob, filename) {
  const url = URL.createObjectURL(blob);
  const anchor = h("a", { href: url, download: filename, hidden: true });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * @param {HTMLFormElement} form
 * @param {HTMLElement} status
 * @param {HTMLButtonElement} button
 */
async function submit(form, status, button) {
  if (!checkDayFields(form)) return;
  const data = new FormData(form);
  const kind = /** @type {ExportKind} */ (String(data.get("kind")));
  const from = dayValue(/** @type {HTMLInputElement} */ (form.elements.namedItem("from")));
  const to = dayValue(/** @type {HTMLInputElement} */ (form.elements.namedItem("to")));
  if (!from || !to) {
    replace(status, alertBox(t("exportRangeInvalid")));
    return;
  }
  const query = new URLSearchParams({
    dateFrom: `${from}T00:00:00+07:00`,
    dateTo: `${nextDay(to)}T00:00:00+07:00`,
    // The byte-order mark makes Excel read the file as UTF-8, so Thai names stay readable.
    bom: data.get("bom") === "on" ? "true" : "false",
  });
  button.disabled = true;
  replace(status, h("p", { role: "status" }, t("exportPreparing")));
  try {
    const file = await downloadExport(kind, query);
    save(file.blob, file.filename);
    replace(status, h("p", { role: "status", class: "muted" }, t("exportDone", { file: file.filename })));
  } catch (error) {
    if (error instanceof SessionEnded) return;
    const text =
      error instanceof ApiError && error.status === 400
        ? t("exportRangeInvalid")
        : t("requestFailed", { code: error instanceof ApiError ? error.code : "ERROR" });
    replace(status, alertBox(text));
  } finally {
    button.disabled = false;
  }
}

/** @returns {Promise<Child[]>} */
export async function exportsView() {
  if (!canExport()) {
    return [
      heading(t("exportsTitle")),
      h(
        "p",
        { class: "notice", "data-testid": "exports-not-for-role" },
        t("exportsNotForRole", { role: roleName(currentRole()) }),
      ),
    ];
  }
  const status = h("div", { "aria-live": "polite" });
  const button = /** @type {HTMLButtonElement} */ (
    h("button", { type: "submit", class: "button primary", id: "export-download" }, t("exportDownload"))
  );
  const form = /** @type {HTMLFormElement} */ (
    h(
      "form",
      {
        class: "card filters",
        "aria-label": t("exportsTitle"),
        onsubmit: (event) => {
          event.preventDefault();
          void submit(form, status, button);
        },
      },
      h(
        "div",
        { class: "filter-grid" },
        h(
          "div",
          { class: "field" },
          h("label", { for: "x-kind" }, t("exportKind")),
          h(
            "select",
            { id: "x-kind", name: "kind" },
            KINDS.map(([value, key]) => h("option", { value }, t(key))),
          ),
        ),
        dayField("x-from", "from", t("exportFrom"), monthStart(), { required: true }),
        dayField("x-to", "to", t("exportTo"), bangkokToday(), { required: true }),
        h(
          "div",
          { class: "field checkbox-field" },
          h(
            "label",
            { for: "x-bom" },
            h("input", { id: "x-bom", name: "bom", type: "checkbox", checked: true }),
            ` ${t("exportBom")}`,
          ),
          h("small", { class: "muted small" }, t("exportBomHelp")),
        ),
      ),
      h("div", { class: "actions" }, button),
    )
  );
  return [heading(t("exportsTitle")), h("p", { class: "muted" }, t("exportsIntro")), form, status];
}
