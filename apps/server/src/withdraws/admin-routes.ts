/**
 * The operator's wallet and withdraw routes (CONTRACT 2), mounted under /admin/v1 beside the
 * admin module's own routes:
 *
 * - POST /merchants/:id/wallet/adjustments  { amount (signed), reason } -> 201 ledger entry
 * - POST /withdraws/:id/approve              awaiting_verification -> pending
 * - POST /withdraws/:id/reject               awaiting_verification -> canceled, hold released
 *
 * The operator check (admin/auth.ts) runs before the body is looked at, so an unauthenticated
 * caller learns nothing from validation errors.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, preValidationAsyncHookHandler } from "fastify";
import { adminAuthentication } from "../admin/auth.ts";
import type { Deps } from "../deps.ts";
import { rejectUnparsedBody } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { adjustWallet } from "../ledger/adjustments.ts";
import { parseSignedAmount } from "../lib/money.ts";
import { emptyBodyAsObject } from "./routes.ts";
import { AdjustmentBody, AdjustmentEnvelope, AdminIdParams, EmptyBody, WithdrawEnvelope } from "./schemas.ts";
import { approveWithdraw, rejectWithdraw } from "./service.ts";

const tags = ["admin"];

export function withdrawAdminRoutes(
  deps: Deps,
  authenticate: preValidationAsyncHookHandler = adminAuthentication(deps),
): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.addHook("preValidation", authenticate);
    app.addHook("preValidation", rejectUnparsedBody);

    app.post(
      "/merchants/:id/wallet/adjustments",
      {
        schema: {
          tags,
          summary: "Adjust a merchant's available wallet",
          description:
            "Credits (positive amount) or debits (negative amount) the available wallet under the " +
            "wallet lock. A debit larger than the available wallet answers 400 INSUFFICIENT_BALANCE.",
          params: AdminIdParams,
          body: AdjustmentBody,
          response: { 201: AdjustmentEnvelope },
        },
      },
      async (request, reply) => {
        const amountSatang = parseSignedAmount(request.body.amount);
        if (amountSatang === null)
          throw new Error(`schema let an invalid amount through: ${request.body.amount}`);
        const entry = await adjustWallet(deps, request.params.id, {
          amountSatang,
          reason: request.body.reason.trim(),
        });
        return reply.code(201).send(ok(entry));
      },
    );

    for (const [action, decide] of [
      ["approve", approveWithdraw],
      ["reject", rejectWithdraw],
    ] as const) {
      app.post(
        `/withdraws/:id/${action}`,
        {
          preValidation: emptyBodyAsObject,
          schema: {
            tags,
            summary:
              action === "approve"
                ? "Approve a withdraw awaiting verification (-> pending)"
                : "Reject a withdraw awaiting verification (-> canceled, hold released)",
            params: AdminIdParams,
            body: EmptyBody,
            response: { 200: WithdrawEnvelope },
          },
        },
        async (request) => ok(await decide(deps, request.params.id)),
      );
    }
  };
}
