/**
 * The operator's side of the dashboard, mounted under /admin/v1 beside the other operator
 * routes (CONTRACT 2): create a dashboard user for a merchant.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db/handles.ts";
import { ok } from "../http/envelope.ts";
import type { Clock } from "../lib/clock.ts";
import { CreateUserBody, MerchantIdParams, UserEnvelope } from "./schemas.ts";
import { createDashboardUser } from "./users.ts";

export function dashboardAdminRoutes(ctx: { db: Db; clock: Clock }): FastifyPluginAsync {
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
            "Emails are unique across the service, whatever their case: a taken one is 409 STATE_CONFLICT.",
          params: MerchantIdParams,
          body: CreateUserBody,
          response: { 201: UserEnvelope },
        },
      },
      async (request, reply) => {
        const user = await createDashboardUser(ctx, request.params.id, request.body);
        return reply.code(201).send(ok(user));
      },
    );
  };
}
