/**
 * The public withdraws API under /api/v1/withdraws (interface.md "Endpoints"). HMAC
 * authentication runs before these handlers (app.ts); each route is its schema and one
 * service call.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { authOf, merchantOf } from "../http/auth.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import type { App } from "../http/typed-app.ts";
import {
  CreateWithdrawBody,
  EmptyBody,
  ListWithdrawsQuery,
  WithdrawEnvelope,
  WithdrawIdParams,
  WithdrawListEnvelope,
  WithdrawReferenceParams,
} from "./schemas.ts";
import {
  cancelWithdraw,
  createWithdraw,
  getWithdraw,
  getWithdrawByReference,
  listWithdraws,
  type WithdrawContext,
} from "./service.ts";

const tags = ["withdraws"];

export function withdrawRoutes(ctx: WithdrawContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    createRoute(app, ctx);
    listRoute(app, ctx);
    retrieveByReferenceRoute(app, ctx);
    retrieveRoute(app, ctx);
    cancelRoute(app, ctx);
  };
}

function createRoute(app: App, ctx: WithdrawContext): void {
  app.post(
    "/",
    {
      // The replay record of the signed request commits in the create's own transaction.
      config: { replayInTransaction: true },
      schema: {
        tags,
        summary: "Create withdraw",
        description:
          "201 with the new withdraw, its amount held from the available wallet. 200 with the " +
          "original withdraw for an idempotent replay (header Idempotent-Replayed: true), which " +
          "uses no limit capacity. Checks in order: duplicate referenceId (409), wallet status " +
          "(403 WALLET_INACTIVE), matching-payout guard (409 STATE_CONFLICT), daily then monthly " +
          "limit (400 INVALID_INPUT), balance (400 INSUFFICIENT_BALANCE).",
        body: CreateWithdrawBody,
        response: { 200: WithdrawEnvelope, 201: WithdrawEnvelope },
      },
    },
    async (request, reply) => {
      const { merchant, integration, replay } = authOf(request);
      const result = await createWithdraw(ctx, merchant, integration, request.body, replay);
      if (result.outcome === "replayed") reply.header("Idempotent-Replayed", "true");
      reply.code(result.outcome === "created" ? 201 : 200);
      return ok(result.withdraw);
    },
  );
}

function listRoute(app: App, ctx: WithdrawContext): void {
  app.get(
    "/",
    {
      schema: {
        tags,
        summary: "List withdraws",
        querystring: ListWithdrawsQuery,
        response: { 200: WithdrawListEnvelope },
      },
    },
    async (request) => ok(await listWithdraws(ctx, merchantOf(request), request.query)),
  );
}

function retrieveByReferenceRoute(app: App, ctx: WithdrawContext): void {
  app.get(
    "/by-reference/:referenceId",
    {
      schema: {
        tags,
        summary: "Retrieve withdraw by merchant reference",
        params: WithdrawReferenceParams,
        response: { 200: WithdrawEnvelope },
      },
    },
    async (request) => ok(await getWithdrawByReference(ctx, merchantOf(request), request.params.referenceId)),
  );
}

function retrieveRoute(app: App, ctx: WithdrawContext): void {
  app.get(
    "/:withdraw_id",
    {
      schema: {
        tags,
        summary: "Retrieve withdraw",
        params: WithdrawIdParams,
        response: { 200: WithdrawEnvelope },
      },
    },
    async (request) => ok(await getWithdraw(ctx, merchantOf(request), request.params.withdraw_id)),
  );
}

function cancelRoute(app: App, ctx: WithdrawContext): void {
  app.post(
    "/:withdraw_id/cancel",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Cancel withdraw",
        description:
          "pending and awaiting_verification withdraws become canceled and their hold returns to " +
          "the available wallet. processing, paid, failed, canceled and expired ones answer 400 " +
          "VALIDATION_ERROR: a payout already with the provider cannot be recalled.",
        params: WithdrawIdParams,
        body: EmptyBody,
        response: { 200: WithdrawEnvelope },
      },
    },
    async (request) => ok(await cancelWithdraw(ctx, merchantOf(request), request.params.withdraw_id)),
  );
}
