/**
 * The operator's side of the dashboard, mounted under /admin/v1 beside the other operator
 * routes (CONTRACT 2): create a dashboard user for a merchant (with a role, CONTRACT 13), and
 * reset a user's two-factor login when the authenticator is lost.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import { documented } from "../http/openapi-errors.ts";
import type { Clock } from "../lib/clock.ts";
import { notFound } from "../lib/errors.ts";
import { CreateUserBody, IdParams, MerchantIdParams, UserEnvelope } from "./schemas.ts";
import { resetTwoFactor, type TwoFactorContext } from "./two-factor.ts";
import { createDashboardUser, emailTaken } from "./users.ts";

export function dashboardAdminRoutes(ctx: TwoFactorContext & { clock: Clock }): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      "/merchants/:id/users",
      {
        schema: {
          tags: ["admin"],
          summary: "Create a dashboard user for a merchant",
          operationId: "createDashboardUser",
          description:
            "The user logs in at /dashboard with this email and password (POST /api/v1/auth/login). " +
            "Emails are unique across the service, whatever their case: a taken one is 409 STATE_CONFLICT. " +
            "role: owner (default; everything, users included), developer (API keys, webhook endpoints, " +
            "reads) or finance (reads and exports only).",
          params: MerchantIdParams,
          body: CreateUserBody,
          "x-errors": [
            documented("No merchant has this id", notFound("Merchant")),
            documented("A dashboard user already has this email, in any case", emailTaken()),
          ],
          response: { 201: UserEnvelope },
        },
      },
      async (request, reply) => {
        const user = await createDashboardUser(ctx, request.params.id, request.body);
        return reply.code(201).send(ok(user));
      },
    );

    app.post(
      "/users/:id/two-factor/reset",
      {
        preValidation: emptyBodyAsObject,
        schema: {
          tags: ["admin"],
          summary: "Reset a dashboard user's two-factor login (the user lost the authenticator)",
          operationId: "resetTwoFactor",
          description:
            "Removes the user's TOTP authenticator: the next login needs only the password, and the " +
            "user enrols again (an owner in live must, before anything else). Audited like every change.",
          params: IdParams,
          body: EmptyBody,
          "x-errors": [documented("No dashboard user has this id", notFound("Dashboard user"))],
          response: { 200: UserEnvelope },
        },
      },
      async (request) => ok(await resetTwoFactor(ctx, request.params.id)),
    );
  };
}
