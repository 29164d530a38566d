/**
 * The operator's wallet adjustment (CONTRACT 2), mounted under /admin/v1 with the other
 * operator routes (the operator check runs in their scope, app.ts):
 *
 * - POST /merchants/:id/wallet/adjustments  { amount (signed), reason, idempotencyKey? } -> 201
 *   ledger entry; 200 with the entry a key made for a retry of it
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db/handles.ts";
import { ok } from "../http/envelope.ts";
import { documented, IDEMPOTENT_REPLAYED_HEADER, SUCCESS_HEADERS_KEY } from "../http/openapi-errors.ts";
import { adjustWallet } from "../ledger/adjustments.ts";
import { AdjustmentBody, AdjustmentEnvelope } from "../ledger/schemas.ts";
import type { Clock } from "../lib/clock.ts";
import { notFound } from "../lib/errors.ts";
import { idempotencyKeyMismatch } from "../lib/idempotency.ts";
import { parseSignedAmount } from "../lib/money.ts";
import { IdParams } from "./schemas.ts";

export function walletAdjustmentRoutes(ctx: { db: Db; clock: Clock }): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      "/merchants/:id/wallet/adjustments",
      {
        schema: {
          tags: ["admin"],
          summary: "Adjust a merchant's available wallet",
          operationId: "adjustMerchantWallet",
          description:
            "Credits (positive amount) or debits (negative amount) the available wallet under the " +
            "wallet lock. A debit larger than the available wallet answers 400 INSUFFICIENT_BALANCE. " +
            "With an idempotencyKey, a retry with the same body answers 200 with the adjustment the " +
            "key made (header Idempotent-Replayed: true) and moves no money.",
          params: IdParams,
          body: AdjustmentBody,
          "x-errors": [
            documented("No merchant has this id", notFound("Merchant")),
            documented("The idempotencyKey was already used with a different body", idempotencyKeyMismatch()),
          ],
          response: { 200: AdjustmentEnvelope, 201: AdjustmentEnvelope },
          [SUCCESS_HEADERS_KEY]: { 200: IDEMPOTENT_REPLAYED_HEADER },
        },
      },
      async (request, reply) => {
        const amountSatang = parseSignedAmount(request.body.amount);
        if (amountSatang === null)
          throw new Error(`schema let an invalid amount through: ${request.body.amount}`);
        const { idempotencyKey } = request.body;
        const result = await adjustWallet(ctx, request.params.id, {
          amountSatang,
          reason: request.body.reason.trim(),
          ...(idempotencyKey === undefined
            ? {}
            : { idempotency: { key: idempotencyKey, body: request.body } }),
        });
        if (result.outcome === "replayed") reply.header("Idempotent-Replayed", "true");
        return reply.code(result.outcome === "created" ? 201 : 200).send(ok(result.adjustment));
      },
    );
  };
}
