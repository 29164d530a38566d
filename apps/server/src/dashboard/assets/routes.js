// @ts-check
// Which view draws which route. A new page is a new view module and one line here.

/** @import { Child } from "./dom.js" */
/** @import { MessageKey } from "./i18n.js" */
import { apiKeysView, forgetNewKey } from "./views/api-keys.js";
import { auditView } from "./views/audit.js";
import { deliveriesView } from "./views/deliveries.js";
import { eventDetailView } from "./views/event-detail.js";
import { eventsView } from "./views/events.js";
import { exportsView } from "./views/exports.js";
import { overviewView } from "./views/overview.js";
import { paymentDetailView } from "./views/payment-detail.js";
import { paymentsView } from "./views/payments.js";
import { refundsListView } from "./views/refunds-list.js";
import { forgetEnrolment, securityView } from "./views/security.js";
import { usersView } from "./views/users.js";
import { forgetEndpointSecret, webhooksView } from "./views/webhooks.js";
import { withdrawDetailView } from "./views/withdraw-detail.js";
import { withdrawsView } from "./views/withdraws.js";

/**
 * @typedef {object} Route
 * @property {RegExp} pattern matches the path; its first group is the record id, if any
 * @property {MessageKey} title the page's heading when its view could not be drawn (a record's
 *   page names its list)
 * @property {(params: URLSearchParams, id: string) => Promise<Child[]>} view
 * @property {() => void} [leave] runs when another page (or the login) replaces this one
 */

/** @type {Route[]} */
const ROUTES = [
  { pattern: /^\/$/, title: "overviewTitle", view: () => overviewView() },
  { pattern: /^\/payments$/, title: "paymentsTitle", view: (params) => paymentsView(params) },
  { pattern: /^\/payments\/([^/]+)$/, title: "paymentsTitle", view: (_params, id) => paymentDetailView(id) },
  { pattern: /^\/withdraws$/, title: "withdrawsTitle", view: (params) => withdrawsView(params) },
  {
    pattern: /^\/withdraws\/([^/]+)$/,
    title: "withdrawsTitle",
    view: (_params, id) => withdrawDetailView(id),
  },
  { pattern: /^\/refunds$/, title: "refundsTitle", view: (params) => refundsListView(params) },
  { pattern: /^\/events$/, title: "eventsTitle", view: (params) => eventsView(params) },
  { pattern: /^\/events\/([^/]+)$/, title: "eventsTitle", view: (_params, id) => eventDetailView(id) },
  { pattern: /^\/deliveries$/, title: "deliveriesTitle", view: (params) => deliveriesView(params) },
  {
    pattern: /^\/webhooks$/,
    title: "webhooksTitle",
    view: () => webhooksView(),
    leave: forgetEndpointSecret,
  },
  { pattern: /^\/exports$/, title: "exportsTitle", view: () => exportsView() },
  // The secret of a key created here is shown until the page is left, and never again.
  { pattern: /^\/api-keys$/, title: "apiKeysTitle", view: () => apiKeysView(), leave: forgetNewKey },
  { pattern: /^\/users$/, title: "usersTitle", view: () => usersView() },
  // The enrolment's key is shown until the page is left, and never again.
  { pattern: /^\/security$/, title: "securityTitle", view: () => securityView(), leave: forgetEnrolment },
  { pattern: /^\/audit$/, title: "auditTitle", view: (params) => auditView(params) },
];

/**
 * The route of a path and the record id in it (decoded); null when no view has the path.
 * @param {string} path
 * @returns {{ route: Route, id: string } | null}
 */
export function findRoute(path) {
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (match) return { route, id: decodeURIComponent(match[1] || "") };
  }
  return null;
}
