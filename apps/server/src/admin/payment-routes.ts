/**
 * The operator's view of one payment, whatever its merchant: `GET /admin/v1/payments/{id}`, the
 * payment record with its merchant and the connector that took it (CONTRACT 15: a payment stays
 * with its connector, and the operator can see which; docs/providers/routing.md).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { Type } from "typebox";
import type { Db } from "../db/handles.ts";
import { envelopeSchema, ok } from "../http/envelope.ts";
import { documented } from "../http/openapi-errors.ts";
import { PaymentSchema } from "../payments/schemas.ts";
import { getPaymentForOperator, paymentNotFound } from "../payments/service.ts";
import type { ViewContext } from "../payments/view.ts";
import { EXAMPLE_CONNECTOR_NAME } from "../providers/registry.ts";
import { IdParams } from "./schemas.ts";

const nullableText = (description: string, example: string) =>
  Type.Union([Type.String({ examples: [example] }), Type.Null()], { description });

const OperatorPaymentViewEnvelope = envelopeSchema(
  Type.Object({
    ...PaymentSchema.properties,
    merchantId: Type.String({ format: "uuid" }),
    provider: nullableText(
      "The connector that took the payment (its SATANG_PROVIDER name); null for the simulated bank",
      EXAMPLE_CONNECTOR_NAME,
    ),
    providerPaymentId: nullableText(
      "The connector's own id of the payment (a charge id), or null",
      "chrg_test_5xuy4w91xqz7d0pu3xg",
    ),
    collectionReference: nullableText(
      "The payment's collection reference at its connector, or null",
      "SAT7K2Q9XW4M",
    ),
  }),
);

export function operatorPaymentRoutes(ctx: { db: Db; config: ViewContext }): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      "/payments/:id",
      {
        schema: {
          tags: ["admin"],
          summary: "One payment of any merchant, with the connector that took it",
          operationId: "retrieveOperatorPayment",
          params: IdParams,
          "x-errors": [documented("No payment has this id", paymentNotFound())],
          response: { 200: OperatorPaymentViewEnvelope },
        },
      },
      async (request) => ok(await getPaymentForOperator(ctx, request.params.id)),
    );
  };
}
