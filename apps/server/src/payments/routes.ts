/**
 * The public payments API under /api/v1/payments (interface.md "Endpoints"). HMAC
 * authentication runs before these handlers (app.ts); each route is its schema and one
 * service call.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { authOf, merchantOf } from "../http/auth.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { emptyReferenceRoute } from "../http/empty-reference.ts";
import { ok } from "../http/envelope.ts";
import { ReferenceParams } from "../http/fields.ts";
import {
  documented,
  IDEMPOTENT_REPLAYED_HEADER,
  PAYMENT_REUSED_HEADER,
  SUCCESS_HEADERS_KEY,
} from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import { duplicateReference, idempotencyKeyMismatch } from "../lib/idempotency.ts";
import { noConnectorTookIt } from "./routing.ts";
import {
  CancelPaymentBody,
  CreatePaymentBody,
  ListPaymentsQuery,
  PaymentEnvelope,
  PaymentIdParams,
  PaymentListEnvelope,
  ResponseModeQuery,
} from "./schemas.ts";
import {
  cancelPayment,
  createPayment,
  getPayment,
  getPaymentByReference,
  listPayments,
  methodUnavailable,
  type PaymentContext,
  paymentNotCancelable,
  paymentNotFound,
  promptPayAmountTooLarge,
} from "./service.ts";

const tags = ["payments"];

const notFound = documented(
  "No payment of this merchant has this id (another merchant's payment is not found either)",
  paymentNotFound(),
);

export function paymentRoutes(ctx: PaymentContext): FastifyPluginAsync {
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

function createRoute(app: App, ctx: PaymentContext): void {
  app.post(
    "/",
    {
      // The replay record of the signed request commits in the create's own transaction.
      config: { replayInTransaction: true },
      schema: {
        tags,
        summary: "Create payment",
        operationId: "createPayment",
        description:
          "201 with the new payment. 200 with the original payment for an idempotent replay " +
          "(header Idempotent-Replayed: true) or with a still-valid PromptPay payment of the " +
          "same customer account and amount (PromptPay reuse: header Satang-Payment-Reused: true, " +
          "body the reused payment as published; the request's idempotencyKey is then bound to " +
          "that payment, so a retry with it is an idempotent replay of it, with both headers).",
        body: CreatePaymentBody,
        response: { 200: PaymentEnvelope, 201: PaymentEnvelope },
        [SUCCESS_HEADERS_KEY]: { 200: { ...IDEMPOTENT_REPLAYED_HEADER, ...PAYMENT_REUSED_HEADER } },
        "x-errors": [
          documented(
            "Another payment of this merchant already has this referenceId",
            duplicateReference("payment", "order-1001"),
          ),
          documented("The idempotencyKey was already used with a different body", idempotencyKeyMismatch()),
          documented("The amount is larger than a PromptPay QR can carry", promptPayAmountTooLarge()),
          documented("The merchant has no PromptPay id configured", methodUnavailable("promptpay")),
          documented(
            "Live: no payment provider can take the payment now; nothing was created",
            noConnectorTookIt(),
          ),
          documented("The merchant has no collection account configured", methodUnavailable("bank_transfer")),
        ],
      },
    },
    async (request, reply) => {
      const { merchant, integration, replay } = authOf(request);
      const result = await createPayment(ctx, merchant, integration, request.body, replay);
      if (result.outcome === "replayed") reply.header("Idempotent-Replayed", "true");
      // A reused payment looks like a create in the body (the published shape); the header
      // tells the caller that this request made no new payment, on a replay of its key too.
      if (result.reused) reply.header("Satang-Payment-Reused", "true");
      reply.code(result.outcome === "created" ? 201 : 200);
      return ok(result.payment);
    },
  );
}

function listRoute(app: App, ctx: PaymentContext): void {
  app.get(
    "/",
    {
      schema: {
        tags,
        summary: "List payments",
        operationId: "listPayments",
        querystring: ListPaymentsQuery,
        response: { 200: PaymentListEnvelope },
      },
    },
    async (request) => ok(await listPayments(ctx, merchantOf(request), request.query)),
  );
}

function retrieveByReferenceRoute(app: App, ctx: PaymentContext): void {
  app.get(
    "/by-reference/:referenceId",
    {
      schema: {
        tags,
        summary: "Retrieve payment by merchant reference",
        operationId: "retrievePaymentByReference",
        params: ReferenceParams,
        querystring: ResponseModeQuery,
        response: { 200: PaymentEnvelope },
        "x-errors": [documented("No payment of this merchant has this referenceId", paymentNotFound())],
      },
    },
    async (request) =>
      ok(
        await getPaymentByReference(
          ctx,
          merchantOf(request),
          request.params.referenceId,
          request.query.responseMode,
        ),
      ),
  );
}

function retrieveRoute(app: App, ctx: PaymentContext): void {
  app.get(
    "/:payment_id",
    {
      schema: {
        tags,
        summary: "Retrieve payment",
        operationId: "retrievePayment",
        params: PaymentIdParams,
        querystring: ResponseModeQuery,
        response: { 200: PaymentEnvelope },
        "x-errors": [notFound],
      },
    },
    async (request) =>
      ok(await getPayment(ctx, merchantOf(request), request.params.payment_id, request.query.responseMode)),
  );
}

function cancelRoute(app: App, ctx: PaymentContext): void {
  app.post(
    "/:payment_id/cancel",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Cancel payment",
        operationId: "cancelPayment",
        params: PaymentIdParams,
        body: CancelPaymentBody,
        response: { 200: PaymentEnvelope },
        "x-errors": [
          notFound,
          documented(
            "The payment is succeeded, canceled, expired or payment_failed",
            paymentNotCancelable("succeeded"),
          ),
        ],
      },
    },
    async (request) =>
      ok(
        await cancelPayment(ctx, merchantOf(request), request.params.payment_id, (detail) =>
          request.log.warn(
            { paymentId: request.params.payment_id, ...detail },
            "canceled, but its connector did not end the charge: a payment of it is refused as an anomaly",
          ),
        ),
      ),
  );
}
