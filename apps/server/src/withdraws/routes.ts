/**
 * The public withdraws API under /api/v1/withdraws (interface.md "Endpoints"). HMAC
 * authentication runs before these handlers (app.ts); each route is its schema and one
 * service call.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { authOf, merchantOf } from "../http/auth.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { emptyReferenceRoute } from "../http/empty-reference.ts";
import { ok } from "../http/envelope.ts";
import { documented, IDEMPOTENT_REPLAYED_HEADER, SUCCESS_HEADERS_KEY } from "../http/openapi-errors.ts";
import { EXAMPLE_IDS } from "../http/openapi-examples.ts";
import type { App } from "../http/typed-app.ts";
import type { AppError } from "../lib/errors.ts";
import { duplicateReference, idempotencyKeyMismatch } from "../lib/idempotency.ts";
import { guardError } from "./guard.ts";
import { limitError } from "./limits.ts";
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
  inPayoutBatch,
  insufficientBalance,
  listWithdraws,
  notCancelable,
  type WithdrawContext,
  walletInactive,
  withdrawNotFound,
} from "./service.ts";

const tags = ["withdraws"];

const notFound = documented(
  "No withdraw of this merchant has this id (another merchant's withdraw is not found either)",
  withdrawNotFound(),
);

/** The errors of a create, in the order its checks run (CONTRACT 7). */
const CREATE_ERRORS = [
  documented(
    "Another withdraw of this merchant already has this referenceId",
    duplicateReference("withdraw", "payout-1001"),
  ),
  documented("The idempotencyKey was already used with a different body", idempotencyKeyMismatch()),
  documented("The merchant's wallet is frozen or closed", walletInactive("frozen")),
  documented(
    "A matching payout (same amount, similar account holder name) is still active",
    guardError({
      existingWithdrawId: EXAMPLE_IDS.withdraw,
      existingWithdrawStatus: "processing",
      reason: "active_payout",
    }),
  ),
  documented(
    "A matching payout was created less than 15 minutes ago",
    guardError({
      existingWithdrawId: EXAMPLE_IDS.withdraw,
      existingWithdrawStatus: "paid",
      reason: "recent_payout",
      retryAfter: "2026-01-15T12:15:00.000Z",
    }),
  ),
  ...[
    { dailySatang: 500_000n, monthlySatang: null },
    { dailySatang: null, monthlySatang: 10_000_000n },
  ].map((limits) =>
    documented(
      `The ${limits.dailySatang === null ? "monthly" : "daily"} withdrawal limit would be exceeded`,
      limitError(limits, { dailySatang: 450_000n, monthlySatang: 9_950_000n }, 100_000n) as AppError,
    ),
  ),
  documented("The available wallet is smaller than the amount", insufficientBalance(50_000n, 100_000n)),
];

export function withdrawRoutes(ctx: WithdrawContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    createRoute(app, ctx);
    listRoute(app, ctx);
    retrieveByReferenceRoute(app, ctx);
    emptyReferenceRoute(app);
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
        operationId: "createWithdraw",
        description:
          "201 with the new withdraw, its amount held from the available wallet. 200 with the " +
          "original withdraw for an idempotent replay (header Idempotent-Replayed: true), which " +
          "uses no limit capacity. Checks in order: duplicate referenceId (409), wallet status " +
          "(403 WALLET_INACTIVE), matching-payout guard (409 STATE_CONFLICT), daily then monthly " +
          "limit (400 INVALID_INPUT), balance (400 INSUFFICIENT_BALANCE).",
        body: CreateWithdrawBody,
        response: { 200: WithdrawEnvelope, 201: WithdrawEnvelope },
        [SUCCESS_HEADERS_KEY]: { 200: IDEMPOTENT_REPLAYED_HEADER },
        "x-errors": CREATE_ERRORS,
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
        operationId: "listWithdraws",
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
        operationId: "retrieveWithdrawByReference",
        params: WithdrawReferenceParams,
        response: { 200: WithdrawEnvelope },
        "x-errors": [documented("No withdraw of this merchant has this referenceId", withdrawNotFound())],
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
        operationId: "retrieveWithdraw",
        params: WithdrawIdParams,
        response: { 200: WithdrawEnvelope },
        "x-errors": [notFound],
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
        operationId: "cancelWithdraw",
        description:
          "pending and awaiting_verification withdraws become canceled and their hold returns to " +
          "the available wallet. Any other answers 400 VALIDATION_ERROR on status, in sandbox and " +
          "live alike: a processing one is with the bank, which cannot recall it (nor the payout " +
          "desk's open batch), and paid, failed, canceled and expired ones have nothing to cancel.",
        params: WithdrawIdParams,
        body: EmptyBody,
        response: { 200: WithdrawEnvelope },
        "x-errors": [
          notFound,
          documented("The withdraw is paid, failed, canceled or expired", notCancelable({ status: "paid" })),
          documented(
            "The withdraw is processing and the provider cannot recall it",
            notCancelable({ status: "processing" }),
          ),
          documented("The withdraw is in the operator's open payout batch (manual payouts)", inPayoutBatch()),
        ],
      },
    },
    async (request) => ok(await cancelWithdraw(ctx, merchantOf(request), request.params.withdraw_id)),
  );
}
