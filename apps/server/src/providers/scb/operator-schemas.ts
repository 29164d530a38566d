/**
 * Schemas of the operator's SCB routes (operator-routes.ts), written once: they validate the
 * requests, type the handlers and feed the OpenAPI document (tag `admin`). The list takes the
 * shared list parameters (http/list-query.ts) and its own filters.
 */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../../http/envelope.ts";
import {
  dateFromProperty,
  dateToProperty,
  limitProperty,
  pageProperty,
  pageSchema,
  stringEnum,
} from "../../http/list-query.ts";
import { ERROR_MESSAGE_KEYWORD } from "../../http/validation.ts";
import { PaymentSchema } from "../../payments/schemas.ts";
import { SCB_TRANSACTION_ID_LENGTH_MAX } from "./limits.ts";
import { SCB_DIRECTIONS, SCB_OPERATIONS } from "./recorder.ts";

const uuidFilter = (what: string) =>
  Type.String({
    format: "uuid",
    description: `Only the exchanges of this ${what}`,
    [ERROR_MESSAGE_KEYWORD]: `must be a ${what} id (UUID)`,
  });

/** In the order the filters are checked: the first invalid parameter is reported. */
export const ExchangeListQuery = Type.Object(
  {
    page: Type.Optional(pageProperty),
    limit: Type.Optional(limitProperty),
    dateFrom: Type.Optional(dateFromProperty),
    dateTo: Type.Optional(dateToProperty),
    operation: Type.Optional(
      stringEnum(SCB_OPERATIONS, {
        description: "Only this kind of exchange: one of SCB's endpoints, or payment_confirmation",
      }),
    ),
    direction: Type.Optional(
      stringEnum(SCB_DIRECTIONS, {
        description: "outbound (calls to SCB) or inbound (confirmations SCB posted)",
      }),
    ),
    paymentId: Type.Optional(uuidFilter("payment")),
    withdrawId: Type.Optional(uuidFilter("withdraw")),
    reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: SCB_TRANSACTION_ID_LENGTH_MAX,
        description:
          "Only the exchanges naming this SCB reference: a ref1, a partner transaction id, a tokenizer id or a transRef (exact match)",
        [ERROR_MESSAGE_KEYWORD]: `must be 1 to ${SCB_TRANSACTION_ID_LENGTH_MAX} characters`,
      }),
    ),
    unreadable: Type.Optional(
      Type.Boolean({
        description:
          "true: only the answers the connector could not read (each counted by the metric satang_scb_unreadable_answers); false: only the others",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExchangeListQuery = Static<typeof ExchangeListQuery>;

export const ExchangeIdParams = Type.Object({ id: Type.String({ description: "Exchange id (digits)" }) });

export const ScbReferenceParams = Type.Object({
  ref1: Type.String({ description: "The payment's SCB ref1 (its collection reference)" }),
});

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const nullableText = (description: string, example: string) =>
  nullable(Type.String({ description, examples: [example] }));

const REF1_EXAMPLE = "K7Q2M9X4HT3B";
const REQUEST_UID_EXAMPLE = "8f14e45fceea467a9d2c1b3e5a7f9c0d";

const ExchangeSchema = Type.Object({
  id: Type.String({ description: "Digits; newer exchanges have larger ids", examples: ["1042"] }),
  direction: stringEnum(SCB_DIRECTIONS),
  operation: stringEnum(SCB_OPERATIONS),
  requestUId: Type.String({
    description: "The requestUId sent (inbound: SCB's, else its transaction id)",
    examples: [REQUEST_UID_EXAMPLE],
  }),
  method: Type.String({ examples: ["GET"] }),
  path: Type.String({
    description: "Path and query below SCB's base URL; inbound: our route, never the callback token",
    examples: [
      `/v1/payment/billpayment/inquiry?eventCode=00300100&transactionDate=2026-01-15&billerId=010556012345678&reference1=${REF1_EXAMPLE}`,
    ],
  }),
  attempt: Type.Integer({ description: "1, or 2 for the one retry after a refreshed token" }),
  startedAt: Type.String({ format: "date-time" }),
  durationMs: Type.Integer(),
  requestHeaders: nullable(
    Type.Unsafe<Record<string, string>>({
      type: "object",
      additionalProperties: { type: "string" },
      description: "requestUId, resourceOwnerId (masked), accept-language; never the authorization",
      examples: [
        {
          requestUId: REQUEST_UID_EXAMPLE,
          resourceOwnerId: "************************cdef",
          "accept-language": "EN",
        },
      ],
    }),
  ),
  requestBody: Type.Unknown({ description: "As sent or received, redacted; null when none" }),
  responseStatus: nullable(Type.Integer({ description: "HTTP status; null when no answer came" })),
  responseBody: Type.Unknown({
    description: "As answered, redacted; null when none",
    examples: [{ status: { code: 1000, description: "Success" }, data: [] }],
  }),
  error: nullable(Type.String({ description: "Why there was no usable answer" })),
  paymentId: nullableText(
    "The payment whose ref1 the exchange names",
    "0b8f2c4e-6d1a-4f3b-9c7e-5a2d8e1f4b60",
  ),
  withdrawId: nullableText(
    "The withdraw whose transfer the exchange is about",
    "5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84",
  ),
  ref1: nullableText("SCB ref1", REF1_EXAMPLE),
  partnerTransactionId: nullableText(
    "partnerTransactionID of a credit initiate",
    "05MYQ0NHBQ5N2C4WXTR3YV7K1",
  ),
  tokenizerId: nullableText("SCB's tokenizer id of a transfer", "TKN20260115000123"),
  transRef: nullableText(
    "SCB's transaction id (a confirmation's, a slip's, an inquiry's only row)",
    "20260115SIM00000042",
  ),
  unreadable: nullableText(
    "Why the connector could not read SCB's answer (counted by the metric satang_scb_unreadable_answers); null when it could",
    "row 1: transactionId is missing",
  ),
});

export const ExchangeEnvelope = envelopeSchema(ExchangeSchema);
export const ExchangeListEnvelope = envelopeSchema(pageSchema(ExchangeSchema));

export const OperatorPaymentEnvelope = envelopeSchema(
  Type.Object({
    ...PaymentSchema.properties,
    merchantId: Type.String({ format: "uuid" }),
    scbReference: Type.String({ description: "The payment's SCB ref1", examples: [REF1_EXAMPLE] }),
  }),
);
