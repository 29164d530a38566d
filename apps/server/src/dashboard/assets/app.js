// The Satang merchant dashboard: a small single-page app in plain JavaScript, no build step and
// no third-party code (docs/dashboard.md says why). It talks to /api/v1/auth (login, logout)
// and /dashboard/api (everything else) with the session token, kept in sessionStorage so that
// it ends with the browser tab. Routes live in the URL fragment (#/payments?status=...), so
// filters and pages survive a reload and the back button works. Text is only ever inserted as
// text nodes, never as HTML.

import { LANGS, MESSAGES } from "./i18n.js";

const root = document.documentElement;
const BASE = root.dataset.base || "";
const API = `${BASE}/dashboard/api`;
const SESSION_KEY = "satang.dashboard.session";
const LANG_KEY = "satang.dashboard.lang";
const TIME_ZONE = "Asia/Bangkok";
const PAGE_SIZES = [10, 25, 50, 100];
const RECENT_LIMIT = 5;
/** setTimeout's largest delay; a longer session simply re-arms the timer when it fires. */
const TIMER_MAX_MS = 2_147_483_647;

const PAYMENT_STATUSES = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "succeeded",
  "canceled",
  "expired",
  "payment_failed",
];
const WITHDRAW_STATUSES = [
  "awaiting_verification",
  "pending",
  "processing",
  "paid",
  "failed",
  "canceled",
  "expired",
];
const PAYMENT_METHODS = ["promptpay", "bank_transfer"];
const DESTINATION_TYPES = ["bank_account", "wallet"];
const EVENT_TYPES = [
  "payment.received",
  "payment.failed",
  "payment.expired",
  "payment.canceled",
  "withdraw.processing",
  "withdraw.paid",
  "withdraw.failed",
  "withdraw.canceled",
];

/** The colour family of a status badge; text colours all meet WCAG AA on their backgrounds. */
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

// ---------------------------------------------------------------------------------------------
// State

const state = {
  lang: initialLang(),
  /** { token, expiresAt } or null. */
  session: readSession(),
  /** GET /me of the current session. */
  me: null,
  /** The last list URL of each section, so "back" returns to the same filters and page. */
  lastList: {},
  /** A one-time message shown at the top of the next view. */
  flash: null,
  /** The secret of a key created a moment ago: shown once, never stored. */
  newKey: null,
  /** The path of the view on screen, to tell a new page from new filters on the same page. */
  shownPath: null,
  renderTicket: 0,
  expiryTimer: 0,
  /** Whether the first view after the page loaded is still to come: it leaves focus alone. */
  firstView: true,
  /** A selector to focus after the next render instead of the usual target. */
  focusNext: null,
};

function initialLang() {
  const saved = localStorage.getItem(LANG_KEY);
  if (LANGS.includes(saved)) return saved;
  return (navigator.language || "").toLowerCase().startsWith("th") ? "th" : "en";
}

function readSession() {
  try {
    const session = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null");
    if (session && typeof session.token === "string" && Date.parse(session.expiresAt) > Date.now()) {
      return session;
    }
  } catch {
    // A damaged entry is the same as none.
  }
  sessionStorage.removeItem(SESSION_KEY);
  return null;
}

// ---------------------------------------------------------------------------------------------
// Text and formatting

function t(key, vars = {}) {
  const text = MESSAGES[state.lang][key] ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

function locale() {
  return state.lang === "th" ? "th-TH" : "en-GB";
}

function formatTime(iso) {
  if (!iso) return t("none");
  return new Intl.DateTimeFormat(locale(), {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: TIME_ZONE,
  }).format(new Date(iso));
}

/**
 * Amounts are exact: a wire amount is a decimal string of satang ("123450.00" is 1,234.50 THB)
 * and a balance a whole number of satang; both are converted with BigInt, never floats.
 */
function formatSatang(value) {
  const text = typeof value === "number" ? String(Math.trunc(value)) : String(value).split(".")[0];
  let satang = BigInt(text);
  const negative = satang < 0n;
  if (negative) satang = -satang;
  const baht = new Intl.NumberFormat(locale()).format(satang / 100n);
  const cents = String(satang % 100n).padStart(2, "0");
  return `${negative ? "−" : ""}฿${baht}.${cents}`;
}

/** YYYY-MM-DD of the day after a date input's value. */
function nextDay(date) {
  const [year, month, day] = date.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// DOM

/** Creates an element. Strings become text nodes; null, undefined and false are skipped. */
function h(tag, props, ...children) {
  const element = document.createElement(tag);
  let value;
  for (const [key, prop] of Object.entries(props || {})) {
    if (prop === undefined || prop === null || prop === false) continue;
    if (key.startsWith("on") && typeof prop === "function") {
      element.addEventListener(key.slice(2).toLowerCase(), prop);
    } else if (key === "class") {
      element.className = prop;
    } else if (key === "value") {
      value = prop;
    } else {
      element.setAttribute(key, prop === true ? "" : String(prop));
    }
  }
  append(element, children);
  // A select's value can only be set once its options exist.
  if (value !== undefined) element.value = value;
  return element;
}

function append(element, children) {
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

let idCounter = 0;
function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

function badge(status, label) {
  return h("span", { class: `badge tone-${TONES[status] || "muted"}` }, label);
}

function link(href, text, props = {}) {
  return h("a", { href, ...props }, text);
}

/**
 * A table with its caption. On a phone the style sheet stacks each row into a card, each cell
 * under its column's name (data-label), so nothing scrolls sideways; the explicit roles keep it
 * a table for assistive technology when its display changes. Its wrapper still scrolls, as a
 * safety net, and Chromium makes such a scroller reachable by keyboard.
 */
function table(caption, heads, rows, options = {}) {
  for (const row of rows) {
    for (const [index, cell] of [...row.children].entries()) {
      cell.setAttribute("role", "cell");
      cell.dataset.label = heads[index] ?? "";
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

function definitionList(entries) {
  return h(
    "dl",
    { class: "fields" },
    entries.map(([term, value]) => h("div", null, h("dt", null, term), h("dd", null, value ?? t("none")))),
  );
}

function alertBox(text) {
  return h("p", { class: "alert", role: "alert" }, text);
}

// ---------------------------------------------------------------------------------------------
// Server

class SessionEnded extends Error {}

class ApiError extends Error {
  constructor(status, code, message, metadata) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.metadata = metadata || {};
  }
}

async function request(url, method, body, token) {
  const headers = { accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    throw new ApiError(0, "NETWORK", t("networkError"));
  }
  const json = await response.json().catch(() => null);
  if (json?.success === true) return json.data;
  const error = json?.error || {};
  throw new ApiError(response.status, error.code || `HTTP_${response.status}`, error.message, error.metadata);
}

/** A dashboard API call with the session; a refused session returns the user to the login. */
async function api(method, path, body) {
  if (!state.session) throw new SessionEnded();
  try {
    return await request(`${API}${path}`, method, body, state.session.token);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      endSession("sessionExpired");
      throw new SessionEnded();
    }
    throw error;
  }
}

function describeError(error) {
  if (error instanceof ApiError && error.code === "NETWORK") return t("networkError");
  if (error instanceof ApiError && error.code === "VALIDATION_ERROR" && error.metadata.field) {
    return t("invalidFilter", { field: error.metadata.field });
  }
  return t("requestFailed", { code: error instanceof ApiError ? error.code : "ERROR" });
}

// ---------------------------------------------------------------------------------------------
// Session

function startSession(session) {
  state.session = { token: session.token, expiresAt: session.expiresAt };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(state.session));
  armExpiryTimer();
}

function armExpiryTimer() {
  clearTimeout(state.expiryTimer);
  if (!state.session) return;
  const left = Date.parse(state.session.expiresAt) - Date.now();
  state.expiryTimer = setTimeout(
    () => {
      if (state.session && Date.parse(state.session.expiresAt) <= Date.now()) endSession("sessionExpired");
      else armExpiryTimer();
    },
    Math.min(Math.max(left, 0), TIMER_MAX_MS),
  );
}

function endSession(messageKey) {
  clearTimeout(state.expiryTimer);
  // Views still loading for the old session must not draw over the login form.
  state.renderTicket += 1;
  state.session = null;
  state.me = null;
  state.newKey = null;
  sessionStorage.removeItem(SESSION_KEY);
  renderLogin(messageKey);
}

async function logout() {
  const token = state.session?.token;
  // The session ends here whatever the server says: the user asked to leave.
  if (token) await request(`${BASE}/api/v1/auth/logout`, "POST", undefined, token).catch(() => {});
  endSession("loggedOut");
}

// ---------------------------------------------------------------------------------------------
// Language

function setLang(lang) {
  state.lang = lang;
  localStorage.setItem(LANG_KEY, lang);
  applyLang();
}

function applyLang() {
  root.lang = state.lang;
  document.title = t("appTitle");
}

function langButton(onSwitch) {
  const other = state.lang === "th" ? "en" : "th";
  return h(
    "button",
    {
      type: "button",
      class: "button secondary lang",
      lang: other,
      "aria-label": t("switchLanguageLabel"),
      onclick: () => {
        setLang(other);
        state.focusNext = "button.lang";
        onSwitch();
      },
    },
    t("switchLanguage"),
  );
}

// ---------------------------------------------------------------------------------------------
// Login

function renderLogin(messageKey, keep = {}) {
  state.shownPath = null;
  applyLang();
  const app = document.getElementById("app");
  const errorId = uid("login-error");
  const message = h(
    "p",
    { id: errorId, class: "alert", role: "alert", hidden: !messageKey },
    messageKey ? t(messageKey) : "",
  );
  if (messageKey === "loggedOut" || messageKey === "sessionExpired") message.className = "notice";
  const email = h("input", {
    id: "login-email",
    name: "email",
    type: "email",
    autocomplete: "username",
    required: true,
    value: keep.email ?? "",
  });
  const password = h("input", {
    id: "login-password",
    name: "password",
    type: "password",
    autocomplete: "current-password",
    required: true,
  });
  const submit = h("button", { type: "submit", class: "button primary" }, t("signIn"));

  async function onSubmit(event) {
    event.preventDefault();
    submit.disabled = true;
    submit.textContent = t("signingIn");
    try {
      const session = await request(`${BASE}/api/v1/auth/login`, "POST", {
        email: email.value,
        password: password.value,
      });
      startSession(session);
      // The form the user was in is gone: the dashboard's heading takes the focus.
      state.firstView = false;
      await render();
    } catch (error) {
      let text = describeError(error);
      if (error instanceof ApiError && ["INVALID_CREDENTIALS", "VALIDATION_ERROR"].includes(error.code)) {
        text = t("loginFailed");
      }
      if (error instanceof ApiError && error.code === "RATE_LIMIT_EXCEEDED") {
        text = t("loginLocked", { minutes: Math.max(1, Math.ceil((error.metadata.retryAfter || 60) / 60)) });
      }
      if (error instanceof ApiError && error.code === "AUTHENTICATION_ERROR")
        text = t("loginMerchantDisabled");
      message.className = "alert";
      message.textContent = text;
      message.hidden = false;
      for (const input of [email, password]) {
        input.setAttribute("aria-invalid", "true");
        input.setAttribute("aria-describedby", errorId);
      }
      password.value = "";
      password.focus();
      submit.disabled = false;
      submit.textContent = t("signIn");
    }
  }

  replace(
    app,
    h(
      "div",
      { class: "login-page" },
      h(
        "header",
        { class: "login-top" },
        h("span", { class: "brand" }, t("brand")),
        langButton(() => renderLogin(messageKey, { email: email.value })),
      ),
      h(
        "main",
        { id: "main", class: "login-main" },
        h(
          "form",
          { class: "card login-card", onsubmit: onSubmit, "aria-labelledby": "login-title" },
          h("h1", { id: "login-title" }, t("loginTitle")),
          h("p", { class: "muted" }, t("loginIntro")),
          message,
          h("div", { class: "field" }, h("label", { for: "login-email" }, t("email")), email),
          h("div", { class: "field" }, h("label", { for: "login-password" }, t("password")), password),
          submit,
        ),
      ),
    ),
  );
  const focus = state.focusNext ? app.querySelector(state.focusNext) : keep.email ? password : email;
  state.focusNext = null;
  focus?.focus();
}

// ---------------------------------------------------------------------------------------------
// Shell and routing

const NAV = [
  ["#/", "navOverview", "/"],
  ["#/payments", "navPayments", "/payments"],
  ["#/withdraws", "navWithdraws", "/withdraws"],
  ["#/events", "navEvents", "/events"],
  ["#/webhooks", "navWebhooks", "/webhooks"],
  ["#/api-keys", "navApiKeys", "/api-keys"],
];

function parseHash() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = raw.split("?");
  return { path: path || "/", params: new URLSearchParams(query) };
}

function section(path) {
  return `/${path.split("/")[1] || ""}`;
}

function renderShell(path) {
  const app = document.getElementById("app");
  const me = state.me;
  const current = section(path);
  replace(
    app,
    h("a", { class: "skip-link", href: "#main", onclick: skipToMain }, t("skipToContent")),
    h(
      "header",
      { class: "top" },
      h(
        "div",
        { class: "top-bar" },
        h(
          "div",
          { class: "identity" },
          h("a", { class: "brand", href: "#/" }, t("brand")),
          h("span", { class: "merchant" }, me.merchant.name),
          h("span", { class: `env env-${me.environment}` }, t(me.environment)),
        ),
        h(
          "div",
          { class: "account" },
          h("span", { class: "muted small who" }, t("signedInAs", { email: me.user.email })),
          langButton(() => {
            // The header is drawn in the old language: draw the whole page again.
            state.shownPath = null;
            render();
          }),
          h("button", { type: "button", class: "button secondary", onclick: logout }, t("logout")),
        ),
      ),
      h(
        "nav",
        { "aria-label": t("mainNav") },
        h(
          "ul",
          null,
          NAV.map(([href, key, navPath]) =>
            h("li", null, link(href, t(key), { "aria-current": current === navPath ? "page" : undefined })),
          ),
        ),
      ),
    ),
    h(
      "main",
      { id: "main", class: "content", tabindex: "-1" },
      h("p", { class: "muted", role: "status" }, t("loading")),
    ),
    h("footer", { class: "bottom muted small" }, t("timesNote")),
  );
}

function skipToMain(event) {
  // The fragment is the router's, so the skip link moves focus itself instead of navigating.
  event.preventDefault();
  document.getElementById("main")?.focus();
}

const ROUTES = [
  [/^\/$/, overviewView],
  [/^\/payments$/, (params) => listView(LISTS.payments, params)],
  [/^\/payments\/([^/]+)$/, (_params, id) => paymentView(id)],
  [/^\/withdraws$/, (params) => listView(LISTS.withdraws, params)],
  [/^\/withdraws\/([^/]+)$/, (_params, id) => withdrawView(id)],
  [/^\/events$/, (params) => listView(LISTS.events, params)],
  [/^\/events\/([^/]+)$/, (_params, id) => eventView(id)],
  [/^\/webhooks$/, webhooksView],
  [/^\/api-keys$/, apiKeysView],
];

async function render() {
  applyLang();
  if (!state.session) {
    renderLogin();
    return;
  }
  const ticket = ++state.renderTicket;
  if (!state.me) {
    try {
      state.me = await api("GET", "/me");
    } catch (error) {
      if (!(error instanceof SessionEnded)) renderLogin("sessionExpired");
      return;
    }
    if (ticket !== state.renderTicket) return;
  }
  const hash = location.hash || "#/";
  const { path, params } = parseHash();
  const samePage = state.shownPath === path && document.getElementById("main");
  if (!samePage) renderShell(path);
  const main = document.getElementById("main");
  main.setAttribute("aria-busy", "true");
  let content;
  try {
    const match = ROUTES.map(([pattern, view]) => [pattern.exec(path), view]).find(([found]) => found);
    content = match ? await match[1](params, decodeURIComponent(match[0][1] || "")) : notFoundView();
  } catch (error) {
    if (error instanceof SessionEnded) return;
    content =
      error instanceof ApiError && error.status === 404
        ? notFoundView()
        : [h("h1", { tabindex: "-1" }, t("appTitle")), alertBox(describeError(error))];
  }
  if (ticket !== state.renderTicket) return;
  if (path !== "/api-keys") state.newKey = null;
  const flash = state.flash;
  state.flash = null;
  replace(
    main,
    flash
      ? h("p", { class: "notice", role: "status", tabindex: "-1", "data-focus-on-update": true }, flash)
      : null,
    content,
  );
  main.removeAttribute("aria-busy");
  // Which URL the content on screen belongs to: lets tests (and anyone debugging) wait for it.
  main.dataset.hash = hash;
  // A new page moves focus to its heading, so a screen reader announces where the user is; an
  // update of the same page (new filters, an action's outcome) moves it to what changed. The
  // first view after loading leaves focus where the browser put it.
  const updateTarget = samePage ? main.querySelector("[data-focus-on-update]") : null;
  const target = state.focusNext
    ? document.querySelector(state.focusNext)
    : updateTarget || main.querySelector("h1");
  if (!state.firstView || state.focusNext) target?.focus();
  state.focusNext = null;
  state.firstView = false;
  state.shownPath = path;
}

function notFoundView() {
  return [h("h1", { tabindex: "-1" }, t("notFoundTitle")), h("p", null, t("notFoundText"))];
}

// ---------------------------------------------------------------------------------------------
// Overview

async function overviewView() {
  const recent = `?limit=${RECENT_LIMIT}`;
  const [balance, payments, withdraws, events] = await Promise.all([
    api("GET", "/balance"),
    api("GET", `/payments${recent}`),
    api("GET", `/withdraws${recent}`),
    api("GET", `/events${recent}`),
  ]);
  const walletKey = { active: "walletActive", frozen: "walletFrozen", closed: "walletClosed" }[
    balance.status
  ];
  return [
    h("h1", { tabindex: "-1" }, t("overviewTitle")),
    h(
      "section",
      { "aria-labelledby": "balance-heading" },
      h("h2", { id: "balance-heading", class: "visually-hidden" }, t("balanceHeading")),
      h(
        "ul",
        { class: "stats" },
        h(
          "li",
          { class: "card stat" },
          h("span", { class: "stat-label" }, t("walletBalance")),
          h(
            "span",
            { class: "stat-value", "data-testid": "wallet-balance" },
            formatSatang(balance.walletBalance),
          ),
        ),
        h(
          "li",
          { class: "card stat" },
          h("span", { class: "stat-label" }, t("settlementBalance")),
          h("span", { class: "stat-value" }, formatSatang(balance.settlementBalance)),
        ),
        h(
          "li",
          { class: "card stat" },
          h("span", { class: "stat-label" }, t("walletStatus")),
          h(
            "span",
            { class: "stat-value" },
            badge(balance.status === "active" ? "succeeded" : "failed", t(walletKey)),
          ),
        ),
      ),
    ),
    recentSection(
      "recent-payments",
      t("recentPayments"),
      LISTS.payments,
      payments.data,
      "#/payments",
      t("navPayments"),
    ),
    recentSection(
      "recent-withdraws",
      t("recentWithdraws"),
      LISTS.withdraws,
      withdraws.data,
      "#/withdraws",
      t("navWithdraws"),
    ),
    recentSection("recent-events", t("recentEvents"), LISTS.events, events.data, "#/events", t("navEvents")),
  ];
}

function recentSection(id, title, list, records, href, what) {
  return h(
    "section",
    { class: "card", "aria-labelledby": id },
    h(
      "div",
      { class: "section-head" },
      h("h2", { id }, title),
      link(href, t("viewAll", { what: what.toLowerCase() })),
    ),
    records.length === 0
      ? h("p", { class: "muted" }, t("nothingYet"))
      : table(
          title,
          list.columns.map(([head]) => t(head)),
          records.map((record) =>
            h(
              "tr",
              null,
              list.columns.map(([, cell]) => h("td", null, cell(record))),
            ),
          ),
        ),
  );
}

// ---------------------------------------------------------------------------------------------
// Lists: payments, withdraws and events share one view, driven by these descriptions. The
// filters are the public API's list parameters, so the dashboard shows exactly what the API
// would return for them.

const LISTS = {
  payments: {
    key: "payments",
    title: "paymentsTitle",
    endpoint: "/payments",
    filters: [
      ["status", "filterStatus", PAYMENT_STATUSES, (s) => t(`paymentStatus.${s}`)],
      ["paymentMethod", "filterMethod", PAYMENT_METHODS, (m) => t(`method.${m}`)],
    ],
    sortFields: ["createdAt", "amount", "status", "confirmedAt", "capturedAt", "referenceId"],
    columns: [
      ["colCreated", (p) => formatTime(p.createdAt)],
      ["colReference", (p) => link(`#/payments/${encodeURIComponent(p.id)}`, p.referenceId)],
      ["colAmount", (p) => h("span", { class: "num" }, formatSatang(p.amount))],
      ["colMethod", (p) => (p.paymentMethod ? t(`method.${p.paymentMethod}`) : t("none"))],
      ["colStatus", (p) => badge(p.status, t(`paymentStatus.${p.status}`))],
    ],
  },
  withdraws: {
    key: "withdraws",
    title: "withdrawsTitle",
    endpoint: "/withdraws",
    filters: [
      ["status", "filterStatus", WITHDRAW_STATUSES, (s) => t(`withdrawStatus.${s}`)],
      ["destinationType", "filterDestination", DESTINATION_TYPES, (d) => t(`destination.${d}`)],
    ],
    sortFields: ["createdAt", "amount", "status", "paidAt", "referenceId"],
    columns: [
      ["colCreated", (w) => formatTime(w.createdAt)],
      ["colReference", (w) => link(`#/withdraws/${encodeURIComponent(w.id)}`, w.referenceId)],
      ["colAmount", (w) => h("span", { class: "num" }, formatSatang(w.amount))],
      [
        "colAccount",
        // One element, so the stacked phone layout keeps name and number together.
        (w) =>
          h(
            "span",
            null,
            w.bankAccountName || "",
            h("br"),
            h("span", { class: "muted mono" }, w.bankAccountNumber || ""),
          ),
      ],
      ["colStatus", (w) => badge(w.status, t(`withdrawStatus.${w.status}`))],
    ],
  },
  events: {
    key: "events",
    title: "eventsTitle",
    endpoint: "/events",
    filters: [["type", "filterType", EVENT_TYPES, (type) => t(`event.${type}`)]],
    sortFields: null,
    columns: [
      ["colCreated", (e) => formatTime(e.createdAt)],
      ["colEvent", (e) => link(`#/events/${encodeURIComponent(e.id)}`, t(`event.${e.type}`))],
      ["colType", (e) => h("code", null, e.type)],
      ["colObject", (e) => objectLink(e)],
    ],
  },
};

function objectLink(event) {
  const object = event.data?.object || {};
  const isPayment = event.type.startsWith("payment.");
  const label = `${t(isPayment ? "objectPayment" : "objectWithdraw")} ${object.referenceId || object.id || ""}`;
  return object.id
    ? link(`#/${isPayment ? "payments" : "withdraws"}/${encodeURIComponent(object.id)}`, label)
    : label;
}

/** The API query of the list URL's parameters; dates are Bangkok calendar days. */
function apiQuery(list, params) {
  const query = new URLSearchParams();
  for (const name of ["page", "limit", "sortBy", "sortOrder"])
    if (params.get(name)) query.set(name, params.get(name));
  for (const [name] of list.filters) if (params.get(name)) query.set(name, params.get(name));
  // A day picked in the form is a day in Thailand: from its midnight (UTC+7) up to, and not
  // including, the next day's midnight, so the "to" day itself is part of the range.
  if (params.get("from")) query.set("dateFrom", `${params.get("from")}T00:00:00+07:00`);
  if (params.get("to") && /^\d{4}-\d{2}-\d{2}$/.test(params.get("to"))) {
    query.set("dateTo", `${nextDay(params.get("to"))}T00:00:00+07:00`);
  }
  return query;
}

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

function dateField(id, name, label, current) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, name, type: "date", value: current }),
  );
}

function filterForm(list, params) {
  const fields = [];
  for (const [name, labelKey, values, describe] of list.filters) {
    fields.push(
      select(
        `f-${name}`,
        name,
        t(labelKey),
        [["", t("any")], ...values.map((v) => [v, describe(v)])],
        params.get(name) || "",
      ),
    );
  }
  fields.push(dateField("f-from", "from", t("filterFrom"), params.get("from") || ""));
  fields.push(dateField("f-to", "to", t("filterTo"), params.get("to") || ""));
  if (list.sortFields) {
    fields.push(
      select(
        "f-sortBy",
        "sortBy",
        t("filterSortBy"),
        list.sortFields.map((f) => [f, t(`sort.${f}`)]),
        params.get("sortBy") || "createdAt",
      ),
    );
  }
  fields.push(
    select(
      "f-sortOrder",
      "sortOrder",
      t("filterSortOrder"),
      [
        ["desc", t("sortDescending")],
        ["asc", t("sortAscending")],
      ],
      params.get("sortOrder") || "desc",
    ),
  );
  fields.push(
    select(
      "f-limit",
      "limit",
      t("filterPageSize"),
      PAGE_SIZES.map((n) => [String(n), String(n)]),
      params.get("limit") || "10",
    ),
  );

  const onSubmit = (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of new FormData(event.currentTarget)) {
      const defaults = { sortBy: "createdAt", sortOrder: "desc", limit: "10" };
      if (value !== "" && defaults[name] !== value) next.set(name, String(value));
    }
    navigate(`#${list.endpoint}${next.size ? `?${next}` : ""}`);
  };
  return h(
    "form",
    { class: "card filters", role: "search", "aria-label": t("filters"), onsubmit: onSubmit },
    h("div", { class: "filter-grid" }, fields),
    h(
      "div",
      { class: "actions" },
      h("button", { type: "submit", class: "button primary" }, t("applyFilters")),
      h("a", { class: "button secondary", href: `#${list.endpoint}` }, t("resetFilters")),
    ),
  );
}

function navigate(hash) {
  if (location.hash === hash) render();
  else location.hash = hash;
}

function pageHref(list, params, pageNumber) {
  const next = new URLSearchParams(params);
  if (pageNumber <= 1) next.delete("page");
  else next.set("page", String(pageNumber));
  return `#${list.endpoint}${next.size ? `?${next}` : ""}`;
}

async function listView(list, params) {
  state.lastList[list.key] = location.hash || `#${list.endpoint}`;
  const heading = h("h1", { tabindex: "-1" }, t(list.title));
  let result;
  try {
    result = await api("GET", `${list.endpoint}?${apiQuery(list, params)}`);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return [
      heading,
      filterForm(list, params),
      h("div", { "data-focus-on-update": true, tabindex: "-1" }, alertBox(describeError(error))),
    ];
  }
  const pages = Math.max(result.totalPages, 1);
  const summaryId = uid("summary");
  const summary = h(
    "p",
    { id: summaryId, class: "summary", role: "status", tabindex: "-1", "data-focus-on-update": true },
    t("resultsSummary", { total: result.total, page: result.page, pages }),
  );
  const hasFilters =
    list.filters.some(([name]) => params.get(name)) || params.get("from") || params.get("to");
  const rows = result.data.map((record) =>
    h(
      "tr",
      null,
      list.columns.map(([, cell]) => h("td", null, cell(record))),
    ),
  );
  return [
    heading,
    filterForm(list, params),
    summary,
    result.data.length === 0
      ? h("p", { class: "empty card" }, hasFilters ? t("noResults") : t("nothingYet"))
      : table(
          t(list.title),
          list.columns.map(([head]) => t(head)),
          rows,
          { describedBy: summaryId },
        ),
    h(
      "nav",
      { class: "pager", "aria-label": t("pagination") },
      result.page > 1
        ? link(pageHref(list, params, result.page - 1), t("previousPage"), {
            class: "button secondary",
            rel: "prev",
          })
        : h("span", { class: "button secondary", "aria-disabled": "true" }, t("previousPage")),
      h("span", { class: "muted" }, `${result.page} / ${pages}`),
      result.page < result.totalPages
        ? link(pageHref(list, params, result.page + 1), t("nextPage"), {
            class: "button secondary",
            rel: "next",
          })
        : h("span", { class: "button secondary", "aria-disabled": "true" }, t("nextPage")),
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Details

function backLink(key, fallback, textKey) {
  return h("p", { class: "back" }, link(state.lastList[key] || fallback, `← ${t(textKey)}`));
}

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
          link(`#/events/${encodeURIComponent(entry.id)}`, t(`event.${entry.type}`)),
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

async function paymentView(id) {
  const { payment, timeline } = await api("GET", `/payments/${encodeURIComponent(id)}`);
  return [
    backLink("payments", "#/payments", "backToPayments"),
    h("h1", { tabindex: "-1" }, t("paymentTitle", { reference: payment.referenceId })),
    h(
      "div",
      { class: "detail-grid" },
      h(
        "section",
        { class: "card", "aria-labelledby": "details-heading" },
        h("h2", { id: "details-heading" }, t("details")),
        definitionList([
          [t("fieldStatus"), badge(payment.status, t(`paymentStatus.${payment.status}`))],
          [t("fieldAmount"), formatSatang(payment.amount)],
          [t("fieldMethod"), payment.paymentMethod ? t(`method.${payment.paymentMethod}`) : null],
          [t("fieldReference"), h("span", { class: "mono" }, payment.referenceId)],
          [t("fieldId"), h("span", { class: "mono" }, payment.id)],
          [t("fieldDescription"), payment.description],
          [t("fieldCreated"), formatTime(payment.createdAt)],
          [t("fieldExpires"), formatTime(payment.expiresAt)],
          [t("fieldConfirmed"), formatTime(payment.confirmedAt)],
          [t("fieldCanceled"), formatTime(payment.canceledAt)],
          [t("fieldUpdated"), formatTime(payment.updatedAt)],
        ]),
      ),
      timelineSection(payment, timeline),
    ),
  ];
}

async function withdrawView(id) {
  const { withdraw, timeline } = await api("GET", `/withdraws/${encodeURIComponent(id)}`);
  return [
    backLink("withdraws", "#/withdraws", "backToWithdraws"),
    h("h1", { tabindex: "-1" }, t("withdrawTitle", { reference: withdraw.referenceId })),
    h(
      "div",
      { class: "detail-grid" },
      h(
        "section",
        { class: "card", "aria-labelledby": "details-heading" },
        h("h2", { id: "details-heading" }, t("details")),
        definitionList([
          [t("fieldStatus"), badge(withdraw.status, t(`withdrawStatus.${withdraw.status}`))],
          [t("fieldAmount"), formatSatang(withdraw.amount)],
          [t("fieldDestination"), t(`destination.${withdraw.destinationType}`)],
          [t("fieldAccountName"), withdraw.bankAccountName],
          [t("fieldAccountNumber"), h("span", { class: "mono" }, withdraw.bankAccountNumber || t("none"))],
          [t("fieldBank"), withdraw.bankCode],
          [t("fieldReference"), h("span", { class: "mono" }, withdraw.referenceId)],
          [t("fieldId"), h("span", { class: "mono" }, withdraw.id)],
          [t("fieldDescription"), withdraw.description],
          [t("fieldCreated"), formatTime(withdraw.createdAt)],
          [t("fieldPaid"), formatTime(withdraw.paidAt)],
          [t("fieldCanceled"), formatTime(withdraw.canceledAt)],
          [t("fieldUpdated"), formatTime(withdraw.updatedAt)],
        ]),
      ),
      timelineSection(withdraw, timeline),
    ),
  ];
}

async function eventView(id) {
  const [event, endpoints] = await Promise.all([
    api("GET", `/events/${encodeURIComponent(id)}`),
    api("GET", "/webhook-endpoints?limit=100"),
  ]);
  const urls = new Map(endpoints.data.map((endpoint) => [endpoint.id, endpoint.url]));
  const status = h("p", { class: "notice", role: "status", hidden: true });
  const redeliverButton = h(
    "button",
    { type: "button", class: "button primary", "aria-describedby": "redeliver-help" },
    t("redeliver"),
  );
  redeliverButton.addEventListener("click", async () => {
    redeliverButton.disabled = true;
    redeliverButton.textContent = t("redelivering");
    try {
      const result = await api("POST", `/events/${encodeURIComponent(id)}/redeliver`);
      state.flash = t("redelivered", { count: result.deliveries.length });
      await render();
    } catch (error) {
      if (error instanceof SessionEnded) return;
      status.className = "alert";
      status.setAttribute("role", "alert");
      status.textContent =
        error instanceof ApiError && error.code === "STATE_CONFLICT"
          ? t("redeliverNoEndpoint")
          : describeError(error);
      status.hidden = false;
      redeliverButton.disabled = false;
      redeliverButton.textContent = t("redeliver");
    }
  });

  const deliveries = event.deliveries.map((delivery, index) => {
    const headingId = `delivery-${index + 1}`;
    const url = urls.get(delivery.endpointId) || t("deletedEndpoint", { id: delivery.endpointId });
    return h(
      "li",
      { class: "delivery", "aria-labelledby": headingId },
      h("h3", { id: headingId }, t("deliveryTo", { url })),
      definitionList([
        [
          t("deliveryStatus"),
          badge(
            delivery.status === "succeeded"
              ? "succeeded"
              : delivery.status === "failed"
                ? "failed"
                : delivery.status === "pending"
                  ? "pending"
                  : "canceled",
            t(`deliveryStatus.${delivery.status}`),
          ),
        ],
        [t("attemptCount"), String(delivery.attemptCount)],
        [t("fieldCreated"), formatTime(delivery.createdAt)],
        [t("nextAttempt"), formatTime(delivery.nextAttemptAt)],
        [t("completedAt"), formatTime(delivery.completedAt)],
      ]),
      delivery.attempts.length === 0
        ? h("p", { class: "muted" }, t("noAttempts"))
        : table(
            t("attempts"),
            [
              t("attemptNumber"),
              t("attemptResult"),
              t("attemptHttp"),
              t("attemptDuration"),
              t("attemptStarted"),
              t("attemptError"),
            ],
            delivery.attempts.map((attempt) =>
              h(
                "tr",
                null,
                h("td", null, String(attempt.attemptNumber)),
                h(
                  "td",
                  null,
                  attempt.succeeded
                    ? badge("succeeded", t("attemptOk"))
                    : badge("failed", t("attemptFailed")),
                ),
                h("td", null, attempt.statusCode === null ? t("none") : String(attempt.statusCode)),
                h("td", { class: "num" }, t("durationMs", { ms: attempt.durationMs })),
                h("td", null, formatTime(attempt.startedAt)),
                h("td", null, attempt.error || t("none")),
              ),
            ),
            { showCaption: true },
          ),
    );
  });

  return [
    backLink("events", "#/events", "backToEvents"),
    h("h1", { tabindex: "-1" }, t("eventTitle", { type: t(`event.${event.type}`) })),
    h(
      "section",
      { class: "card", "aria-labelledby": "details-heading" },
      h("h2", { id: "details-heading" }, t("details")),
      definitionList([
        [t("fieldType"), h("code", null, event.type)],
        [t("fieldId"), h("span", { class: "mono" }, event.id)],
        [t("fieldCreated"), formatTime(event.createdAt)],
        [t("fieldObject"), objectLink(event)],
      ]),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "deliveries-heading" },
      h(
        "div",
        { class: "section-head" },
        h("h2", { id: "deliveries-heading" }, t("deliveries")),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", class: "button secondary", onclick: () => render() }, t("refresh")),
          redeliverButton,
        ),
      ),
      h("p", { id: "redeliver-help", class: "muted small" }, t("redeliverHelp")),
      status,
      deliveries.length === 0
        ? h("p", { class: "muted" }, t("noDeliveries"))
        : h("ol", { class: "deliveries" }, deliveries),
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Webhook endpoints

async function webhooksView() {
  const endpoints = await api("GET", "/webhook-endpoints?limit=100");
  return [
    h("h1", { tabindex: "-1" }, t("webhooksTitle")),
    h("p", { class: "muted" }, t("webhooksIntro")),
    endpoints.data.length === 0
      ? h("p", { class: "empty card" }, t("nothingYet"))
      : table(
          t("webhooksTitle"),
          [t("colUrl"), t("colEvents"), t("colDescription"), t("colCreated")],
          endpoints.data.map((endpoint) =>
            h(
              "tr",
              null,
              h("td", { class: "mono break" }, endpoint.url),
              h(
                "td",
                null,
                endpoint.events.includes("*")
                  ? t("allEvents")
                  : h(
                      "ul",
                      { class: "plain" },
                      endpoint.events.map((type) => h("li", null, h("code", null, type))),
                    ),
              ),
              h("td", null, endpoint.description || t("none")),
              h("td", null, formatTime(endpoint.createdAt)),
            ),
          ),
        ),
  ];
}

// ---------------------------------------------------------------------------------------------
// API keys

async function apiKeysView() {
  const keys = await api("GET", "/api-keys?limit=100");
  const nameInput = h("input", {
    id: "key-name",
    name: "name",
    type: "text",
    maxlength: "200",
    autocomplete: "off",
  });
  const createButton = h("button", { type: "submit", class: "button primary" }, t("createKey"));
  const formError = h("p", { class: "alert", role: "alert", hidden: true });

  async function onCreate(event) {
    event.preventDefault();
    createButton.disabled = true;
    createButton.textContent = t("creatingKey");
    try {
      const name = nameInput.value.trim();
      state.newKey = await api("POST", "/api-keys", name ? { name } : {});
      await render();
    } catch (error) {
      if (error instanceof SessionEnded) return;
      formError.textContent = describeError(error);
      formError.hidden = false;
      createButton.disabled = false;
      createButton.textContent = t("createKey");
    }
  }

  const rows = keys.data.map((key) => {
    const name = key.name || t("unnamedKey");
    const actions = h("td", { class: "row-actions" });
    const showRevoke = () => {
      if (key.revokedAt) return replace(actions, t("none"));
      const button = h(
        "button",
        { type: "button", class: "button danger small", "aria-label": `${t("revoke")}: ${name}` },
        t("revoke"),
      );
      button.addEventListener("click", () => confirmRevoke());
      replace(actions, button);
      return button;
    };
    // Revoking cannot be undone, so it asks once more, in place, and starts on the safe choice.
    const confirmRevoke = () => {
      const cancel = h("button", { type: "button", class: "button secondary small" }, t("cancel"));
      const confirm = h("button", { type: "button", class: "button danger small" }, t("confirmRevoke"));
      cancel.addEventListener("click", () => showRevoke()?.focus());
      confirm.addEventListener("click", async () => {
        confirm.disabled = true;
        try {
          await api("DELETE", `/api-keys/${encodeURIComponent(key.id)}`);
          state.flash = t("revoked", { name });
          await render();
        } catch (error) {
          if (error instanceof SessionEnded) return;
          replace(actions, alertBox(describeError(error)));
        }
      });
      replace(
        actions,
        h("p", { class: "confirm", role: "alert" }, t("revokeConfirm", { name })),
        h("div", { class: "actions" }, cancel, confirm),
      );
      cancel.focus();
    };
    showRevoke();
    return h(
      "tr",
      { class: key.revokedAt ? "revoked" : "" },
      h("td", null, name),
      h("td", { class: "mono break" }, key.apiKey),
      h("td", null, t(key.environment)),
      h("td", null, formatTime(key.createdAt)),
      h(
        "td",
        null,
        key.revokedAt
          ? badge("canceled", t("keyRevoked", { at: formatTime(key.revokedAt) }))
          : badge("succeeded", t("keyActive")),
      ),
      actions,
    );
  });

  return [
    h("h1", { tabindex: "-1" }, t("apiKeysTitle")),
    h("p", { class: "muted" }, t("apiKeysIntro")),
    state.newKey ? newKeyPanel(state.newKey) : null,
    h(
      "form",
      { class: "card inline-form", onsubmit: onCreate, "aria-labelledby": "create-key-heading" },
      h("h2", { id: "create-key-heading", class: "visually-hidden" }, t("createKey")),
      h("div", { class: "field" }, h("label", { for: "key-name" }, t("keyName")), nameInput),
      createButton,
      formError,
    ),
    keys.data.length === 0
      ? h("p", { class: "empty card" }, t("nothingYet"))
      : table(
          t("apiKeysTitle"),
          [
            t("colName"),
            t("colApiKey"),
            t("colEnvironment"),
            t("colCreated"),
            t("colStatus"),
            t("colActions"),
          ],
          rows,
        ),
  ];
}

function newKeyPanel(created) {
  const copyButton = (value, label) => {
    const button = h(
      "button",
      { type: "button", class: "button secondary small", "aria-label": `${t("copy")}: ${label}` },
      t("copy"),
    );
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(value);
        button.textContent = t("copied");
      } catch {
        // Without clipboard access the value stays selectable on screen.
      }
    });
    return button;
  };
  const done = h("button", { type: "button", class: "button primary" }, t("done"));
  done.addEventListener("click", () => {
    state.newKey = null;
    render();
  });
  return h(
    "section",
    {
      class: "card secret-panel",
      "aria-labelledby": "new-key-heading",
      "data-focus-on-update": true,
      tabindex: "-1",
    },
    h("h2", { id: "new-key-heading" }, t("newKeyTitle")),
    h("p", { class: "warning" }, t("newKeyWarning")),
    definitionList([
      [
        t("newKeyApiKey"),
        h(
          "span",
          { class: "secret-row" },
          h("code", { "data-testid": "new-api-key" }, created.apiKey),
          copyButton(created.apiKey, t("newKeyApiKey")),
        ),
      ],
      [
        t("newKeySecret"),
        h(
          "span",
          { class: "secret-row" },
          h("code", { "data-testid": "new-api-secret" }, created.apiSecret),
          copyButton(created.apiSecret, t("newKeySecret")),
        ),
      ],
    ]),
    done,
  );
}

// ---------------------------------------------------------------------------------------------
// Start

window.addEventListener("hashchange", () => {
  if (state.session) render();
});
armExpiryTimer();
render();
