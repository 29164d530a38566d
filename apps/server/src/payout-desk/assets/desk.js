// @ts-check
/**
 * The payout desk page (docs/payout-desk.md): the operator signs in with the operator token,
 * lists batches, creates one from pending withdraws, downloads its CSV and records each
 * outcome. Every call goes to the operator API under /admin/v1 with the token as a Bearer
 * token; the token is kept in this tab's sessionStorage only. Text from the server is always
 * set as text, never parsed as HTML.
 */

const TOKEN_KEY = "satang.operatorToken";
const base = document.documentElement.dataset.base ?? "";
const root = /** @type {HTMLElement} */ (document.getElementById("app"));

/** @typedef {{ position: number, withdrawId: string, referenceId: string, amount: string, bankCode: string, bankName: string | null, bankAccountNumber: string, bankAccountName: string, withdrawStatus: string, outcome: string | null, bankReference: string | null, failureReason: string | null }} Item */
/** @typedef {{ id: string, status: string, createdBy: string, itemCount: number, totalAmount: string, paidCount: number, failedCount: number, openCount: number, createdAt: string, items?: Item[] }} Batch */

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

/** @param {string} text @param {string} [kind] */
function notice(text, kind = "error") {
  const box = document.getElementById("notice");
  if (!box) return;
  box.className = `notice ${kind}`;
  box.textContent = text;
}

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
  const headers = { authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 401) {
    sessionStorage.removeItem(TOKEN_KEY);
    renderLogin("The operator token was refused.");
    throw new Error("unauthorized");
  }
  return response;
}

/** @param {string} method @param {string} path @param {unknown} [body] */
async function call(method, path, body) {
  const response = await request(method, path, body);
  const envelope = await response.json();
  if (!envelope.success) throw new Error(`${envelope.error.code}: ${envelope.error.message}`);
  return envelope.data;
}

/** @param {string} [message] */
function renderLogin(message) {
  const input = /** @type {HTMLInputElement} */ (
    el("input", { id: "token", type: "password", autocomplete: "off", required: "" })
  );
  const form = el("form", { id: "login" }, [
    el("h1", {}, ["Payout desk"]),
    el("p", {}, ["Sign in with the operator token (ADMIN_TOKEN)."]),
    el("label", { for: "token" }, ["Operator token"]),
    input,
    el("button", { type: "submit" }, ["Sign in"]),
    el("p", { id: "notice", role: "alert" }, [message ?? ""]),
  ]);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    void showDesk();
  });
  root.replaceChildren(form);
  input.focus();
}

/** @param {Batch} batch */
function batchRow(batch) {
  const open = el("button", { type: "button", class: "link" }, [batch.id.slice(0, 8)]);
  open.addEventListener("click", () => void showBatch(batch.id));
  return el("tr", { "data-batch": batch.id }, [
    el("td", {}, [open]),
    el("td", {}, [new Date(batch.createdAt).toLocaleString()]),
    el("td", {}, [batch.createdBy]),
    el("td", { class: `status ${batch.status}` }, [batch.status]),
    el("td", { class: "num" }, [String(batch.itemCount)]),
    el("td", { class: "num" }, [batch.totalAmount]),
    el("td", {}, [`${batch.paidCount} paid, ${batch.failedCount} failed, ${batch.openCount} open`]),
  ]);
}

function createForm() {
  const merchant = /** @type {HTMLInputElement} */ (
    el("input", { id: "merchant", placeholder: "all merchants" })
  );
  const max = /** @type {HTMLInputElement} */ (
    el("input", { id: "max", type: "number", min: "1", placeholder: "500" })
  );
  const by = /** @type {HTMLInputElement} */ (el("input", { id: "by", placeholder: "your name" }));
  const form = el("form", { id: "create", class: "row" }, [
    el("label", {}, ["Merchant id ", merchant]),
    el("label", {}, ["At most ", max]),
    el("label", {}, ["Created by ", by]),
    el("button", { type: "submit" }, ["Create batch"]),
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
      await showBatch(batch.id, `Batch created with ${batch.itemCount} withdraws.`);
    } catch (error) {
      notice(String(/** @type {Error} */ (error).message));
    }
  });
  return form;
}

async function showDesk() {
  let list;
  try {
    list = await call("GET", "/payout-batches?limit=50");
  } catch (error) {
    if (/** @type {Error} */ (error).message !== "unauthorized") notice(String(error));
    return;
  }
  const rows = /** @type {Batch[]} */ (list.data).map(batchRow);
  root.replaceChildren(
    el("header", {}, [el("h1", {}, ["Payout desk"]), signOutButton()]),
    el("p", { id: "notice", role: "alert" }),
    el("h2", {}, ["New batch from pending withdraws"]),
    createForm(),
    el("h2", {}, ["Batches"]),
    rows.length === 0
      ? el("p", { id: "empty" }, ["No batches yet."])
      : el("table", { id: "batches" }, [
          el("thead", {}, [
            el(
              "tr",
              {},
              ["Batch", "Created", "By", "Status", "Items", "Total", "Outcomes"].map((h) =>
                el("th", {}, [h]),
              ),
            ),
          ]),
          el("tbody", {}, rows),
        ]),
  );
}

function signOutButton() {
  const button = el("button", { type: "button", id: "signout" }, ["Sign out"]);
  button.addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    renderLogin();
  });
  return button;
}

/** @param {string} batchId */
async function downloadCsv(batchId) {
  const response = await request("GET", `/payout-batches/${batchId}/csv`);
  if (!response.ok) {
    notice("The CSV could not be downloaded.");
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
  if (item.outcome === "paid") return el("td", { class: "paid" }, [`paid · ${item.bankReference}`]);
  if (item.outcome === "failed") return el("td", { class: "failed" }, [`failed · ${item.failureReason}`]);
  const reference = /** @type {HTMLInputElement} */ (
    el("input", { placeholder: "bank reference", name: "reference" })
  );
  const reason = /** @type {HTMLInputElement} */ (el("input", { placeholder: "reason", name: "reason" }));
  const paid = el("button", { type: "button", name: "paid" }, ["Paid"]);
  const failed = el("button", { type: "button", name: "failed" }, ["Failed"]);
  /** @param {Record<string, string>} body */
  const record = async (body) => {
    try {
      await call("POST", `/payout-batches/${batchId}/items/${item.withdrawId}/outcome`, body);
      await showBatch(batchId, `Recorded ${body.outcome} for withdraw ${item.withdrawId}.`);
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
  return el("td", { class: "record" }, [reference, paid, reason, failed]);
}

/** @param {string} batchId @param {string} [message] */
async function showBatch(batchId, message) {
  /** @type {Batch} */
  let batch;
  try {
    batch = await call("GET", `/payout-batches/${batchId}`);
  } catch (error) {
    notice(String(/** @type {Error} */ (error).message));
    return;
  }
  const back = el("button", { type: "button", id: "back" }, ["All batches"]);
  back.addEventListener("click", () => void showDesk());
  const csv = el("button", { type: "button", id: "csv" }, ["Download CSV"]);
  csv.addEventListener("click", () => void downloadCsv(batch.id));
  const rows = (batch.items ?? []).map((item) =>
    el("tr", { "data-withdraw": item.withdrawId }, [
      el("td", { class: "num" }, [String(item.position)]),
      el("td", {}, [`${item.bankCode} ${item.bankName ?? ""}`]),
      el("td", {}, [item.bankAccountNumber]),
      el("td", {}, [item.bankAccountName]),
      el("td", { class: "num" }, [item.amount]),
      el("td", {}, [item.referenceId]),
      el("td", {}, [item.withdrawStatus]),
      outcomeCell(batch.id, item),
    ]),
  );
  root.replaceChildren(
    el("header", {}, [el("h1", {}, ["Payout desk"]), back, signOutButton()]),
    el("p", { id: "notice", role: "status", class: message ? "notice ok" : "notice" }, [message ?? ""]),
    el("h2", { id: "batch-title" }, [`Batch ${batch.id} (${batch.status})`]),
    el("p", { id: "batch-summary" }, [
      `${batch.itemCount} withdraws, total ${batch.totalAmount} (satang); ${batch.paidCount} paid, ` +
        `${batch.failedCount} failed, ${batch.openCount} open. Created by ${batch.createdBy}.`,
    ]),
    el("div", { class: "row" }, [csv]),
    el("table", { id: "items" }, [
      el("thead", {}, [
        el(
          "tr",
          {},
          ["#", "Bank", "Account", "Name", "Amount", "Reference", "Withdraw", "Outcome"].map((h) =>
            el("th", {}, [h]),
          ),
        ),
      ]),
      el("tbody", {}, rows),
    ]),
  );
}

if (token()) void showDesk();
else renderLogin();

// A module of its own (no globals shared with the other pages' scripts).
export {};
