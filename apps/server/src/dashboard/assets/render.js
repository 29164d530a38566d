// @ts-check
// Draws the page for the current route: the login form without a session; otherwise the
// frame (on a new page) and the route's view. It also decides where the focus goes: a new page
// moves it to its heading, so a screen reader announces where the user is; an update of the
// same page (new filters, an action's outcome) moves it to what changed; the first view after
// loading leaves it where the browser put it.

/** @import { MessageKey } from "./i18n.js" */
/** @import { Child } from "./dom.js" */
/** @import { Me } from "./types.js" */
/** @import { RefreshOptions } from "./router.js" */
/** @import { Route } from "./routes.js" */
import { setAccount, takeStaleAccount } from "./account.js";
import { ApiError, describeError, getMe, SessionEnded } from "./api.js";
import { alertBox, heading } from "./components.js";
import { loadConstants } from "./constants.js";
import { h, replace } from "./dom.js";
import { applyLang, t } from "./lang.js";
import { currentRoute } from "./router.js";
import { findRoute } from "./routes.js";
import { currentSession } from "./session.js";
import { renderLogin } from "./views/login.js";
import { notFoundView } from "./views/not-found.js";
import { renderShell } from "./views/shell.js";

/**
 * GET /me of the current session.
 * @type {Me | null}
 */
let me = null;
/** Counts drawings, so a slow view never draws over a newer one (or over the login form). */
let ticket = 0;
/**
 * The path of the view on screen, to tell a new page from new filters on the same page.
 * @type {string | null}
 */
let shownPath = null;
/**
 * The route of the view on screen, told when another page replaces it.
 * @type {Route | null}
 */
let shownRoute = null;
/** Whether the first view after the page loaded is still to come: it leaves focus alone. */
let firstView = true;

/** The page on screen is being replaced: it may forget what it kept (a new key's secret). */
function leavePage() {
  shownRoute?.leave?.();
  shownRoute = null;
  shownPath = null;
}

/**
 * The login form in place of the dashboard, after the session ended.
 * @param {MessageKey} messageKey why
 */
export function showLogin(messageKey) {
  // Views still loading for the old session must not draw over the login form.
  ticket += 1;
  me = null;
  setAccount(null);
  leavePage();
  renderLogin(messageKey);
}

/**
 * The session's account and the server's lists, loaded once per session.
 * @returns {Promise<Me | null>} null when the session is gone (the login form is on screen)
 */
async function loadAccount() {
  if (me && !takeStaleAccount()) return me;
  try {
    const [account] = await Promise.all([getMe(), loadConstants()]);
    me = account;
    setAccount(account);
    return me;
  } catch (error) {
    if (error instanceof SessionEnded) return null;
    // The session is still good when the server was busy, rate-limited or out of reach: the
    // page says so and offers to try again, rather than asking to sign in.
    if (error instanceof ApiError && error.status !== 401) {
      renderUnavailable(error, findRoute(currentRoute().path)?.route.title ?? "appTitle");
      return null;
    }
    showLogin("sessionExpired");
    return null;
  }
}

/**
 * A page in place of the dashboard while its account could not be loaded: the page's heading,
 * why, and a button that tries again.
 * @param {ApiError} error
 * @param {MessageKey} title
 */
function renderUnavailable(error, title) {
  leavePage();
  const app = /** @type {HTMLElement} */ (document.getElementById("app"));
  replace(
    app,
    h(
      "main",
      { id: "main", class: "login-main", tabindex: "-1" },
      h("div", { class: "card" }, heading(t(title)), alertBox(describeError(error)), retryButton()),
    ),
  );
}

/** A button that draws the current page again (after a refused or failed load). */
function retryButton() {
  return h(
    "p",
    null,
    h(
      "button",
      { type: "button", class: "button secondary", onclick: () => render({ redraw: true }) },
      t("tryAgain"),
    ),
  );
}

/**
 * The route's view; a record that does not exist is "not found", any other failure a message.
 * @param {string} path
 * @param {URLSearchParams} params
 * @returns {Promise<{ route: Route | null, content: Child[] } | null>} null when the session ended
 */
async function viewOf(path, params) {
  /** @type {Route | null} */
  let route = null;
  try {
    const found = findRoute(path);
    route = found?.route ?? null;
    return { route, content: found ? await found.route.view(params, found.id) : notFoundView() };
  } catch (error) {
    if (error instanceof SessionEnded) return null;
    if (error instanceof ApiError && error.status === 404) return { route, content: notFoundView() };
    // The heading names the page that failed, as its view would have (one h1 per view).
    const title = heading(t(route?.title ?? "appTitle"));
    return { route, content: [title, alertBox(describeError(error)), retryButton()] };
  }
}

/**
 * @param {HTMLElement} main
 * @param {boolean} samePage
 * @param {string | undefined} selector
 */
function moveFocus(main, samePage, selector) {
  const updateTarget = samePage ? main.querySelector("[data-focus-on-update]") : null;
  const target = selector ? document.querySelector(selector) : updateTarget || main.querySelector("h1");
  if ((!firstView || selector) && target instanceof HTMLElement) target.focus();
  firstView = false;
}

/**
 * Draws the current route.
 * @param {RefreshOptions} [options]
 */
export async function render(options = {}) {
  applyLang();
  if (!currentSession()) {
    leavePage();
    renderLogin();
    return;
  }
  const drawing = ++ticket;
  const account = await loadAccount();
  if (!account || drawing !== ticket) return;
  // An owner in live who has not enrolled two-factor login sees nothing but enrolment (CONTRACT 13).
  if (account.twoFactorRequired && currentRoute().path !== "/security") {
    location.replace("#/security");
    return;
  }
  const hash = location.hash || "#/";
  const { path, params } = currentRoute();
  const samePage = !options.redraw && shownPath === path && document.getElementById("main") !== null;
  if (!samePage) renderShell(account, path);
  const main = /** @type {HTMLElement} */ (document.getElementById("main"));
  main.setAttribute("aria-busy", "true");
  const view = await viewOf(path, params);
  if (!view || drawing !== ticket) return;
  if (shownRoute !== view.route) leavePage();
  const flash = options.flash
    ? h("p", { class: "notice", role: "status", tabindex: "-1", "data-focus-on-update": true }, options.flash)
    : null;
  replace(main, flash, view.content);
  main.removeAttribute("aria-busy");
  // Which URL the content on screen belongs to: lets tests (and anyone debugging) wait for it.
  main.dataset.hash = hash;
  moveFocus(main, samePage, options.focus);
  shownRoute = view.route;
  shownPath = path;
}
