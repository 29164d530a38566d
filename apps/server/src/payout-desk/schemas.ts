/**
 * Schemas of the manual payout desk's operator routes (docs/payout-desk.md), written once: they
 * validate the requests, type the handlers and feed the OpenAPI document (tag `admin`).
 */
import { type Static, Type } from "typebox";
import { OPERATOR_CHANNELS } from "../admin/actor.ts";
import { PAYOUT_BATCH_STATUSES, PAYOUT_OUTCOMES } from "../db/types.ts";
import { envelopeSchema } from "../http/envelope.ts";
import { bankReferenceField } from "../http/fields.ts";
import { limitProperty, pageProperty, pageSchema, stringEnum } from "../http/list-query.ts";
import { ERROR_MESSAGE_KEYWORD } from "../http/validation.ts";
import {
  PAYOUT_BANK_REFERENCE_LENGTH_MAX,
  PAYOUT_BATCH_CREATED_BY_LENGTH_MAX,
  PAYOUT_BATCH_ITEMS_MAX,
  PAYOUT_FAILURE_REASON_LENGTH_MAX,
} from "../lib/limits.ts";

const text = (max: number, description: string) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: "\\S",
    description,
    [ERROR_MESSAGE_KEYWORD]: `must be a non-empty string of at most ${max} characters`,
  });

/** One line of text shown wherever batches are listed: no control or invisible characters. */
const label = (max: number, description: string) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: "^[^\\p{Cc}\\p{Cf}]*[^\\s\\p{Cc}\\p{Cf}][^\\p{Cc}\\p{Cf}]*$",
    description,
    [ERROR_MESSAGE_KEYWORD]: `must be one line of at most ${max} characters with a visible one, and no control or invisible characters`,
  });

export const CreateBatchBody = Type.Object(
  {
    merchantId: Type.Optional(
      Type.String({
        format: "uuid",
        description: "Only this merchant's pending withdraws",
        [ERROR_MESSAGE_KEYWORD]: "must be a merchant id (UUID)",
      }),
    ),
    maxCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: PAYOUT_BATCH_ITEMS_MAX,
        description: `At most this many withdraws, oldest first (1 to ${PAYOUT_BATCH_ITEMS_MAX}; default ${PAYOUT_BATCH_ITEMS_MAX})`,
        [ERROR_MESSAGE_KEYWORD]: `must be a whole number from 1 to ${PAYOUT_BATCH_ITEMS_MAX}`,
      }),
    ),
    createdBy: Type.Optional(
      label(
        PAYOUT_BATCH_CREATED_BY_LENGTH_MAX,
        "Who creates the batch, for the record (default: the operator token's name, as the audit log has it)",
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateBatchBody = Static<typeof CreateBatchBody>;

export const RecordOutcomeBody = Type.Object(
  {
    outcome: stringEnum(PAYOUT_OUTCOMES, { description: "paid or failed" }),
    bankReference: Type.Optional(
      bankReferenceField(
        PAYOUT_BANK_REFERENCE_LENGTH_MAX,
        "The bank's reference of the transfer; required when paid",
      ),
    ),
    reason: Type.Optional(text(PAYOUT_FAILURE_REASON_LENGTH_MAX, "Why it failed; required when failed")),
  },
  { additionalProperties: false },
);
export type RecordOutcomeBody = Static<typeof RecordOutcomeBody>;

export const BatchIdParams = Type.Object({ id: Type.String({ description: "Batch UUID" }) });
export type BatchIdParams = Static<typeof BatchIdParams>;

export const BatchItemParams = Type.Object({
  id: Type.String({ description: "Batch UUID" }),
  withdrawId: Type.String({ description: "Withdraw UUID" }),
});
export type BatchItemParams = Static<typeof BatchItemParams>;

export const BatchRefundParams = Type.Object({
  id: Type.String({ description: "Batch UUID" }),
  refundId: Type.String({ description: "Refund UUID" }),
});
export type BatchRefundParams = Static<typeof BatchRefundParams>;

export const BatchListQuery = Type.Object(
  {
    page: Type.Optional(pageProperty),
    limit: Type.Optional(limitProperty),
    status: Type.Optional(stringEnum(PAYOUT_BATCH_STATUSES, { description: "open or closed" })),
  },
  { additionalProperties: false },
);
export type BatchListQuery = Static<typeof BatchListQuery>;

const nullableString = Type.Union([Type.String(), Type.Null()]);
const nullableTime = Type.Union([Type.String({ format: "date-time" }), Type.Null()]);

export const BatchItemSchema = Type.Object({
  position: Type.Integer({ minimum: 1, description: "Row number in the batch and its CSV" }),
  kind: stringEnum(["withdraw", "refund"] as const, {
    description:
      "What the line pays: a withdraw, or a refund to the payment's customer (or the refund's destination)",
  }),
  withdrawId: Type.Union([Type.String({ format: "uuid" }), Type.Null()], {
    description: "The withdraw's id (record its outcome against it); null on a refund line",
  }),
  refundId: Type.Union([Type.String({ format: "uuid" }), Type.Null()], {
    description: "The refund's id (record its outcome against it); null on a withdraw line",
  }),
  merchantId: Type.String({ format: "uuid" }),
  referenceId: Type.String({ description: "The merchant's reference of the withdraw or refund" }),
  amount: Type.String({ description: "Decimal string, as in the public API" }),
  destinationType: Type.String(),
  bankCode: Type.String(),
  bankName: Type.Union([Type.String(), Type.Null()], {
    description: "The bank's name in English; null for a code the service does not name",
  }),
  bankNameTh: Type.Union([Type.String(), Type.Null()], {
    description: "The bank's name in Thai (the desk shows it in Thai mode); null as for bankName",
  }),
  bankAccountNumber: Type.String({ description: "Masked; the CSV carries it in full" }),
  bankAccountName: Type.String(),
  withdrawStatus: Type.Union([Type.String(), Type.Null()], { description: "null on a refund line" }),
  refundStatus: Type.Union([Type.String({ examples: ["processing"] }), Type.Null()], {
    description: "null on a withdraw line",
  }),
  outcome: Type.Union([stringEnum(PAYOUT_OUTCOMES), Type.Null()]),
  bankReference: nullableString,
  failureReason: nullableString,
  recordedAt: nullableTime,
  recordedBy: Type.Union([Type.String({ examples: ["admin-token"] }), Type.Null()], {
    description:
      'The operator who recorded the outcome, from the credential: "admin-token" for ADMIN_TOKEN (named operator tokens will give their name)',
  }),
  recordedVia: Type.Union([stringEnum(OPERATOR_CHANNELS), Type.Null()], {
    description: "The tool the outcome was recorded with: api, cli or desk (null when not known)",
  }),
});
export type BatchItemRecord = Static<typeof BatchItemSchema>;

const batchFields = {
  id: Type.String({ format: "uuid" }),
  status: stringEnum(PAYOUT_BATCH_STATUSES),
  createdBy: Type.String({
    description:
      "The label the request gave, or without one the name of the operator token that created the batch",
  }),
  createdByOperator: Type.Union([Type.String(), Type.Null()], {
    description:
      "The name of the operator token the batch was created with (admin-token for ADMIN_TOKEN), as the audit log " +
      "names it, whatever the label says; null for batches made before it was kept",
  }),
  itemCount: Type.Integer({ minimum: 1 }),
  totalAmount: Type.String({ description: "Sum of the items' amounts, decimal string" }),
  paidCount: Type.Integer({ minimum: 0 }),
  failedCount: Type.Integer({ minimum: 0 }),
  openCount: Type.Integer({ minimum: 0, description: "Items without an outcome yet" }),
  paidAmount: Type.String(),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
  closedAt: nullableTime,
};

export const BatchSummarySchema = Type.Object(batchFields);
export type BatchSummaryRecord = Static<typeof BatchSummarySchema>;
export const BatchSchema = Type.Object({ ...batchFields, items: Type.Array(BatchItemSchema) });
export type BatchRecord = Static<typeof BatchSchema>;

export const BatchEnvelope = envelopeSchema(BatchSchema);
export const BatchListEnvelope = envelopeSchema(pageSchema(BatchSummarySchema));
