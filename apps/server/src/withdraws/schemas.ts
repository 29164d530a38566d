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
  accountNameField,
  accountNumberField,
  amountField,
  bankCodeField,
  currencyField,
  descriptionField,
  idempotencyKeyField,
  metadataField,
  ReferenceParams,
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

export const CreateWithdrawBody = Type.Object(
  {
    amount: amountField(),
    currency: Type.Optional(currencyField()),
    referenceId: referenceIdField("Unique per merchant among withdraws; 1-255 letters, digits, _ - ."),
    destinationType: stringEnum(DESTINATION_TYPES, { description: "bank_account or wallet" }),
    customerBankAccountName: accountNameField(
      "Account holder name; the payout guard compares it with recent payouts.",
    ),
    customerBankAccountNumber: accountNumberField(
      "10-15 digits; `-` and spaces are ignored. Returned masked.",
    ),
    customerBankCode: bankCodeField(),
    description: Type.Optional(descriptionField()),
    metadata: Type.Optional(metadataField()),
    idempotencyKey: Type.Optional(idempotencyKeyField()),
  },
  { additionalProperties: false },
);
export type CreateWithdrawBody = Static<typeof CreateWithdrawBody>;

export { EmptyBody } from "../http/fields.ts";

export const WithdrawIdParams = Type.Object({
  withdraw_id: Type.String({ description: "Withdraw UUID" }),
});
export type WithdrawIdParams = Static<typeof WithdrawIdParams>;

export const WithdrawReferenceParams = ReferenceParams;
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

export const AdminIdParams = Type.Object({ id: Type.String() });
export type AdminIdParams = Static<typeof AdminIdParams>;
