/**
 * POST /api/v1/auth/login and /api/v1/auth/logout (interface.md's login endpoint, CONTRACT 13).
 *
 * These sit under /api/v1 but are registered as their own plugin, beside the HMAC-authenticated
 * scope rather than inside it (app.ts): a person logging in has a password, not an API key, and
 * Fastify applies a scope's hooks only to the routes registered within it.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import type { Deps } from "../deps.ts";
import { rejectUnparsedBody } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import { isAppError } from "../lib/errors.ts";
import { dummyPasswordHash } from "./passwords.ts";
import { LoginBody, LoginEnvelope, LogoutEnvelope } from "./schemas.ts";
import { login, logout, sessionAuthentication, sessionOf } from "./sessions.ts";

/** OpenAPI security of the bearer-token routes (http/openapi.ts declares the scheme). */
export const DASHBOARD_SECURITY = [{ DashboardSession: [] }];

const tags = ["dashboard"];

export function loginRoutes(deps: Deps): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.decorateRequest("dashboard", undefined);
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
          description:
            "For people using the dashboard, not for API integrations. 200 with a session token valid " +
            "for 12 hours. A wrong email or password is 401 INVALID_CREDENTIALS (one message for both); " +
            "after 5 failed logins of one email within 15 minutes, 429 RATE_LIMIT_EXCEEDED until the " +
            "oldest of them is 15 minutes old.",
          security: [],
          body: LoginBody,
          response: { 200: LoginEnvelope },
        },
      },
      async (request, reply) => {
        let result: Awaited<ReturnType<typeof login>>;
        try {
          result = await login(deps, request.body);
        } catch (error) {
          // A locked-out email is told when to come back in the header HTTP clients know too.
          if (isAppError(error) && error.code === "RATE_LIMIT_EXCEEDED") {
            reply.header("Retry-After", String(error.metadata?.retryAfter ?? ""));
          }
          throw error;
        }
        // The token is a credential: no cache between the server and the browser keeps it.
        reply.header("Cache-Control", "no-store");
        return ok(result);
      },
    );

    app.post(
      "/logout",
      {
        preValidation: [
          sessionAuthentication(deps),
          rejectUnparsedBody,
          async (request) => {
            if (request.body === undefined || request.body === null) request.body = {};
          },
        ],
        schema: {
          tags,
          summary: "Log out of the dashboard",
          description: "Ends the session of the bearer token at once.",
          security: DASHBOARD_SECURITY,
          body: EmptyBody,
          response: { 200: LogoutEnvelope },
        },
      },
      async (request) => {
        await logout(deps, sessionOf(request));
        return ok({ loggedOut: true as const });
      },
    );
  };
}
