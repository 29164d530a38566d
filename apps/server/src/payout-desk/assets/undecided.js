// @ts-check
/**
 * The payout desk's undecided-payouts section (CONTRACT 15, docs/payout-desk.md): payouts a
 * connector holds undecided past PAYOUT_UNDECIDED_ALERT_S, with the bank's last answers, and a
 * form to resolve each one paid or failed with the reason and the bank's reference. It lives in
 * its own section beside the batches (which desk.js renders) and uses the same operator token
 * from this tab's sessionStorage. Text from the server is always set as text, never as HTML.
 */

/** @import { MessageKey } from "./i18n.js" */
import { MESSAGES } from "./i18n.js";

const TOKEN_KEY = "satang.operatorToken";
const base = document.documentElement.dataset.base ?? "";
const section = /** @type {HTMLElement} */ (document.getElementById("undecided"));

/**
 * The page's language, as desk.js chooses it: the one saved by either page's switch (which says
 * so with `satang:lang`), else the one the server chose from Accept-Language.
 */
function lang() {
  const saved = localStorage.getItem("satang.dashboard.lang");
  if (saved === "th" || saved === "en") return saved;
  return document.documentElement.lang === "th" ? "th" : "en";
}

/**
 * The text of `key` in the page's language (i18n.js, shared with desk.js), its {placeholders}
 * filled from `vars`.
 * @param {MessageKey} key
 * @param {Record<string, string | number>} [vars]
 */
function t(key, vars = {}) {
  const text = MESSAGES[lang()][key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/**
 * A wire amount (a decimal string of satang, as every amount of the API) in Thai baht with its
 * unit, as the bank's screens and the desk's batches show it: "150000.00" -> "฿1,500.00".
 * @param {string} wire
 */
function thb(wire) {
  const satang = BigInt(String(wire).split(".")[0] || "0");
  const baht = new Intl.NumberFormat(lang() === "th" ? "th-TH" : "en-GB").format(satang / 100n);
  return `฿${baht}.${String(satang % 100n).padStart(2, "0")}`;
}

/**
 * A time from the server in Bangkok time, as the rest of the desk shows times (the page says
 * so); text that is not a time is shown as it is.
 * @param {string} iso
 */
function bangkokTime(iso) {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return new Intl.DateTimeFormat(lang() === "th" ? "th-TH" : "en-GB", {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: "Asia/Bangkok",
  }).format(at);
}

/** @typedef {{ at: string, operation: string, httpStatus: number | null, answer: any, error: string | null }} BankAnswer */
/** @typedef {{ subjectType?: "withdraw" | "refund", withdrawId: string | null, refundId?: string | null, merchantId: string, referenceId: string, amount: string, provider: string, lastError: string | null, undecidedSeconds: number, bank: { transfer: Record<string, unknown> | null, lastAnswers: BankAnswer[] } | null }} Undecided */

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

/** @param {string} method @param {string} path @param {unknown} [body] */
async function call(method, path, body) {
  /** @type {Record<string, string>} */
  // The page is the desk: its actions are recorded as coming through it (recordedVia, audit `via`).
  const headers = {
    authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ""}`,
    "x-satang-client": "desk",
  };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = await response.json().catch(() => null);
  if (response.status === 401) {
    // A refused token (revoked meanwhile) is forgotten, so the half-minute reads do not send it
    // again and again: each would be a failed attempt of this address (docs/security.md).
    sessionStorage.removeItem(TOKEN_KEY);
    document.dispatchEvent(new Event("satang:operator-token-refused"));
  }
  if (!response.ok) throw new Error(payload?.error?.message ?? `HTTP ${response.status}`);
  return payload.data;
}

/** @param {BankAnswer} a */
function answerText(a) {
  const said = a.answer?.status ? ` ${a.answer.status.code} ${a.answer.status.description ?? ""}` : "";
  const http =
    a.httpStatus === null ? t("undecidedNoAnswer", { error: a.error ?? "?" }) : `HTTP ${a.httpStatus}`;
  return `${bangkokTime(a.at)} ${a.operation}: ${http}${said}`;
}

/**
 * What an undecided payout pays, and the id it is resolved under: a withdraw, or a refund.
 * @param {Undecided} row
 * @returns {{ kind: "withdraw" | "refund", id: string }}
 */
function subjectOf(row) {
  return row.subjectType === "refund"
    ? { kind: "refund", id: row.refundId ?? "" }
    : { kind: "withdraw", id: row.withdrawId ?? "" };
}

/** @param {Undecided} row */
function resolveForm(row) {
  const { kind, id } = subjectOf(row);
  const outcome = el("select", { name: "outcome", "aria-label": t("resolveOutcome") }, [
    el("option", { value: "paid" }, [t("resolvePaid")]),
    el("option", { value: "failed" }, [
      t(kind === "refund" ? "resolveFailedRefund" : "resolveFailedWithdraw"),
    ]),
  ]);
  const reason = el("input", {
    name: "reason",
    required: "",
    maxlength: "500",
    placeholder: t("resolveReason"),
  });
  const reference = el("input", {
    name: "bankReference",
    maxlength: "100",
    placeholder: t("resolveReference"),
  });
  const status = el("span", { role: "status" });
  const form = el("form", { class: "resolve" }, [
    outcome,
    reason,
    reference,
    el("button", { type: "submit" }, [t("resolveButton")]),
    status,
  ]);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const bankReference = /** @type {HTMLInputElement} */ (reference).value;
    const body = {
      outcome: /** @type {HTMLSelectElement} */ (outcome).value,
      reason: /** @type {HTMLInputElement} */ (reason).value,
      ...(bankReference ? { bankReference } : {}),
    };
    try {
      const data = await call("POST", `/${kind}s/${encodeURIComponent(id)}/resolve`, body);
      status.textContent = t("resolvedStatus", { kind: t(`subject.${kind}`), status: data[kind].status });
      setTimeout(load, 1_000);
    } catch (error) {
      status.textContent = t("resolveRefused", {
        message: error instanceof Error ? error.message : String(error),
      });
    }
  });
  return form;
}

/** @param {Undecided} row */
function rowView(row) {
  const { kind, id } = subjectOf(row);
  const hours = (row.undecidedSeconds / 3600).toFixed(1);
  const answers = (row.bank?.lastAnswers ?? []).map((a) => el("li", {}, [answerText(a)]));
  const transfer = row.bank?.transfer
    ? Object.entries(row.bank.transfer)
        .map(([k, v]) => `${k}: ${k.endsWith("At") && typeof v === "string" ? bangkokTime(v) : String(v)}`)
        .join(", ")
    : t("undecidedNothing");
  return el("article", { class: "undecided-item" }, [
    el("h3", {}, [t("undecidedTitle", { amount: thb(row.amount), kind: t(`subject.${kind}`), id })]),
    el("p", {}, [
      t("undecidedDetails", {
        reference: row.referenceId,
        merchant: row.merchantId,
        provider: row.provider,
        hours,
      }),
    ]),
    el("p", {}, [t("undecidedLastError", { error: row.lastError ?? t("undecidedNothing") })]),
    el("p", {}, [t("undecidedTransfer", { transfer })]),
    el("ul", {}, answers),
    resolveForm(row),
  ]);
}

async function load() {
  if (!sessionStorage.getItem(TOKEN_KEY)) {
    section.replaceChildren();
    return;
  }
  try {
    const data = await call("GET", "/payouts/undecided?limit=100");
    /** @type {Undecided[]} */
    const rows = data.data;
    section.replaceChildren(
      el("h2", {}, [t("undecidedHeading", { count: data.total })]),
      el("p", {}, [t(rows.length === 0 ? "undecidedNone" : "undecidedIntro")]),
      ...rows.map(rowView),
    );
  } catch (error) {
    section.replaceChildren(
      el("p", { class: "notice error" }, [
        t("undecidedLoadFailed", { message: error instanceof Error ? error.message : String(error) }),
      ]),
    );
  }
}

// The token is entered in desk.js's sign-in, which says so (and so does signing out); look again
// every half minute.
load();
document.addEventListener("satang:operator-token", () => void load());
document.addEventListener("satang:lang", () => void load());
setInterval(load, 30_000);
