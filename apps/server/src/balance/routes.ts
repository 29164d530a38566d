/**
 * GET /api/v1/balance. HMAC authentication runs before the handler (app.ts).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db/handles.ts";
import { merchantOf } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { BalanceEnvelope } from "./schemas.ts";
import { getBalance } from "./service.ts";

export function balanceRoutes(ctx: { db: Db }): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      "/",
      {
        schema: {
          tags: ["balance"],
          summary: "Get balance",
          operationId: "getBalance",
          description:
            "walletBalance: what can be withdrawn now (wallet minus holds); settlementBalance: " +
            "succeeded payments not yet settled. Both in satang, as JSON numbers.",
          response: { 200: BalanceEnvelope },
        },
      },
      async (request) => ok(await getBalance(ctx, merchantOf(request))),
    );
  };
}
