/**
 * POST /api/v1/auth/login and /api/v1/auth/logout (interface.md's login endpoint, CONTRACT 13).
 *
 * These sit under /api/v1 but are registered as their own plugin, beside the HMAC-authenticated
 * scope rather than inside it (app.ts): a person logging in has a password, not an API key, and
 * Fastify applies a scope's hooks only to the routes registered within it.
 */

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from "fastify";
import type { AuditActor } from "../audit/service.ts";
import { installAuditTrail } from "../audit/trail.ts";
import type { Config } from "../config.ts";
import { emptyBodyAsObject, rejectUnparsedBody } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import { documented } from "../http/openapi-errors.ts";
import { EXAMPLE_MOMENT } from "../http/openapi-examples.ts";
import type { App } from "../http/typed-app.ts";
import { isAppError } from "../lib/errors.ts";
import { lockedOut } from "./lockout.ts";
import { createLoginThrottle } from "./login-throttle.ts";
import { passwordQueueOf } from "./password-queue.ts";
import { dummyPasswordHash } from "./passwords.ts";
import { LoginBody, LoginEnvelope, LogoutEnvelope } from "./schemas.ts";
import {
  dashboardAuditActor,
  invalidLogin,
  invalidSession,
  login,
  logout,
  type SessionContext,
  sessionAuthentication,
  merchantUnavailable as sessionMerchantUnavailable,
  sessionOf,
} from "./sessions.ts";

/** OpenAPI security of the bearer-token routes (http/openapi.ts declares the scheme). */
const DASHBOARD_SECURITY = [{ DashboardSession: [] }];

const tags = ["dashboard"];

export function loginRoutes(ctx: SessionContext & { config: Pick<Config, "login"> }): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const limits = ctx.config.login;
    const throttle = createLoginThrottle(limits.perAddressPerMinute, ctx.wallClock);
    const queue = passwordQueueOf(ctx, { running: limits.hashesMax, waiting: limits.queueMax });
    app.decorateRequest("dashboard", undefined);
    installLoginAudit(plugin, ctx);
    // The dummy hash is computed now rather than by the first login with an unknown email,
    // which would otherwise take twice as long as every other failed login.
    dummyPasswordHash().catch((err) => plugin.log.warn({ err }, "could not prepare the dummy password hash"));

    app.post(
      "/login",
      {
        preValidation: rejectUnparsedBody,
        schema: {
          tags,
          summary: "Log in to the dashboard",
          operationId: "logIn",
          description:
            "For people using the dashboard, not for API integrations. 200 with a session token valid " +
            "for 12 hours. A wrong email or password is 401 INVALID_CREDENTIALS (one message for both); " +
            "after 5 failed logins of one email within 15 minutes, 429 RATE_LIMIT_EXCEEDED until the " +
            "oldest of them is 15 minutes old. One client address may try LOGIN_PER_ADDRESS_PER_MINUTE " +
            "logins a minute (default 20), then 429 RATE_LIMIT_EXCEEDED; when too many logins wait for " +
            "a password check, 503 SERVICE_UNAVAILABLE. Both carry Retry-After. A user with two-factor " +
            "login sends otp, the authenticator's current 6-digit code (RFC 6238); a missing, wrong or " +
            "already used code is the same 401 and counts towards the lockout.",
          security: [],
          body: LoginBody,
          response: { 200: LoginEnvelope },
          "x-errors": [
            documented("The email or the password is wrong (one message for both)", invalidLogin()),
            documented(
              "The password is right but the user's merchant is disabled",
              sessionMerchantUnavailable(),
            ),
            documented(
              "5 failed logins of this email within 15 minutes",
              lockedOut(Array(5).fill(new Date(EXAMPLE_MOMENT)), new Date(EXAMPLE_MOMENT)),
            ),
          ],
        },
      },
      async (request, reply) => {
        let result: Awaited<ReturnType<typeof login>>;
        try {
          throttle.admit(request.ip);
          result = await login(ctx, request.body, queue.run);
        } catch (error) {
          // A refused login is told when to come back in the header HTTP clients know too.
          const retryAfter = retryAfterOf(error);
          if (retryAfter !== undefined) reply.header("Retry-After", String(retryAfter));
          throw error;
        }
        // The token is a credential: no cache between the server and the browser keeps it.
        reply.header("Cache-Control", "no-store");
        return ok(result);
      },
    );

    logoutRoute(app, ctx);
  };
}

/** The seconds a throttled (429) or queued-out (503) login is told to wait. */
function retryAfterOf(error: unknown): number | undefined {
  if (!isAppError(error)) return undefined;
  return error.code === "RATE_LIMIT_EXCEEDED" || error.code === "SERVICE_UNAVAILABLE"
    ? error.metadata.retryAfter
    : undefined;
}

function userOf(
  data: Record<string, unknown>,
): { id: string; email: string; merchantId: string } | undefined {
  const user = data.user as { id?: unknown; email?: unknown; merchantId?: unknown } | undefined;
  if (typeof user?.id !== "string" || typeof user.email !== "string" || typeof user.merchantId !== "string")
    return undefined;
  return { id: user.id, email: user.email, merchantId: user.merchantId };
}

function logoutRoute(app: App, ctx: SessionContext): void {
  app.post(
    "/logout",
    {
      preValidation: [sessionAuthentication(ctx), rejectUnparsedBody, emptyBodyAsObject],
      schema: {
        tags,
        summary: "Log out of the dashboard",
        operationId: "logOut",
        description: "Ends the session of the bearer token at once.",
        security: DASHBOARD_SECURITY,
        body: EmptyBody,
        response: { 200: LogoutEnvelope },
        "x-errors": [
          documented("The session token is missing, unknown or expired", invalidSession()),
          documented("The user's merchant is disabled", sessionMerchantUnavailable()),
        ],
      },
    },
    async (request) => {
      await logout(ctx, sessionOf(request));
      return ok({ loggedOut: true as const });
    },
  );
}

/** Logins and logouts are audited: who, from where, when (CONTRACT 2). */
function installLoginAudit(plugin: FastifyInstance, ctx: SessionContext): void {
  installAuditTrail(plugin, {
    ...ctx,
    actorOf: loginAuditActor,
    merchantOf: (request, data) => request.dashboard?.merchant.id ?? userOf(data)?.merchantId,
  });
}

/** A logout's actor is its session's user; a login's, the user its answer names. */
function loginAuditActor(request: FastifyRequest, data: Record<string, unknown>): AuditActor | undefined {
  if (request.dashboard) return dashboardAuditActor(request);
  const user = userOf(data);
  return user && { kind: "dashboard_user", id: user.id, name: user.email, via: "dashboard" };
}
