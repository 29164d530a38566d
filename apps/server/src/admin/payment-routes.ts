/**
 * The operator's view of one payment, whatever its merchant: `GET /admin/v1/payments/{id}`, the
 * payment record with its merchant and the connector that took it (CONTRACT 15: a payment stays
 * with its connector, and the operator can see which; docs/providers/routing.md). And the search
 * by the merchant's own reference, `GET /admin/v1/payments?merchantReference=` (CONTRACT 6: stored,
 * searchable by the operator, never in records).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { Type } from "typebox";
import type { Db } from "../db/handles.ts";
import { envelopeSchema, ok } from "../http/envelope.ts";
import { pageQueryProperties } from "../http/list-query.ts";
import { documented } from "../http/openapi-errors.ts";
import { notFound } from "../lib/errors.ts";
import { MERCHANT_REFERENCE_LENGTH_MAX, PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import { PaymentSchema } from "../payments/schemas.ts";
import {
  getPaymentForOperator,
  paymentNotFound,
  searchPaymentsByMerchantReference,
} from "../payments/service.ts";
import type { ViewContext } from "../payments/view.ts";
import { EXAMPLE_CONNECTOR_NAME } from "../providers/registry.ts";
import { IdParams } from "./schemas.ts";

const nullableText = (description: string, example: string) =>
  Type.Union([Type.String({ examples: [example] }), Type.Null()], { description });

const OperatorPaymentView = Type.Object({
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
});
const OperatorPaymentViewEnvelope = envelopeSchema(OperatorPaymentView);
const OperatorPaymentPageEnvelope = envelopeSchema(
  Type.Object({
    data: Type.Array(OperatorPaymentView),
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    totalPages: Type.Integer(),
  }),
);

const MerchantReferenceQuery = Type.Object(
  {
    merchantReference: Type.String({
      minLength: 1,
      maxLength: MERCHANT_REFERENCE_LENGTH_MAX,
      description:
        "The merchant's own reference of the payment (merchantReference or invoiceNo at create), compared exactly",
    }),
    merchantId: Type.Optional(
      Type.String({ description: "Only this merchant's payments (an unknown merchant: 404)" }),
    ),
    ...pageQueryProperties,
  },
  { additionalProperties: false },
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
    app.get(
      "/payments",
      {
        schema: {
          tags: ["admin"],
          summary: "Find payments by the merchant's own reference (merchantReference or invoiceNo)",
          operationId: "searchOperatorPayments",
          description:
            "The payments whose merchantReference (or invoiceNo) is exactly this text, of one " +
            "merchant or of all, newest first, in pages. The reference is stored and searchable " +
            "here, and never shown in a record. None: an empty page.",
          querystring: MerchantReferenceQuery,
          "x-errors": [documented("No merchant has the merchantId", notFound("Merchant"))],
          response: { 200: OperatorPaymentPageEnvelope },
        },
      },
      async (request) =>
        ok(
          await searchPaymentsByMerchantReference(ctx, {
            merchantReference: request.query.merchantReference,
            merchantId: request.query.merchantId,
            page: request.query.page ?? 1,
            limit: request.query.limit ?? PAGE_SIZE_DEFAULT,
          }),
        ),
    );
  };
}
