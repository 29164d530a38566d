// @ts-check
/**
 * The payout desk page (docs/payout-desk.md): the operator signs in with the operator token,
 * lists batches, creates one from pending withdraws, downloads its CSV and records each
 * outcome. Every call goes to the operator API under /admin/v1 with the token as a Bearer
 * token; the token is kept in this tab's sessionStorage only. Text from the server is always
 * set as text, never parsed as HTML.
 *
 * Amounts come from the API in its wire form, decimal strings of satang ("150000.00"), and are
 * shown in Thai baht with the unit ("฿1,500.00"): the figure the operator keys into the bank is
 * the CSV's amount_thb, never the satang count. The page speaks English and Thai like the
 * dashboard (i18n.js); the choice is kept with the dashboard's, so one choice serves both.
 */

import { LANGS, MESSAGES } from "./i18n.js";

/** @import { Lang, MessageKey } from "./i18n.js" */

const TOKEN_KEY = "satang.operatorToken";
/** The dashboard's key: a language chosen on either page holds for both. */
const LANG_KEY = "satang.dashboard.lang";
/** Everyone sees Bangkok time (UTC+7), whatever the time zone of their computer. */
const TIME_ZONE = "Asia/Bangkok";
const base = document.documentElement.dataset.base ?? "";
const root = /** @type {HTMLElement} */ (document.getElementById("app"));

/** @typedef {{ position: number, kind?: "withdraw" | "refund", withdrawId: string | null, refundId?: string | null, referenceId: string, amount: string, destinationType: string, bankCode: string, bankName: string | null, bankNameTh?: string | null, bankAccountNumber: string, bankAccountName: string, withdrawStatus: string | null, refundStatus?: string | null, outcome: string | null, bankReference: string | null, failureReason: string | null, recordedBy: string | null, recordedVia: string | null }} Item */
/** @typedef {{ id: string, status: string, createdBy: string, createdByOperator: string | null, itemCount: number, totalAmount: string, paidAmount: string, paidCount: number, failedCount: number, openCount: number, createdAt: string, items?: Item[] }} Batch */

// ---- Language -------------------------------------------------------------------------------

/** @type {Lang} */
let lang = initialLang();

/** @returns {Lang} */
function initialLang() {
  const saved = LANGS.find((candidate) => candidate === localStorage.getItem(LANG_KEY));
  if (saved) return saved;
  // The server chose from Accept-Language for the first paint; the script follows it.
  return document.documentElement.lang === "th" ? "th" : "en";
}

function applyLang() {
  document.documentElement.lang = lang;
  document.title = t("appTitle");
}

/**
 * The text of `key` in the current language, its {placeholders} filled from `vars`.
 * @param {MessageKey} key
 * @param {Record<string, string | number>} [vars]
 */
function t(key, vars = {}) {
  const text = MESSAGES[lang][key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/**
 * A value of one of the server's lists in the current language; a value these texts do not know
 * (added to the server after this page) shows as it is.
 * @param {"batchStatus" | "outcome" | "via" | "withdrawStatus" | "refundStatus" | "destination"} family
 * @param {string} value
 */
function valueText(family, value) {
  const key = `${family}.${value}`;
  return key in MESSAGES.en ? t(/** @type {MessageKey} */ (key)) : value;
}

/** The locale of dates and numbers: Thai gives Buddhist-era years. */
function locale() {
  return lang === "th" ? "th-TH" : "en-GB";
}

// ---- Formatting -----------------------------------------------------------------------------

/**
 * A wire amount (decimal string of satang) in Thai baht with its unit: "150000.00" -> "฿1,500.00".
 * Exact: converted with BigInt, never a float.
 * @param {string} wire
 */
function thb(wire) {
  const satang = BigInt(String(wire).split(".")[0] || "0");
  const baht = new Intl.NumberFormat(locale()).format(satang / 100n);
  return `฿${baht}.${String(satang % 100n).padStart(2, "0")}`;
}

/** @param {string} iso */
function formatTime(iso) {
  return new Intl.DateTimeFormat(locale(), {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: TIME_ZONE,
  }).format(new Date(iso));
}

/** Who recorded an item's outcome, or the empty-value dash. @param {Item} item */
function recordedByText(item) {
  if (item.recordedBy === null) return t("none");
  if (item.recordedVia === null) return item.recordedBy;
  return t("recordedBy", { name: item.recordedBy, via: valueText("via", item.recordedVia) });
}

// ---- DOM ------------------------------------------------------------------------------------

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {(Node | string)[]} [children]
 */
function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) node.append(child);
  return node;
}

/**
 * How many of a batch's lines are refunds (the rest are withdraws).
 * @param {Batch} batch
 */
function refundCount(batch) {
  return (batch.items ?? []).filter((item) => item.kind === "refund").length;
}

/** @param {string} text @param {string} [kind] */
function notice(text, kind = "error") {
  const box = document.getElementById("notice");
  if (!box) return;
  box.className = `notice ${kind}`;
  box.textContent = text;
}

/** What the page shows now, drawn again in the other language when the operator switches. */
/** @type {() => void} */
let redraw = () => renderLogin();

function langButton() {
  const other = lang === "th" ? "en" : "th";
  const button = el(
    "button",
    { type: "button", class: "lang", lang: other, "aria-label": t("switchLanguageLabel") },
    [t("switchLanguage")],
  );
  button.addEventListener("click", () => {
    lang = other;
    localStorage.setItem(LANG_KEY, other);
    applyLang();
    redraw();
    // The undecided-payouts section (undecided.js) draws itself again in the new language.
    document.dispatchEvent(new Event("satang:lang"));
  });
  return button;
}

// ---- API ------------------------------------------------------------------------------------

function token() {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<Response>}
 */
async function request(method, path, body) {
  /** @type {Record<string, string>} */
  // The desk names itself, so each outcome it records says it came from the desk.
  const headers = { authorization: `Bearer ${token()}`, "x-satang-client": "desk" };
  if (body !== undefined) headers["content-type"] = "application/json";
  let response;
  try {
    response = await fetch(`${base}/admin/v1${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new Error(t("networkError"));
  }
  if (response.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    renderLogin(t("tokenRefused"));
    throw new Error("unauthorized");
  }
  return response;
}

/** @param {string} method @param {string} path @param {unknown} [body] */
async function call(method, path, body) {
  const response = await request(method, path, body);
  const envelope = await response.json();
  if (!envelope.success) {
    // A refusal that says when to try again (429, 503) says it in the operator's language too.
    const wait = Number(response.headers.get("retry-after") ?? envelope.error.metadata?.retryAfter);
    const retry = Number.isFinite(wait) && wait > 0 ? ` ${t("retryAfter", { seconds: String(wait) })}` : "";
    throw new Error(`${envelope.error.code}: ${envelope.error.message}${retry}`);
  }
  return envelope.data;
}

// ---- Views ----------------------------------------------------------------------------------

/** @param {string} [message] */
function renderLogin(message) {
  redraw = () => renderLogin(message === undefined ? undefined : t("tokenRefused"));
  const input = /** @type {HTMLInputElement} */ (
    el("input", { id: "token", type: "password", autocomplete: "off", required: "" })
  );
  const form = el("form", { id: "login" }, [
    el("div", { class: "row spread" }, [el("h1", {}, [t("deskTitle")]), langButton()]),
    el("p", {}, [t("signInIntro")]),
    el("label", { for: "token" }, [t("tokenLabel")]),
    input,
    el("button", { type: "submit" }, [t("signIn")]),
    el("p", { id: "notice", role: "alert" }, [message ?? ""]),
  ]);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    // The desk's own read checks the token alone; the undecided section (undecided.js) reads its
    // list once the token was accepted, so a mistyped token is one failed attempt, not two (the
    // operator API refuses an address after a number of them, docs/security.md).
    if (await showDesk()) document.dispatchEvent(new Event("satang:operator-token"));
    // A token the server did not accept (refused, throttled, or not reached) is not kept, so
    // nothing on the page sends it again on its own.
    else sessionStorage.removeItem(TOKEN_KEY);
  });
  root.replaceChildren(form);
  input.focus();
}

/**
 * Who created a batch: its label, and the operator token it came with when the label names
 * someone else (the token is what the audit log records; a label is only what the request said).
 * @param {Batch} batch
 */
function createdByText(batch) {
  const operator = batch.createdByOperator;
  if (operator === null || operator === batch.createdBy) return batch.createdBy;
  return t("createdByOperator", { name: batch.createdBy, operator });
}

/** @param {Batch} batch */
function batchRow(batch) {
  const open = el("button", { type: "button", class: "link" }, [batch.id.slice(0, 8)]);
  open.addEventListener("click", () => void showBatch(batch.id));
  return el("tr", { "data-batch": batch.id }, [
    el("td", {}, [open]),
    el("td", {}, [formatTime(batch.createdAt)]),
    el("td", { class: "created-by" }, [createdByText(batch)]),
    el("td", { class: `status ${batch.status}` }, [valueText("batchStatus", batch.status)]),
    el("td", { class: "num" }, [String(batch.itemCount)]),
    el("td", { class: "num amount" }, [thb(batch.totalAmount)]),
    el("td", {}, [
      t("outcomesSummary", { paid: batch.paidCount, failed: batch.failedCount, open: batch.openCount }),
    ]),
  ]);
}

function createForm() {
  const merchant = /** @type {HTMLInputElement} */ (
    el("input", { id: "merchant", placeholder: t("merchantPlaceholder") })
  );
  const max = /** @type {HTMLInputElement} */ (
    el("input", { id: "max", type: "number", min: "1", placeholder: "500" })
  );
  const by = /** @type {HTMLInputElement} */ (
    el("input", { id: "by", placeholder: t("createdByPlaceholder") })
  );
  const form = el("form", { id: "create", class: "row" }, [
    el("label", {}, [`${t("merchantId")} `, merchant]),
    el("label", {}, [`${t("atMost")} `, max]),
    el("label", {}, [`${t("createdBy")} `, by]),
    el("button", { type: "submit" }, [t("createBatch")]),
  ]);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    /** @type {Record<string, unknown>} */
    const body = {};
    if (merchant.value.trim()) body.merchantId = merchant.value.trim();
    if (max.value) body.maxCount = Number(max.value);
    if (by.value.trim()) body.createdBy = by.value.trim();
    try {
      const batch = await call("POST", "/payout-batches", body);
      await showBatch(batch.id, t("batchCreated", { count: batch.itemCount }));
    } catch (error) {
      notice(String(/** @type {Error} */ (error).message));
    }
  });
  return form;
}

/** @param {string[]} headings */
function headRow(headings) {
  return el("thead", {}, [
    el(
      "tr",
      {},
      headings.map((h) => el("th", { scope: "col" }, [h])),
    ),
  ]);
}

/** @returns {Promise<boolean>} whether the desk is on screen (the token was accepted) */
async function showDesk() {
  let list;
  try {
    list = await call("GET", "/payout-batches?limit=50");
  } catch (error) {
    if (/** @type {Error} */ (error).message !== "unauthorized")
      notice(String(/** @type {Error} */ (error).message));
    return false;
  }
  redraw = () => void showDesk();
  const rows = /** @type {Batch[]} */ (list.data).map(batchRow);
  root.replaceChildren(
    el("header", {}, [el("h1", {}, [t("deskTitle")]), langButton(), signOutButton()]),
    el("p", { id: "notice", role: "alert" }),
    el("h2", {}, [t("newBatchHeading")]),
    createForm(),
    el("h2", {}, [t("batchesHeading")]),
    rows.length === 0
      ? el("p", { id: "empty" }, [t("noBatches")])
      : el("table", { id: "batches" }, [
          headRow([
            t("colBatch"),
            t("colCreated"),
            t("colBy"),
            t("colStatus"),
            t("colItems"),
            t("colTotal"),
            t("colOutcomes"),
          ]),
          el("tbody", {}, rows),
        ]),
    el("p", { class: "muted" }, [t("timesNote")]),
  );
  return true;
}

function signOutButton() {
  const button = el("button", { type: "button", id: "signout" }, [t("signOut")]);
  button.addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    document.dispatchEvent(new Event("satang:operator-token"));
    renderLogin();
  });
  return button;
}

/** @param {string} batchId */
async function downloadCsv(batchId) {
  let response;
  try {
    response = await request("GET", `/payout-batches/${batchId}/csv`);
  } catch (error) {
    if (/** @type {Error} */ (error).message !== "unauthorized")
      notice(String(/** @type {Error} */ (error).message));
    return;
  }
  if (!response.ok) {
    notice(t("csvFailed"));
    return;
  }
  const url = URL.createObjectURL(await response.blob());
  const link = el("a", { href: url, download: `payout-batch-${batchId}.csv` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** @param {string} batchId @param {Item} item */
function outcomeCell(batchId, item) {
  if (item.outcome === "paid") {
    return el("td", { class: "outcome paid" }, [t("outcomePaid", { reference: item.bankReference ?? "" })]);
  }
  if (item.outcome === "failed") {
    return el("td", { class: "outcome failed" }, [t("outcomeFailed", { reason: item.failureReason ?? "" })]);
  }
  // Each control names its line, so a screen reader tells one row's "Paid" from the next.
  /** @param {string} control */
  const ofLine = (control) => t("lineControl", { control, position: item.position });
  const reference = /** @type {HTMLInputElement} */ (
    el("input", {
      placeholder: t("bankReferencePlaceholder"),
      name: "reference",
      "aria-label": ofLine(t("bankReferencePlaceholder")),
    })
  );
  const reason = /** @type {HTMLInputElement} */ (
    el("input", {
      placeholder: t("reasonPlaceholder"),
      name: "reason",
      "aria-label": ofLine(t("reasonPlaceholder")),
    })
  );
  const paid = el("button", { type: "button", name: "paid", "aria-label": ofLine(t("markPaid")) }, [
    t("markPaid"),
  ]);
  const failed = el("button", { type: "button", name: "failed", "aria-label": ofLine(t("markFailed")) }, [
    t("markFailed"),
  ]);
  // A refund line's outcome is recorded against the refund, a withdraw's against the withdraw.
  const refund = item.kind === "refund";
  const id = refund ? item.refundId : item.withdrawId;
  const path = refund
    ? `/payout-batches/${batchId}/refunds/${id}/outcome`
    : `/payout-batches/${batchId}/items/${id}/outcome`;
  /** @param {{ outcome: "paid" | "failed", bankReference?: string, reason?: string }} body */
  const record = async (body) => {
    try {
      await call("POST", path, body);
      await showBatch(
        batchId,
        t(refund ? "recordedRefund" : "recorded", {
          outcome: valueText("outcome", body.outcome),
          id: id ?? "",
        }),
      );
    } catch (error) {
      notice(String(/** @type {Error} */ (error).message));
    }
  };
  // An empty field is left out, so the server names what is missing.
  paid.addEventListener("click", () => {
    const value = reference.value.trim();
    void record(value ? { outcome: "paid", bankReference: value } : { outcome: "paid" });
  });
  failed.addEventListener("click", () => {
    const value = reason.value.trim();
    void record(value ? { outcome: "failed", reason: value } : { outcome: "failed" });
  });
  return el("td", { class: "outcome" }, [el("div", { class: "record" }, [reference, paid, reason, failed])]);
}

/** The line's bank: its code and its name in the page's language. @param {Item} item */
function bankText(item) {
  const name = lang === "th" ? (item.bankNameTh ?? item.bankName) : item.bankName;
  return `${item.bankCode} ${name ?? ""}`.trim();
}

/**
 * One line of the batch. A refund line is marked as such: a "Refund" label beside its destination,
 * the refund's id in the id column, and the refund's status.
 * @param {string} batchId @param {Item} item
 */
function itemRow(batchId, item) {
  if (item.kind === "refund") return refundRow(batchId, item);
  return el("tr", { "data-withdraw": item.withdrawId ?? "" }, [
    el("td", { class: "num" }, [String(item.position)]),
    el("td", { class: "destination" }, [valueText("destination", item.destinationType)]),
    el("td", { class: "bank" }, [bankText(item)]),
    el("td", { class: "mono" }, [item.bankAccountNumber]),
    el("td", {}, [item.bankAccountName]),
    el("td", { class: "num amount" }, [thb(item.amount)]),
    el("td", { class: "reference" }, [item.referenceId]),
    el("td", { class: "withdraw mono" }, [item.withdrawId ?? ""]),
    el("td", { class: `withdraw-status ${item.withdrawStatus}` }, [
      valueText("withdrawStatus", item.withdrawStatus ?? ""),
    ]),
    outcomeCell(batchId, item),
    el("td", { class: "recorded-by" }, [recordedByText(item)]),
  ]);
}

/** @param {string} batchId @param {Item} item */
function refundRow(batchId, item) {
  return el("tr", { "data-refund": item.refundId ?? "", class: "refund-line" }, [
    el("td", { class: "num" }, [String(item.position)]),
    el("td", { class: "destination" }, [
      el("span", { class: "line-kind refund" }, [t("refundLine")]),
      ` ${valueText("destination", item.destinationType)}`,
    ]),
    el("td", { class: "bank" }, [bankText(item)]),
    el("td", { class: "mono" }, [item.bankAccountNumber]),
    el("td", {}, [item.bankAccountName]),
    el("td", { class: "num amount" }, [thb(item.amount)]),
    el("td", { class: "reference" }, [item.referenceId]),
    el("td", { class: "refund mono" }, [`${t("refundLine")} ${item.refundId ?? ""}`]),
    el("td", { class: `refund-status ${item.refundStatus}` }, [
      valueText("refundStatus", item.refundStatus ?? ""),
    ]),
    outcomeCell(batchId, item),
    el("td", { class: "recorded-by" }, [recordedByText(item)]),
  ]);
}

/** @param {string} batchId @param {string} [message] */
async function showBatch(batchId, message) {
  /** @type {Batch} */
  let batch;
  try {
    batch = await call("GET", `/payout-batches/${batchId}`);
  } catch (error) {
    if (/** @type {Error} */ (error).message !== "unauthorized")
      notice(String(/** @type {Error} */ (error).message));
    return;
  }
  redraw = () => void showBatch(batchId);
  const back = el("button", { type: "button", id: "back" }, [t("allBatches")]);
  back.addEventListener("click", () => void showDesk());
  const csv = el("button", { type: "button", id: "csv" }, [t("downloadCsv")]);
  csv.addEventListener("click", () => void downloadCsv(batch.id));
  root.replaceChildren(
    el("header", {}, [el("h1", {}, [t("deskTitle")]), back, langButton(), signOutButton()]),
    el("p", { id: "notice", role: "status", class: message ? "notice ok" : "notice" }, [message ?? ""]),
    el("h2", { id: "batch-title" }, [
      t("batchTitle", { id: batch.id, status: valueText("batchStatus", batch.status) }),
    ]),
    el("p", { id: "batch-summary" }, [
      t("batchSummary", {
        count: batch.itemCount,
        refunds: refundCount(batch),
        withdraws: batch.itemCount - refundCount(batch),
        total: thb(batch.totalAmount),
        paid: batch.paidCount,
        paidAmount: thb(batch.paidAmount),
        failed: batch.failedCount,
        open: batch.openCount,
        by: createdByText(batch),
      }),
    ]),
    el("p", { id: "units", class: "muted" }, [t("amountsNote")]),
    el("div", { class: "row" }, [csv]),
    el("div", { class: "scroll" }, [
      el("table", { id: "items" }, [
        headRow([
          t("colPosition"),
          t("colDestination"),
          t("colBank"),
          t("colAccount"),
          t("colName"),
          t("colAmount"),
          t("colReference"),
          t("colWithdraw"),
          t("colWithdrawStatus"),
          t("colOutcome"),
          t("colRecordedBy"),
        ]),
        el(
          "tbody",
          {},
          (batch.items ?? []).map((item) => itemRow(batch.id, item)),
        ),
      ]),
    ]),
  );
}

applyLang();
// The undecided section's read was refused (its token revoked): sign in again, as for the desk's own.
document.addEventListener("satang:operator-token-refused", () => renderLogin(t("tokenRefused")));
if (token()) void showDesk();
else renderLogin();
