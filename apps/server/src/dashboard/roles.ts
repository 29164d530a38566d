/**
 * Who may do what in the dashboard (CONTRACT 13):
 * - owner: everything, the merchant's users and their roles included;
 * - developer: API keys, webhook endpoints (and redelivering events), and reads;
 * - finance: reads and exports only (the CSV exports: owners and finance, `EXPORTERS`).
 * A route names the roles that may call it in its `config.roles`; without one, reads are open to
 * every role and writes to owners and developers. The check runs in the route itself (a hook of
 * the dashboard API, before the body is validated), so a hidden button is never the only guard:
 * a refused request is 403 FORBIDDEN. While an owner in live has not enrolled two-factor login,
 * only routes marked `config.beforeTwoFactor` answer; the rest are 403 FORBIDDEN too.
 *
 * An API key carries the merchant's whole API (payments, withdraws to any account, refunds,
 * exports), more than any role but the owner may do in the dashboard. So in live a route marked
 * `config.twoFactorInLive` (creating an API key) also needs two-factor login of a developer,
 * whom the dashboard otherwise does not hold to it, and a session signed in with its code: once
 * a user has enrolled, neither a stolen password nor a session signed in with the password
 * alone (one made before the user enrolled, or in which the user enrolled) mints a key.
 */
import type { FastifyRequest } from "fastify";
import type { DashboardRole } from "../db/types.ts";
import { AppError } from "../lib/errors.ts";
import { sessionOf } from "./sessions.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The dashboard roles that may call this route. */
    roles?: readonly DashboardRole[];
    /** Open to an owner who must still enrol two-factor login (enrolment itself, who am I). */
    beforeTwoFactor?: boolean;
    /** In live, only for a user with two-factor login, whatever the role (creating an API key). */
    twoFactorInLive?: boolean;
  }
}

export const EVERY_ROLE: readonly DashboardRole[] = ["owner", "developer", "finance"];
export const BUILDERS: readonly DashboardRole[] = ["owner", "developer"];
export const OWNERS: readonly DashboardRole[] = ["owner"];
/**
 * The CSV exports: CONTRACT 13 gives finance "reads and exports" and a developer "reads", so an
 * export (the merchant's whole books for a range, to take away) is not a developer's read.
 */
export const EXPORTERS: readonly DashboardRole[] = ["owner", "finance"];

export const roleRefused = (role: DashboardRole, allowedRoles: readonly DashboardRole[]) =>
  new AppError(
    "FORBIDDEN",
    `A ${role} user may not do this: it takes the role ${allowedRoles.join(" or ")}`,
    {
      reason: "role",
      role,
      allowedRoles: [...allowedRoles],
    },
  );

export const enrolmentRequired = () =>
  new AppError("FORBIDDEN", "Set up two-factor login first: owners in live must use an authenticator app", {
    reason: "two_factor_enrolment_required",
  });

export const keyNeedsTwoFactor = () =>
  new AppError(
    "FORBIDDEN",
    "Set up two-factor login first: in live, a new API key needs a user with an authenticator app",
    { reason: "two_factor_enrolment_required" },
  );

export const keyNeedsTwoFactorLogin = () =>
  new AppError(
    "FORBIDDEN",
    "Sign out and sign in again with your authenticator's code: in live, a new API key needs a session signed in with two-factor login, and this one was signed in with the password alone",
    { reason: "two_factor_login_required" },
  );

const READS = new Set(["GET", "HEAD"]);

/** The roles a route allows: its own list, else reads for all and writes for builders. */
export function allowedRoles(method: string, roles: readonly DashboardRole[] | undefined) {
  return roles ?? (READS.has(method) ? EVERY_ROLE : BUILDERS);
}

/** preValidation hook of the dashboard API, after the session check. */
export async function authorizeRole(request: FastifyRequest): Promise<void> {
  const session = sessionOf(request);
  const config = request.routeOptions.config;
  if (session.twoFactorRequired && config.beforeTwoFactor !== true) throw enrolmentRequired();
  const allowed = allowedRoles(request.method, config.roles);
  if (!allowed.includes(session.user.role)) throw roleRefused(session.user.role, allowed);
  if (config.twoFactorInLive === true && session.secondFactorMissingInLive !== undefined)
    throw session.secondFactorMissingInLive === "enrolment" ? keyNeedsTwoFactor() : keyNeedsTwoFactorLogin();
}
