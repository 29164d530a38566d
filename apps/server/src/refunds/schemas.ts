/**
 * Request and response schemas of the refunds API (CONTRACT 16), written once: they validate
 * requests (http/validation.ts), type the handlers, and feed the OpenAPI document.
 *
 * Body properties are listed in the order of CONTRACT 16's create body, which decides which
 * failing field is reported first (CONTRACT 4).
 */
import { type Static, Type } from "typebox";
import { REFUND_STATUSES } from "../db/types.ts";
import {
  accountNameField,
  accountNumberField,
  amountField,
  bankCodeField,
  idempotencyKeyField,
  metadataField,
  referenceIdField,
} from "../http/fields.ts";
import {
  dateFromProperty,
  dateToProperty,
  limitProperty,
  pageProperty,
  pageSchema,
  sortByProperty,
  sortOrderProperty,
  stringEnum,
} from "../http/list-query.ts";
import { REFUND_REASON_LENGTH_MAX } from "../lib/limits.ts";

export const RefundDestinationBody = Type.Object(
  {
    bankCode: bankCodeField(),
    accountNumber: accountNumberField("10-15 digits; `-` and spaces are ignored. Returned masked."),
    accountName: accountNameField("Account holder name"),
  },
  { additionalProperties: false },
);

export const CreateRefundBody = Type.Object(
  {
    amount: amountField(
      'Decimal string of satang: "250.00" is 2.50 THB. At most what the payment has left to refund.',
    ),
    referenceId: referenceIdField("Unique per merchant among refunds; 1-255 letters, digits, _ - ."),
    reason: Type.Optional(
      Type.String({
        maxLength: REFUND_REASON_LENGTH_MAX,
        description: `Why the money goes back, at most ${REFUND_REASON_LENGTH_MAX} characters`,
        examples: ["Customer returned order 1042"],
      }),
    ),
    idempotencyKey: Type.Optional(idempotencyKeyField()),
    metadata: Type.Optional(metadataField()),
    destination: Type.Optional(RefundDestinationBody),
  },
  { additionalProperties: false },
);
export type CreateRefundBody = Static<typeof CreateRefundBody>;

export const PaymentIdParams = Type.Object({
  payment_id: Type.String({
    description: "Payment UUID",
    examples: ["0f0e5c8e-8b7a-4d55-9a43-6f1f2b3c4d5e"],
  }),
});
export type PaymentIdParams = Static<typeof PaymentIdParams>;

export const RefundIdParams = Type.Object({
  refund_id: Type.String({ description: "Refund UUID", examples: ["5b2f8c1e-3d4a-4e6f-8a9b-0c1d2e3f4a5b"] }),
});
export type RefundIdParams = Static<typeof RefundIdParams>;

export const REFUND_SORT_FIELDS = ["amount", "status", "createdAt", "referenceId"] as const;
export type RefundSortField = (typeof REFUND_SORT_FIELDS)[number];

const listProperties = {
  page: Type.Optional(pageProperty),
  limit: Type.Optional(limitProperty),
  status: Type.Optional(
    stringEnum(REFUND_STATUSES, { description: "pending, processing, succeeded, failed, canceled" }),
  ),
  dateFrom: Type.Optional(dateFromProperty),
  dateTo: Type.Optional(dateToProperty),
  sortBy: Type.Optional(sortByProperty(REFUND_SORT_FIELDS, "createdAt")),
  sortOrder: Type.Optional(sortOrderProperty),
};

/** The list parameters of CONTRACT 11, plus `paymentId` and `status` (CONTRACT 16). */
export const ListRefundsQuery = Type.Object({
  ...listProperties,
  paymentId: Type.Optional(
    Type.String({ format: "uuid", description: "Only this payment's refunds (its id)" }),
  ),
});
export type ListRefundsQuery = Static<typeof ListRefundsQuery>;

/** The refunds of one payment: its id is in the path. */
export const ListPaymentRefundsQuery = Type.Object(listProperties);
export type ListPaymentRefundsQuery = Static<typeof ListPaymentRefundsQuery>;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const timestamp = Type.String({ format: "date-time" });

export const RefundSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  paymentId: Type.String({ format: "uuid" }),
  amount: Type.String({ examples: ["250.00"] }),
  currency: Type.Literal("THB"),
  status: stringEnum(REFUND_STATUSES, { examples: ["pending"] }),
  referenceId: Type.String({ examples: ["refund-1042"] }),
  reason: nullable(Type.String({ examples: ["Customer returned order 1042"] })),
  metadata: nullable(
    Type.Unsafe<Record<string, string>>({ type: "object", additionalProperties: { type: "string" } }),
  ),
  failureReason: nullable(
    Type.String({ description: "Why the refund failed", examples: ["The destination account is closed"] }),
  ),
  destination: Type.Object({
    bankCode: Type.String({ examples: ["014"] }),
    accountNumber: Type.String({
      description: "Masked: all but the last 4 digits are *",
      examples: ["******7890"],
    }),
    accountName: Type.String({ examples: ["Somchai Jaidee"] }),
  }),
  createdAt: timestamp,
  updatedAt: timestamp,
  succeededAt: nullable(timestamp),
  failedAt: nullable(timestamp),
  canceledAt: nullable(timestamp),
});
export type RefundRecord = Static<typeof RefundSchema>;

export const RefundEnvelope = Type.Object({ success: Type.Literal(true), data: RefundSchema });
export const RefundListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: pageSchema(RefundSchema),
});

export const SIMULATED_REFUND_OUTCOMES = ["processing", "succeeded", "failed"] as const;
export type SimulatedRefundOutcome = (typeof SIMULATED_REFUND_OUTCOMES)[number];

export const SimulateRefundBody = Type.Object(
  {
    outcome: stringEnum(SIMULATED_REFUND_OUTCOMES, {
      description:
        "processing: the bank takes a pending refund; succeeded / failed: the bank's outcome " +
        "(a pending refund is handed to the bank first; succeeded on a failed refund is the late success).",
    }),
  },
  { additionalProperties: false },
);
export type SimulateRefundBody = Static<typeof SimulateRefundBody>;
