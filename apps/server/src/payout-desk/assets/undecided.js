// @ts-check
/**
 * The payout desk's undecided-payouts section (CONTRACT 15, docs/payout-desk.md): payouts a
 * connector holds undecided past PAYOUT_UNDECIDED_ALERT_S, with the bank's last answers, and a
 * form to resolve each one paid or failed with the reason and the bank's reference. It lives in
 * its own section beside the batches (which desk.js renders) and uses the same operator token
 * from this tab's sessionStorage. Text from the server is always set as text, never as HTML.
 */

const TOKEN_KEY = "satang.operatorToken";
const base = document.documentElement.dataset.base ?? "";
const section = /** @type {HTMLElement} */ (document.getElementById("undecided"));

/**
 * A wire amount (a decimal string of satang, as every amount of the API) in Thai baht with its
 * unit, as the bank's screens and the desk's batches show it: "150000.00" -> "฿1,500.00".
 * @param {string} wire
 */
function thb(wire) {
  const satang = BigInt(String(wire).split(".")[0] || "0");
  const baht = new Intl.NumberFormat("en-US").format(satang / 100n);
  return `฿${baht}.${String(satang % 100n).padStart(2, "0")}`;
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
  const headers = { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) ?? ""}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = await response.json().catch(() => null);
  if (!response.ok) throw new Error(payload?.error?.message ?? `HTTP ${response.status}`);
  return payload.data;
}

/** @param {BankAnswer} a */
function answerText(a) {
  const said = a.answer?.status ? ` ${a.answer.status.code} ${a.answer.status.description ?? ""}` : "";
  return `${a.at} ${a.operation}: ${a.httpStatus === null ? `no answer (${a.error ?? "unknown"})` : `HTTP ${a.httpStatus}`}${said}`;
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
  const outcome = el("select", { name: "outcome", "aria-label": "Outcome" }, [
    el("option", { value: "paid" }, ["paid (hold consumed)"]),
    el("option", { value: "failed" }, [
      kind === "refund"
        ? "failed (hold returned where it came from)"
        : "failed (hold returned to the wallet)",
    ]),
  ]);
  const reason = el("input", {
    name: "reason",
    required: "",
    maxlength: "500",
    placeholder: "Reason (what the bank said)",
  });
  const reference = el("input", {
    name: "bankReference",
    maxlength: "100",
    placeholder: "Bank reference (optional)",
  });
  const status = el("span", { role: "status" });
  const form = el("form", { class: "resolve" }, [
    outcome,
    reason,
    reference,
    el("button", { type: "submit" }, ["Resolve"]),
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
      status.textContent = `Resolved: ${kind} is now ${data[kind].status}`;
      setTimeout(load, 1_000);
    } catch (error) {
      status.textContent = `Refused: ${error instanceof Error ? error.message : String(error)}`;
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
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join(", ")
    : "none";
  return el("article", { class: "undecided-item" }, [
    el("h3", {}, [`${thb(row.amount)}, ${kind} ${id}`]),
    el("p", {}, [
      `Reference ${row.referenceId}, merchant ${row.merchantId}, ${row.provider}, undecided ${hours} h`,
    ]),
    el("p", {}, [`Last error: ${row.lastError ?? "none"}`]),
    el("p", {}, [`Transfer: ${transfer}`]),
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
      el("h2", {}, [`Undecided payouts (${data.total})`]),
      el("p", {}, [
        rows.length === 0
          ? "None: every payout the bank holds is decided or within its bound."
          : "The bank's answers leave these undecided. Check the bank's statement or ask the bank, then resolve each one. Amounts in THB.",
      ]),
      ...rows.map(rowView),
    );
  } catch (error) {
    section.replaceChildren(
      el("p", { class: "notice error" }, [
        `Undecided payouts: ${error instanceof Error ? error.message : String(error)}`,
      ]),
    );
  }
}

// The token is entered in desk.js's sign-in, which says so (and so does signing out); look again
// every half minute.
load();
document.addEventListener("satang:operator-token", () => void load());
setInterval(load, 30_000);
