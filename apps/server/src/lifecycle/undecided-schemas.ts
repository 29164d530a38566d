/**
 * Schemas of the operator's undecided-payout routes (CONTRACT 15): the list and the resolve
 * body. Written once: they validate requests, type the handlers and feed the OpenAPI document.
 */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../http/envelope.ts";
import { bankReferenceField } from "../http/fields.ts";
import { PageQuery, pageSchema, stringEnum } from "../http/list-query.ts";
import {
  PAYOUT_RESOLUTION_BANK_REFERENCE_LENGTH_MAX,
  PAYOUT_RESOLUTION_REASON_LENGTH_MAX,
} from "../lib/limits.ts";
import { EXAMPLE_CONNECTOR_NAME } from "../providers/registry.ts";
import { RefundSchema } from "../refunds/schemas.ts";
import { WithdrawSchema } from "../withdraws/schemas.ts";

export const UndecidedQuery = PageQuery;

const BankAnswer = Type.Object(
  {
    at: Type.String({ format: "date-time" }),
    operation: Type.String({
      description: "credit_initiate, credit_confirm or transfer_inquiry",
      examples: ["transfer_inquiry"],
    }),
    httpStatus: Type.Union([Type.Integer(), Type.Null()]),
    answer: Type.Unknown({ description: "The bank's answer as recorded (redacted)" }),
    error: Type.Union([Type.String({ examples: ["the bank did not answer in time"] }), Type.Null()]),
  },
  { additionalProperties: true },
);

const UndecidedSchema = Type.Object(
  {
    subjectType: stringEnum(["withdraw", "refund"] as const, {
      description: "What the payout pays: a withdraw, or a refund back to a customer",
    }),
    withdrawId: Type.Union([Type.String({ format: "uuid" }), Type.Null()], {
      description: "The withdraw's id; null for a refund",
    }),
    refundId: Type.Union([Type.String({ format: "uuid" }), Type.Null()], {
      description: "The refund's id; null for a withdraw",
    }),
    merchantId: Type.String({ format: "uuid" }),
    referenceId: Type.String({ examples: ["payout-1001"] }),
    amount: Type.String({
      description: 'satang, as a decimal string like every amount of the API: "150000.00" is 1,500.00 THB',
      examples: ["150000.00"],
    }),
    provider: Type.String({ examples: [EXAMPLE_CONNECTOR_NAME] }),
    payoutState: Type.String({ description: "sending, accepted or unknown", examples: ["unknown"] }),
    sendAttempts: Type.Integer(),
    checks: Type.Integer(),
    providerReference: Type.Union([Type.String({ examples: ["202611260001"] }), Type.Null()]),
    lastError: Type.Union([
      Type.String({ examples: ["credit_confirm: no answer within 15 s"] }),
      Type.Null(),
    ]),
    handedOverAt: Type.String({ format: "date-time" }),
    undecidedSeconds: Type.Integer({
      description: "Seconds since the hand-over in the merchant's business time (the listing's clock).",
    }),
    nextCheckAt: Type.String({ format: "date-time" }),
    alertedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
    bank: Type.Union([
      Type.Object(
        {
          transfer: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
          lastAnswers: Type.Array(BankAnswer),
        },
        { additionalProperties: true },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: true },
);

export const UndecidedListEnvelope = envelopeSchema(pageSchema(UndecidedSchema));

export const ResolveBody = Type.Object(
  {
    outcome: stringEnum(["paid", "failed"] as const),
    reason: Type.String({
      minLength: 1,
      maxLength: PAYOUT_RESOLUTION_REASON_LENGTH_MAX,
      description: "Why: what the bank's statement, inquiry or support said",
      examples: ["The bank's statement of 26 Nov shows the transfer paid"],
    }),
    bankReference: Type.Optional(
      bankReferenceField(
        PAYOUT_RESOLUTION_BANK_REFERENCE_LENGTH_MAX,
        "The bank's reference of the transfer (a paid one)",
        ["202611260001"],
      ),
    ),
  },
  { additionalProperties: false },
);
export type ResolveBody = Static<typeof ResolveBody>;

export const WithdrawIdParams = Type.Object({ id: Type.String({ description: "Withdraw id (UUID)" }) });

export const RefundIdParams = Type.Object({ id: Type.String({ description: "Refund id (UUID)" }) });

const resolutionFields = {
  outcome: stringEnum(["paid", "failed"] as const),
  reason: Type.String({ examples: ["The bank's statement of 26 Nov shows the transfer paid"] }),
  bankReference: Type.Union([Type.String({ examples: ["202611260001"] }), Type.Null()]),
  actor: Type.String({ examples: ["admin-token"] }),
  provider: Type.String({ examples: [EXAMPLE_CONNECTOR_NAME] }),
  resolvedAt: Type.String({ format: "date-time" }),
};

export const RefundResolveEnvelope = envelopeSchema(
  Type.Object(
    {
      refund: RefundSchema,
      resolution: Type.Object(
        { refundId: Type.String({ format: "uuid" }), ...resolutionFields },
        { additionalProperties: true },
      ),
    },
    { additionalProperties: true },
  ),
);

export const ResolveEnvelope = envelopeSchema(
  Type.Object(
    {
      withdraw: WithdrawSchema,
      resolution: Type.Object(
        {
          withdrawId: Type.String({ format: "uuid" }),
          outcome: stringEnum(["paid", "failed"] as const),
          reason: Type.String({ examples: ["The bank's statement of 26 Nov shows the transfer paid"] }),
          bankReference: Type.Union([Type.String({ examples: ["202611260001"] }), Type.Null()]),
          actor: Type.String({ examples: ["admin-token"] }),
          provider: Type.String({ examples: [EXAMPLE_CONNECTOR_NAME] }),
          resolvedAt: Type.String({ format: "date-time" }),
        },
        { additionalProperties: true },
      ),
    },
    { additionalProperties: true },
  ),
);
