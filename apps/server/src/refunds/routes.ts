/**
 * The public refunds API (CONTRACT 16), registered under /api/v1: create and list a payment's
 * refunds under /payments/{id}/refunds, and retrieve, list and cancel under /refunds. HMAC
 * authentication runs before these handlers (app.ts); each route is its schema and one
 * service call.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { authOf, merchantOf } from "../http/auth.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import { documented, IDEMPOTENT_REPLAYED_HEADER, SUCCESS_HEADERS_KEY } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import { duplicateReference, idempotencyKeyMismatch } from "../lib/idempotency.ts";
import {
  CreateRefundBody,
  ListPaymentRefundsQuery,
  ListRefundsQuery,
  PaymentIdParams,
  RefundEnvelope,
  RefundIdParams,
  RefundListEnvelope,
  SimulateRefundBody,
} from "./schemas.ts";
import {
  type CreateRefundResult,
  cancelRefund,
  createRefund,
  getRefund,
  listPaymentRefunds,
  listRefunds,
  overRefundable,
  paymentNotRefundable,
  type RefundContext,
  refundInsufficientBalance,
  refundNotCancelable,
  refundNotFound,
  refundPaymentNotFound,
  refundWalletInactive,
} from "./service.ts";
import { refundConflict, type SimulateRefundContext, simulateRefund } from "./simulate.ts";

const tags = ["refunds"];

const paymentNotFound = documented(
  "No payment of this merchant has this id (another merchant's payment is not found either)",
  refundPaymentNotFound(),
);
const notFound = documented(
  "No refund of this merchant has this id (another merchant's refund is not found either)",
  refundNotFound(),
);

/** The errors of a create, in the order its checks run (CONTRACT 16, refunds/service.ts). */
const CREATE_ERRORS = [
  paymentNotFound,
  documented("The idempotencyKey was already used with a different body", idempotencyKeyMismatch()),
  documented(
    "Another refund of this merchant already has this referenceId",
    duplicateReference("refund", "refund-1042"),
  ),
  documented("The payment has not succeeded", paymentNotRefundable("requires_action")),
  documented("The merchant's wallet is frozen or closed", refundWalletInactive("frozen")),
  documented("The amount is more than the payment has left to refund", overRefundable(25_000n, 25_001n)),
  documented(
    "The payment has settled and the available wallet cannot cover the refund",
    refundInsufficientBalance(10_000n, 25_000n),
  ),
];

/**
 * A refund create's answer, for the API and the dashboard alike: 201 with the refund made, or
 * 200 with the refund an earlier request with the same key made and `Idempotent-Replayed: true`.
 */
export function answerCreated(reply: FastifyReply, result: CreateRefundResult) {
  if (result.outcome === "replayed") reply.header("Idempotent-Replayed", "true");
  reply.code(result.outcome === "created" ? 201 : 200);
  return ok(result.refund);
}

export function refundRoutes(ctx: RefundContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    createRoute(app, ctx);
    listPaymentRefundsRoute(app, ctx);
    listRoute(app, ctx);
    retrieveRoute(app, ctx);
    cancelRoute(app, ctx);
  };
}

function createRoute(app: App, ctx: RefundContext): void {
  app.post(
    "/payments/:payment_id/refunds",
    {
      // The replay record of the signed request commits in the create's own transaction.
      config: { replayInTransaction: true },
      schema: {
        tags,
        summary: "Refund a payment",
        operationId: "createRefund",
        description:
          "201 with the new refund (pending). 200 with the original refund for an idempotent replay " +
          "(header Idempotent-Replayed: true). Only a succeeded payment can be refunded; its refunds " +
          "that are not failed or canceled never add up to more than its amount. The part of the " +
          "payment still awaiting settlement is taken from its settlement; the rest is held from the " +
          "available wallet. Without destination the money goes to the account the customer paid from.",
        params: PaymentIdParams,
        body: CreateRefundBody,
        response: { 200: RefundEnvelope, 201: RefundEnvelope },
        [SUCCESS_HEADERS_KEY]: { 200: IDEMPOTENT_REPLAYED_HEADER },
        "x-errors": CREATE_ERRORS,
      },
    },
    async (request, reply) => {
      const { merchant, integration, replay } = authOf(request);
      const paymentId = request.params.payment_id;
      const result = await createRefund(ctx, merchant, integration, paymentId, request.body, replay);
      return answerCreated(reply, result);
    },
  );
}

function listPaymentRefundsRoute(app: App, ctx: RefundContext): void {
  app.get(
    "/payments/:payment_id/refunds",
    {
      schema: {
        tags,
        summary: "List a payment's refunds",
        operationId: "listPaymentRefunds",
        params: PaymentIdParams,
        querystring: ListPaymentRefundsQuery,
        response: { 200: RefundListEnvelope },
        "x-errors": [paymentNotFound],
      },
    },
    async (request) =>
      ok(await listPaymentRefunds(ctx, merchantOf(request), request.params.payment_id, request.query)),
  );
}

function listRoute(app: App, ctx: RefundContext): void {
  app.get(
    "/refunds",
    {
      schema: {
        tags,
        summary: "List refunds",
        operationId: "listRefunds",
        querystring: ListRefundsQuery,
        response: { 200: RefundListEnvelope },
      },
    },
    async (request) => ok(await listRefunds(ctx, merchantOf(request), request.query)),
  );
}

function retrieveRoute(app: App, ctx: RefundContext): void {
  app.get(
    "/refunds/:refund_id",
    {
      schema: {
        tags,
        summary: "Retrieve refund",
        operationId: "retrieveRefund",
        params: RefundIdParams,
        response: { 200: RefundEnvelope },
        "x-errors": [notFound],
      },
    },
    async (request) => ok(await getRefund(ctx, merchantOf(request), request.params.refund_id)),
  );
}

function cancelRoute(app: App, ctx: RefundContext): void {
  app.post(
    "/refunds/:refund_id/cancel",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Cancel refund",
        operationId: "cancelRefund",
        description:
          "A pending refund becomes canceled (refund.canceled) and its hold returns where it came " +
          "from. Any other status answers 400 VALIDATION_ERROR on status, as a cancel of a payment or " +
          "withdraw does: a processing refund is with the bank.",
        params: RefundIdParams,
        body: EmptyBody,
        response: { 200: RefundEnvelope },
        "x-errors": [
          notFound,
          documented(
            "The refund is processing: the transfer is with the bank",
            refundNotCancelable("processing"),
          ),
          documented("The refund is succeeded, failed or canceled", refundNotCancelable("succeeded")),
        ],
      },
    },
    async (request) => ok(await cancelRefund(ctx, merchantOf(request), request.params.refund_id)),
  );
}

/** Sandbox only (registered under /api/v1/sandbox): the simulated bank decides a refund. */
export function sandboxRefundRoutes(ctx: SimulateRefundContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      "/refunds/:refund_id/simulate",
      {
        schema: {
          tags: ["sandbox"],
          summary: "Simulate the bank's report on a refund",
          operationId: "simulateRefund",
          description:
            "processing: pending -> processing (refund.processing). succeeded: -> succeeded " +
            "(refund.succeeded; a pending refund goes through processing first; on a failed refund " +
            "this is the late success). failed: -> failed with failureReason (refund.failed), the hold " +
            "released. 409 STATE_CONFLICT when the refund's status does not allow it, and for every " +
            "report with SATANG_PAYOUTS=manual or on a refund the payout desk took into a batch (reason " +
            "payout_desk: the payout desk records the outcome). " +
            "A pending refund of a frozen or closed wallet is not handed to the bank: 403 WALLET_INACTIVE.",
          params: RefundIdParams,
          body: SimulateRefundBody,
          response: { 200: RefundEnvelope },
          "x-errors": [
            notFound,
            documented(
              "The refund's status does not allow this report",
              refundConflict("canceled", "Refund is canceled: the bank cannot report succeeded on it"),
            ),
            documented(
              "The wallet is frozen or closed: a pending refund waits",
              refundWalletInactive("frozen"),
            ),
          ],
        },
      },
      async (request) =>
        ok(await simulateRefund(ctx, merchantOf(request).id, request.params.refund_id, request.body.outcome)),
    );
  };
}
