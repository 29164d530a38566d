/**
 * The public payments API under /api/v1/payments (interface.md "Endpoints"). HMAC
 * authentication runs before these handlers (app.ts); each route is its schema and one
 * service call.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { Deps } from "../deps.ts";
import { authOf } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { ReferenceParams } from "../http/fields.ts";
import {
  CancelPaymentBody,
  CreatePaymentBody,
  ListPaymentsQuery,
  PaymentEnvelope,
  PaymentIdParams,
  PaymentListEnvelope,
  ResponseModeQuery,
} from "./schemas.ts";
import { cancelPayment, createPayment, getPayment, getPaymentByReference, listPayments } from "./service.ts";

const tags = ["payments"];

/** Cancel has no body; an absent one is validated as `{}`, so only extra fields are refused. */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export function paymentRoutes(deps: Deps): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      "/",
      {
        schema: {
          tags,
          summary: "Create payment",
          description:
            "201 with the new payment. 200 with the original payment for an idempotent replay " +
            "(header Idempotent-Replayed: true) or with a still-valid PromptPay payment of the " +
            "same customer account and amount (PromptPay reuse).",
          body: CreatePaymentBody,
          response: { 200: PaymentEnvelope, 201: PaymentEnvelope },
        },
      },
      async (request, reply) => {
        const result = await createPayment(deps, authOf(request), request.body);
        if (result.outcome === "replayed") reply.header("Idempotent-Replayed", "true");
        reply.code(result.outcome === "created" ? 201 : 200);
        return ok(result.payment);
      },
    );

    app.get(
      "/",
      {
        schema: {
          tags,
          summary: "List payments",
          querystring: ListPaymentsQuery,
          response: { 200: PaymentListEnvelope },
        },
      },
      async (request) => ok(await listPayments(deps, authOf(request), request.query)),
    );

    app.get(
      "/by-reference/:referenceId",
      {
        schema: {
          tags,
          summary: "Retrieve payment by merchant reference",
          params: ReferenceParams,
          querystring: ResponseModeQuery,
          response: { 200: PaymentEnvelope },
        },
      },
      async (request) =>
        ok(
          await getPaymentByReference(
            deps,
            authOf(request),
            request.params.referenceId,
            request.query.responseMode,
          ),
        ),
    );

    app.get(
      "/:payment_id",
      {
        schema: {
          tags,
          summary: "Retrieve payment",
          params: PaymentIdParams,
          querystring: ResponseModeQuery,
          response: { 200: PaymentEnvelope },
        },
      },
      async (request) =>
        ok(await getPayment(deps, authOf(request), request.params.payment_id, request.query.responseMode)),
    );

    app.post(
      "/:payment_id/cancel",
      {
        preValidation: emptyBodyAsObject,
        schema: {
          tags,
          summary: "Cancel payment",
          params: PaymentIdParams,
          body: CancelPaymentBody,
          response: { 200: PaymentEnvelope },
        },
      },
      async (request) => ok(await cancelPayment(deps, authOf(request), request.params.payment_id)),
    );
  };
}
