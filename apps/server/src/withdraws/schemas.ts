/**
 * Request and response schemas of the withdraws API, written once: they validate requests
 * (http/validation.ts), type the handlers, and feed the OpenAPI document.
 *
 * Body properties are listed in the order of interface.md's "Create withdraw" table, because
 * that order decides which failing field is reported first. A property with `x-error-code`
 * reports any present-but-invalid value (a wrong type included) with that code; a missing
 * required field is always VALIDATION_ERROR.
 */
import { type Static, Type } from "typebox";
import { DESTINATION_TYPES, WITHDRAW_STATUSES } from "../db/types.ts";
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
import { BANK_CODES } from "../lib/bank-codes.ts";
import {
  ACCOUNT_NUMBER_DIGITS_MAX,
  ACCOUNT_NUMBER_DIGITS_MIN,
  ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
  AMOUNT_DIGITS_MAX,
  CUSTOMER_NAME_LENGTH_MAX,
  DESCRIPTION_LENGTH_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  METADATA_KEY_LENGTH_MAX,
  METADATA_KEYS_MAX,
  METADATA_VALUE_LENGTH_MAX,
  REFERENCE_ID_PATTERN,
} from "../lib/limits.ts";

/**
 * A positive whole number of satang: lib/money.ts's wire pattern narrowed so that the integer
 * part has a non-zero digit and the fraction is zero. It repeats what `parseAmount` decides,
 * so the schema reports a bad amount in its place in the field order.
 */
export const POSITIVE_WHOLE_SATANG_PATTERN = `^(?=0*[1-9])[0-9]{1,${AMOUNT_DIGITS_MAX}}(\\.0{1,2})?$`;

/** The same for a signed, non-zero amount (operator wallet adjustments). */
export const SIGNED_WHOLE_SATANG_PATTERN = `^[+-]?(?=0*[1-9])[0-9]{1,${AMOUNT_DIGITS_MAX}}(\\.0{1,2})?$`;

/** Digits with optional `-` and spaces between them, 10 to 15 digits (lib/account-number.ts). */
const ACCOUNT_NUMBER_INPUT_PATTERN = `^[-\\s]*([0-9][-\\s]*){${ACCOUNT_NUMBER_DIGITS_MIN},${ACCOUNT_NUMBER_DIGITS_MAX}}$`;

/** The reason an operator gives for a wallet adjustment, in characters. */
export const ADJUSTMENT_REASON_LENGTH_MAX = 500;

/**
 * Metadata is written as plain JSON Schema: TypeBox's Record allows keys through a pattern,
 * which would let a key with a line break escape the value rule.
 */
const metadataProperty = Type.Unsafe<Record<string, string>>({
  type: "object",
  maxProperties: METADATA_KEYS_MAX,
  propertyNames: { minLength: 1, maxLength: METADATA_KEY_LENGTH_MAX },
  additionalProperties: { type: "string", maxLength: METADATA_VALUE_LENGTH_MAX },
  description: `Up to ${METADATA_KEYS_MAX} keys of 1-${METADATA_KEY_LENGTH_MAX} characters; string values of at most ${METADATA_VALUE_LENGTH_MAX} characters.`,
});

export const CreateWithdrawBody = Type.Object(
  {
    amount: Type.String({
      pattern: POSITIVE_WHOLE_SATANG_PATTERN,
      "x-error-code": "INVALID_AMOUNT",
      description: 'Decimal string of satang: "1000.00" is 10.00 THB. Greater than zero, whole satang.',
      examples: ["1000.00"],
    }),
    currency: Type.Optional(
      Type.Literal("THB", { "x-error-code": "INVALID_CURRENCY", description: "Only THB; the default." }),
    ),
    referenceId: Type.String({
      pattern: REFERENCE_ID_PATTERN,
      "x-error-code": "INVALID_REFERENCE_ID",
      description: "Unique per merchant among withdraws; 1-255 letters, digits, _ - .",
    }),
    destinationType: stringEnum(DESTINATION_TYPES, { description: "bank_account or wallet" }),
    customerBankAccountName: Type.String({
      minLength: 1,
      maxLength: CUSTOMER_NAME_LENGTH_MAX,
      pattern: "\\S",
      description: "Account holder name; the payout guard compares it with recent payouts.",
    }),
    customerBankAccountNumber: Type.String({
      maxLength: ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
      pattern: ACCOUNT_NUMBER_INPUT_PATTERN,
      description: "10-15 digits; `-` and spaces are ignored. Returned masked.",
    }),
    customerBankCode: stringEnum(BANK_CODES, {
      "x-error-code": "INVALID_BANK_CODE",
      description: "3-digit Thai bank code",
    }),
    description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
    metadata: Type.Optional(metadataProperty),
    idempotencyKey: Type.Optional(
      Type.String({
        pattern: IDEMPOTENCY_KEY_PATTERN,
        description: "1-255 printable ASCII characters. A retry reuses the key.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWithdrawBody = Static<typeof CreateWithdrawBody>;

/** Cancel takes no body; an empty JSON object is accepted, any field is refused. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const WithdrawIdParams = Type.Object({
  withdraw_id: Type.String({ description: "Withdraw UUID" }),
});
export type WithdrawIdParams = Static<typeof WithdrawIdParams>;

export const WithdrawReferenceParams = Type.Object({
  referenceId: Type.String({
    pattern: REFERENCE_ID_PATTERN,
    description: "The referenceId sent at create, URL-encoded",
  }),
});
export type WithdrawReferenceParams = Static<typeof WithdrawReferenceParams>;

export const WITHDRAW_SORT_FIELDS = ["amount", "status", "createdAt", "paidAt", "referenceId"] as const;
export type WithdrawSortField = (typeof WITHDRAW_SORT_FIELDS)[number];

/** In the order of interface.md's list table: the first invalid parameter is reported. */
export const ListWithdrawsQuery = Type.Object({
  page: Type.Optional(pageProperty),
  limit: Type.Optional(limitProperty),
  status: Type.Optional(
    stringEnum(WITHDRAW_STATUSES, {
      description:
        "pending, processing, paid, failed, canceled; also awaiting_verification and expired, " +
        "which records can show",
    }),
  ),
  destinationType: Type.Optional(stringEnum(DESTINATION_TYPES)),
  dateFrom: Type.Optional(dateFromProperty),
  dateTo: Type.Optional(dateToProperty),
  sortBy: Type.Optional(sortByProperty(WITHDRAW_SORT_FIELDS, "createdAt")),
  sortOrder: Type.Optional(sortOrderProperty),
});
export type ListWithdrawsQuery = Static<typeof ListWithdrawsQuery>;

// Response schemas. They are exact: every field of interface.md's Withdraw table, nullable
// ones as `null`, so the serializer neither drops nor invents a field.

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const timestamp = Type.String({ format: "date-time" });

export const WithdrawSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  amount: Type.String(),
  currency: Type.Literal("THB"),
  status: stringEnum(WITHDRAW_STATUSES),
  referenceId: Type.String(),
  destinationType: stringEnum(DESTINATION_TYPES),
  bankAccountNumber: nullable(Type.String({ description: "Masked: all but the last 4 digits are *" })),
  bankAccountName: nullable(Type.String()),
  bankCode: nullable(Type.String()),
  destinationId: nullable(
    Type.String({ description: "Id of the saved destination (type + bank code + account number)" }),
  ),
  description: nullable(Type.String()),
  metadata: nullable(
    Type.Unsafe<Record<string, string>>({ type: "object", additionalProperties: { type: "string" } }),
  ),
  paidAt: nullable(timestamp),
  canceledAt: nullable(timestamp),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type WithdrawRecord = Static<typeof WithdrawSchema>;

export const WithdrawEnvelope = Type.Object({ success: Type.Literal(true), data: WithdrawSchema });
export const WithdrawListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: pageSchema(WithdrawSchema),
});

// Operator API.

export const AdjustmentBody = Type.Object(
  {
    amount: Type.String({
      pattern: SIGNED_WHOLE_SATANG_PATTERN,
      "x-error-code": "INVALID_AMOUNT",
      description: 'Signed decimal string of satang: "+1000.00" credits, "-1000.00" debits. Not zero.',
      examples: ["100000.00", "-2500.00"],
    }),
    reason: Type.String({
      minLength: 1,
      maxLength: ADJUSTMENT_REASON_LENGTH_MAX,
      pattern: "\\S",
      description: `Why the operator adjusts the wallet; 1-${ADJUSTMENT_REASON_LENGTH_MAX} characters.`,
    }),
  },
  { additionalProperties: false },
);
export type AdjustmentBody = Static<typeof AdjustmentBody>;

export const AdjustmentSchema = Type.Object({
  id: Type.String({ format: "uuid", description: "The ledger transaction of the adjustment" }),
  merchantId: Type.String({ format: "uuid" }),
  amount: Type.String({ description: "Signed decimal string" }),
  reason: Type.String(),
  balanceAfter: Type.String({ description: "Available wallet after the adjustment" }),
  createdAt: timestamp,
});
export const AdjustmentEnvelope = Type.Object({ success: Type.Literal(true), data: AdjustmentSchema });

export const AdminIdParams = Type.Object({ id: Type.String() });
export type AdminIdParams = Static<typeof AdminIdParams>;
