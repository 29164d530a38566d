/**
 * The operator's withdraw decisions (CONTRACT 2), mounted under /admin/v1 with the other
 * operator routes (the operator check runs in their scope, app.ts):
 *
 * - POST /withdraws/:id/approve  awaiting_verification -> pending
 * - POST /withdraws/:id/reject   awaiting_verification -> canceled, hold released
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { documented } from "../http/openapi-errors.ts";
import { AdminIdParams, EmptyBody, WithdrawEnvelope } from "./schemas.ts";
import {
  approveWithdraw,
  notAwaitingVerification,
  rejectWithdraw,
  type WithdrawContext,
  withdrawNotFound,
} from "./service.ts";

const tags = ["admin"];

export function withdrawAdminRoutes(ctx: WithdrawContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
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
            operationId: action === "approve" ? "approveWithdraw" : "rejectWithdraw",
            params: AdminIdParams,
            body: EmptyBody,
            response: { 200: WithdrawEnvelope },
            "x-errors": [
              documented("No withdraw has this id", withdrawNotFound()),
              documented(
                "The withdraw is not awaiting verification",
                notAwaitingVerification({ status: "pending" }),
              ),
            ],
          },
        },
        async (request) => ok(await decide(ctx, request.params.id)),
      );
    }
  };
}
