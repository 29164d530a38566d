// @ts-check
// Who is signed in (GET /me), for the views that show or hide what the user's role may do
// (CONTRACT 13). Hiding is a courtesy: the server refuses a role's forbidden action itself.

/** @import { MessageKey } from "./i18n.js" */
/** @import { Me } from "./types.js" */
import { h } from "./dom.js";
import { t } from "./lang.js";

/** @type {Me | null} */
let account = null;

/** @param {Me | null} me */
export function setAccount(me) {
  account = me;
}

/** @returns {Me | null} */
export function currentAccount() {
  return account;
}

/** The signed-in user's role; "finance" (the most limited) until /me has answered. */
export function currentRole() {
  return account?.user.role ?? "finance";
}

/** Whether the user may manage API keys and webhook endpoints: owners and developers. */
export function canBuild() {
  const role = currentRole();
  return role === "owner" || role === "developer";
}

/** Whether the user may download the CSV exports: owners and finance (CONTRACT 13). */
export function canExport() {
  const role = currentRole();
  return role === "owner" || role === "finance";
}

/** Whether the user may refund a payment (it sends the merchant's money): owners. */
export function canRefund() {
  return currentRole() === "owner";
}

/** Whether the user manages the merchant's users and their roles: owners. */
export function canManageUsers() {
  return currentRole() === "owner";
}

let stale = false;

/** Says that /me must be read again before the next drawing (the user's role or 2FA changed). */
export function invalidateAccount() {
  stale = true;
}

/** Whether /me must be read again; reading the answer clears it. */
export function takeStaleAccount() {
  const was = stale;
  stale = false;
  return was;
}

/** The line a role that may only read sees where a page's forms would be. */
export function readOnlyNotice() {
  return h(
    "p",
    { class: "notice", "data-testid": "read-only" },
    t("readOnlyNotice", { role: roleName(currentRole()) }),
  );
}

/**
 * A role's name in the current language.
 * @param {"owner" | "developer" | "finance"} role
 */
export function roleName(role) {
  return t(/** @type {MessageKey} */ (`role.${role}`));
}
