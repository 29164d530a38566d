// @ts-check
// The frame around every view: the skip link, the header (who is signed in, for which
// merchant, the language button, logout, the navigation), the main region and the footer.
// On a phone the header is one line: the account controls and the navigation fold behind a
// "Menu" button, so the view starts near the top of the screen. Wider screens show it all.

/** @import { MessageKey } from "../i18n.js" */
/** @import { Me } from "../types.js" */
import { describeError, getTestClock, logout, resetTestClock } from "../api.js";
import { langButton } from "../components.js";
import { h, link, replace } from "../dom.js";
import { formatDuration } from "../format.js";
import { t } from "../lang.js";
import { refresh, section } from "../router.js";
import { currentSession, endSession } from "../session.js";
import { searchBox } from "./search.js";

/**
 * The sections: their path and the text of their link.
 * @type {Array<[string, MessageKey]>}
 */
const NAV = [
  ["/", "navOverview"],
  ["/payments", "navPayments"],
  ["/withdraws", "navWithdraws"],
  ["/refunds", "navRefunds"],
  ["/events", "navEvents"],
  ["/webhooks", "navWebhooks"],
  ["/deliveries", "navDeliveries"],
  ["/exports", "navExports"],
  ["/api-keys", "navApiKeys"],
  ["/users", "navUsers"],
  ["/security", "navSecurity"],
  ["/audit", "navAudit"],
];

/**
 * The path whose menu is unfolded: a switch of language draws the header again on the same
 * path with the menu still open (the focus stays on the language button inside it); going to
 * another page folds it.
 * @type {string | null}
 */
let menuOpenOn = null;

async function signOut() {
  const token = currentSession()?.token;
  // The session ends here whatever the server says: the user asked to leave.
  if (token) await logout(token).catch(() => {});
  endSession("loggedOut");
}

/** @param {Event} event */
function skipToMain(event) {
  // The fragment is the router's, so the skip link moves focus itself instead of navigating.
  event.preventDefault();
  document.getElementById("main")?.focus();
}

/**
 * The menu button and what it folds: the account controls and the navigation. Escape and
 * following a link of the menu fold it again.
 * @param {HTMLElement} header
 * @param {string} path
 */
function menuButton(header, path) {
  const button = h(
    "button",
    {
      type: "button",
      class: "button secondary menu-button",
      "aria-controls": "top-account top-nav",
      "aria-expanded": menuOpenOn === path ? "true" : "false",
    },
    t("menu"),
  );
  /** @param {boolean} open */
  const setOpen = (open) => {
    menuOpenOn = open ? path : null;
    header.classList.toggle("menu-open", open);
    button.setAttribute("aria-expanded", open ? "true" : "false");
  };
  button.addEventListener("click", () => setOpen(menuOpenOn !== path));
  header.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || menuOpenOn !== path) return;
    setOpen(false);
    button.focus();
  });
  header.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest("nav a")) setOpen(false);
  });
  header.classList.toggle("menu-open", menuOpenOn === path);
  return button;
}

/**
 * The sections the user sees: only owners manage users; an owner who must enrol two-factor
 * login first sees only the security page.
 * @param {Me} me
 */
function sectionsOf(me) {
  if (me.twoFactorRequired) return NAV.filter(([navPath]) => navPath === "/security");
  return NAV.filter(([navPath]) => navPath !== "/users" || me.user.role === "owner");
}

/**
 * @param {Me} me
 * @param {string} path
 */
function navigation(me, path) {
  const current = section(path);
  return h(
    "nav",
    { id: "top-nav", "aria-label": t("mainNav") },
    h(
      "ul",
      null,
      sectionsOf(me).map(([navPath, key]) =>
        h(
          "li",
          null,
          link(`#${navPath}`, t(key), { "aria-current": current === navPath ? "page" : undefined }),
        ),
      ),
    ),
  );
}

/**
 * @param {Me} me
 * @param {string} path
 */
function header(me, path) {
  if (menuOpenOn !== path) menuOpenOn = null;
  const top = h("header", { class: "top" });
  const account = h(
    "div",
    { id: "top-account", class: "account" },
    searchBox(),
    h("span", { class: "muted small who" }, t("signedInAs", { email: me.user.email })),
    // The header is drawn in the old language: draw the whole page again.
    langButton(() => refresh({ redraw: true, focus: "button.lang" })),
    h("button", { type: "button", class: "button secondary", onclick: signOut }, t("logout")),
  );
  replace(
    top,
    h(
      "div",
      { class: "top-bar" },
      h(
        "div",
        { class: "identity" },
        h("a", { class: "brand", href: "#/" }, t("brand")),
        // A phone may cut a long name short; the title keeps it whole.
        h("span", { class: "merchant", title: me.merchant.name }, me.merchant.name),
        h("span", { class: `env env-${me.environment}` }, t(me.environment)),
      ),
      menuButton(top, path),
      account,
    ),
    navigation(me, path),
  );
  return top;
}

/**
 * The sandbox's test-clock banner: empty (and hidden) while the merchant's clock is at real
 * time; otherwise how far it runs ahead, what that means for the times on screen, and a button
 * that brings it back. Filled once the clock is read, so it never holds the page up.
 * @param {Me} me
 */
function testClockBanner(me) {
  const banner = h("div", { id: "test-clock", class: "test-clock", hidden: true });
  if (me.environment !== "sandbox") return banner;
  getTestClock()
    .then((clock) => {
      if (clock.offsetSeconds <= 0) return;
      const ahead = h(
        "p",
        null,
        h("strong", null, t("testClockAhead", { offset: formatDuration(clock.offsetSeconds) })),
        " ",
        t("testClockDetail"),
      );
      // The reset is an owner's (CONTRACT 13): another role is told who can, not given a button
      // the server refuses.
      if (me.user.role !== "owner") {
        replace(banner, ahead, h("p", { class: "muted small" }, t("testClockOwnerOnly")));
        banner.hidden = false;
        return;
      }
      const button = h("button", { type: "button", class: "button secondary" }, t("testClockReset"));
      const failure = h("span", { role: "alert" });
      button.addEventListener("click", async () => {
        button.setAttribute("disabled", "");
        button.textContent = t("testClockResetting");
        try {
          await resetTestClock();
          await refresh({ redraw: true, flash: t("testClockResetDone") });
        } catch (error) {
          button.removeAttribute("disabled");
          button.textContent = t("testClockReset");
          failure.textContent = describeError(error);
        }
      });
      replace(banner, ahead, button, failure);
      banner.hidden = false;
    })
    // The banner is a courtesy: a failed read leaves the page as it is.
    .catch(() => {});
  return banner;
}

/**
 * Draws the frame of a new page, with a loading line where the view will go.
 * @param {Me} me
 * @param {string} path
 */
export function renderShell(me, path) {
  const app = /** @type {HTMLElement} */ (document.getElementById("app"));
  replace(
    app,
    h("a", { class: "skip-link", href: "#main", onclick: skipToMain }, t("skipToContent")),
    header(me, path),
    testClockBanner(me),
    h(
      "main",
      { id: "main", class: "content", tabindex: "-1" },
      h("p", { class: "muted", role: "status" }, t("loading")),
    ),
    h("footer", { class: "bottom muted small" }, t("timesNote")),
  );
}
