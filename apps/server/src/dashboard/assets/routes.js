// @ts-check
// Which view draws which route. A new page is a new view module and one line here.

/** @import { Child } from "./dom.js" */
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
 * @property {(params: URLSearchParams, id: string) => Promise<Child[]>} view
 * @property {() => void} [leave] runs when another page (or the login) replaces this one
 */

/** @type {Route[]} */
const ROUTES = [
  { pattern: /^\/$/, view: () => overviewView() },
  { pattern: /^\/payments$/, view: (params) => paymentsView(params) },
  { pattern: /^\/payments\/([^/]+)$/, view: (_params, id) => paymentDetailView(id) },
  { pattern: /^\/withdraws$/, view: (params) => withdrawsView(params) },
  { pattern: /^\/withdraws\/([^/]+)$/, view: (_params, id) => withdrawDetailView(id) },
  { pattern: /^\/refunds$/, view: (params) => refundsListView(params) },
  { pattern: /^\/events$/, view: (params) => eventsView(params) },
  { pattern: /^\/events\/([^/]+)$/, view: (_params, id) => eventDetailView(id) },
  { pattern: /^\/deliveries$/, view: (params) => deliveriesView(params) },
  { pattern: /^\/webhooks$/, view: () => webhooksView(), leave: forgetEndpointSecret },
  { pattern: /^\/exports$/, view: () => exportsView() },
  // The secret of a key created here is shown until the page is left, and never again.
  { pattern: /^\/api-keys$/, view: () => apiKeysView(), leave: forgetNewKey },
  { pattern: /^\/users$/, view: () => usersView() },
  // The enrolment's key is shown until the page is left, and never again.
  { pattern: /^\/security$/, view: () => securityView(), leave: forgetEnrolment },
  { pattern: /^\/audit$/, view: (params) => auditView(params) },
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
