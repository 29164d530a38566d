/**
 * The operator's undecided-payout routes under /admin/v1 (CONTRACT 15; the operator check runs
 * in their scope, app.ts):
 *
 * - GET  /payouts/undecided       payouts a connector holds undecided past PAYOUT_UNDECIDED_ALERT_S
 * - POST /withdraws/:id/resolve   { outcome, reason, bankReference? }: the operator decides one
 * - POST /refunds/:id/resolve     the same for a refund's payout
 */

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { operatorActor } from "../admin/actor.ts";
import { ok, page } from "../http/envelope.ts";
import { documented } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import { AppError } from "../lib/errors.ts";
import { PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import { bankReferenceInUse } from "./bank-references.ts";
import type { LifecycleContext } from "./context.ts";
import { listUndecided, resolveRefund, resolveWithdraw } from "./undecided.ts";
import {
  RefundIdParams,
  RefundResolveEnvelope,
  ResolveBody,
  ResolveEnvelope,
  UndecidedListEnvelope,
  UndecidedQuery,
  WithdrawIdParams,
} from "./undecided-schemas.ts";

const tags = ["admin"];

export function undecidedPayoutRoutes(ctx: LifecycleContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      "/payouts/undecided",
      {
        schema: {
          tags,
          summary: "Payouts the bank's answers leave undecided past PAYOUT_UNDECIDED_ALERT_S",
          operationId: "listUndecidedPayouts",
          description:
            "Processing withdraws and refunds whose transfer a connector holds open, the longest " +
            "undecided first, with where the transfer stands and the bank's last answers. Decide each " +
            "with POST /admin/v1/withdraws/{id}/resolve or POST /admin/v1/refunds/{id}/resolve.",
          querystring: UndecidedQuery,
          response: { 200: UndecidedListEnvelope },
        },
      },
      async (request) => {
        const pageNumber = request.query.page ?? 1;
        const limit = request.query.limit ?? PAGE_SIZE_DEFAULT;
        const { records, total } = await listUndecided(ctx, { page: pageNumber, limit });
        return ok(page(records, total, pageNumber, limit));
      },
    );

    app.post(
      "/withdraws/:id/resolve",
      {
        schema: {
          tags,
          summary: "Decide an undecided payout: paid or failed, with the reason and the bank's reference",
          operationId: "resolveWithdraw",
          description:
            "Only a processing withdraw whose payout a connector holds (else 409 STATE_CONFLICT). " +
            "failed is refused (409 STATE_CONFLICT, reason bank_shows_paid) while the bank's last answer shows the " +
            "transfer completed, and (reason payout_in_flight) while a transfer create or " +
            "confirm the connector sent moments ago may still be carried out (its answer decides first), " +
            "and while the connector holding the payout is not configured on this server (nobody can ask it). " +
            "Booked like the bank's own answer: paid consumes the hold, failed returns it to the wallet; " +
            "the event and webhooks follow. Who decided, why and the bank's evidence are recorded.",
          params: WithdrawIdParams,
          body: ResolveBody,
          response: { 200: ResolveEnvelope },
          "x-errors": resolveErrors("withdraw"),
        },
      },
      async (request) =>
        ok(
          await resolveWithdraw(ctx, request.params.id, request.body, {
            // The operator the credential names (admin/actor.ts), as the payout desk records it.
            actor: operatorActor(request).name,
            requestId: String(request.id),
          }),
        ),
    );

    resolveRefundRoute(app, ctx);
  };
}

/** POST /refunds/:id/resolve: the refund's side of the operator's decision. */
function resolveRefundRoute(app: App, ctx: LifecycleContext): void {
  app.post(
    "/refunds/:id/resolve",
    {
      schema: {
        tags,
        summary:
          "Decide an undecided refund payout: paid or failed, with the reason and the bank's reference",
        operationId: "resolveRefund",
        description:
          "Only a processing refund whose payout a connector holds (else 409 STATE_CONFLICT). " +
          "failed is refused (409 STATE_CONFLICT, reason bank_shows_paid) while the bank's last answer shows the " +
          "transfer completed, and (reason payout_in_flight) while a transfer create or " +
          "confirm the connector sent moments ago may still be carried out (its answer decides first), " +
          "and while the connector holding the payout is not configured on this server (nobody can ask it). " +
          "Booked like the bank's own answer: paid consumes the hold (refund.succeeded), failed " +
          "returns it where it came from with the reason as the refund's failureReason " +
          "(refund.failed); the bank is still asked, and until it answers the refund's amount stays " +
          "on its payment's refunded sum (no second refund takes it; the bank's later payment is " +
          "booked as the refund's late success). Who decided, why and the bank's evidence are recorded.",
        params: RefundIdParams,
        body: ResolveBody,
        response: { 200: RefundResolveEnvelope },
        "x-errors": resolveErrors("refund"),
      },
    },
    async (request) =>
      ok(
        await resolveRefund(ctx, request.params.id, request.body, {
          actor: operatorActor(request).name,
          requestId: String(request.id),
        }),
      ),
  );
}

/** What the resolve routes answer besides 200, for the withdraw's and the refund's alike. */
function resolveErrors(kind: "withdraw" | "refund") {
  const name = kind === "withdraw" ? "Withdraw" : "Refund";
  return [
    documented(`No ${kind} has this id`, new AppError("RESOURCE_NOT_FOUND", `${name} not found`)),
    documented(
      `The ${kind} is not processing, or no connector holds its payout`,
      new AppError("STATE_CONFLICT", `${name} is pending: only a processing ${kind} can be resolved`, {
        status: "pending",
        reason: "not_undecided",
      }),
    ),
    documented(
      "failed while a transfer step the connector sent moments ago may still be carried out",
      new AppError("STATE_CONFLICT", `${name} cannot be resolved failed yet: ...`, {
        status: "processing",
        reason: "payout_in_flight",
      }),
    ),
    documented(
      "failed while the bank's last answer shows the transfer completed (for another amount, say)",
      new AppError("STATE_CONFLICT", `${name} cannot be resolved failed: ...`, {
        status: "processing",
        reason: "bank_shows_paid",
      }),
    ),
    documented(
      "paid with a bank reference a payout desk line or another resolution holds",
      bankReferenceInUse("KB-20261205-0001", {
        batch_id: null,
        withdraw_id: "9b2f4c1e-7a3d-4e8b-9c6f-1d2e3f4a5b6c",
        refund_id: null,
      }),
    ),
  ];
}
