/**
 * Request and response schemas of the payments API, written once: they validate requests
 * (http/validation.ts), type the handlers, and feed the OpenAPI document.
 *
 * Body properties are listed in the order of interface.md's "Create payment" table, because
 * that order decides which failing field is reported first. A property with `x-error-code`
 * reports any present-but-invalid value (a wrong type included) with that code; a missing
 * required field is always VALIDATION_ERROR.
 */
import { type Static, Type } from "typebox";
import { PAYMENT_METHODS, PAYMENT_STATUSES } from "../db/types.ts";
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
  EXPIRES_IN_MINUTES_MAX,
  EXPIRES_IN_MINUTES_MIN,
  IDEMPOTENCY_KEY_PATTERN,
  MERCHANT_REFERENCE_LENGTH_MAX,
  METADATA_KEY_LENGTH_MAX,
  METADATA_KEYS_MAX,
  METADATA_VALUE_LENGTH_MAX,
  REFERENCE_ID_PATTERN,
} from "../lib/limits.ts";

export const RESPONSE_MODES = ["both", "payment_link", "qr_code"] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

/**
 * A positive whole number of satang: the wire pattern of lib/money.ts narrowed so that the
 * integer part has a non-zero digit (the lookahead) and the fraction is zero. It repeats what
 * `parseAmount` decides, so the schema reports a bad amount in its place in the field order.
 */
export const POSITIVE_WHOLE_SATANG_PATTERN = `^(?=0*[1-9])[0-9]{1,${AMOUNT_DIGITS_MAX}}(\\.0{1,2})?$`;

/** Digits with optional `-` and spaces between them, 10 to 15 digits (lib/account-number.ts). */
const ACCOUNT_NUMBER_INPUT_PATTERN = `^[-\\s]*([0-9][-\\s]*){${ACCOUNT_NUMBER_DIGITS_MIN},${ACCOUNT_NUMBER_DIGITS_MAX}}$`;

const responseModeProperty = stringEnum(RESPONSE_MODES, {
  description:
    "both (default): payment link and QR code; payment_link: no qrCode; qr_code: only qrCode. " +
    "Changes only nextAction.",
});

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

export const CreatePaymentBody = Type.Object(
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
      description: "Unique per merchant; 1-255 letters, digits, _ - .",
    }),
    paymentMethod: stringEnum(PAYMENT_METHODS),
    responseMode: Type.Optional(responseModeProperty),
    customerBankAccountName: Type.String({
      minLength: 1,
      maxLength: CUSTOMER_NAME_LENGTH_MAX,
      pattern: "\\S",
    }),
    customerBankAccountNumber: Type.String({
      maxLength: ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
      pattern: ACCOUNT_NUMBER_INPUT_PATTERN,
      description: "10-15 digits; `-` and spaces are ignored. Never returned.",
    }),
    customerBankCode: stringEnum(BANK_CODES, {
      "x-error-code": "INVALID_BANK_CODE",
      description: "3-digit Thai bank code",
    }),
    description: Type.Optional(Type.String({ maxLength: DESCRIPTION_LENGTH_MAX })),
    merchantReference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MERCHANT_REFERENCE_LENGTH_MAX,
        description: "Merchant invoice, order or transaction reference. Stored, never returned.",
      }),
    ),
    invoiceNo: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MERCHANT_REFERENCE_LENGTH_MAX,
        description: "Alias of merchantReference; when both are sent they must be equal.",
      }),
    ),
    metadata: Type.Optional(metadataProperty),
    idempotencyKey: Type.Optional(
      Type.String({
        pattern: IDEMPOTENCY_KEY_PATTERN,
        description: "1-255 printable ASCII characters. A retry reuses the key.",
      }),
    ),
    expiresInMinutes: Type.Optional(
      Type.Integer({
        minimum: EXPIRES_IN_MINUTES_MIN,
        maximum: EXPIRES_IN_MINUTES_MAX,
        description: "Default 15 for promptpay, 1440 for bank_transfer.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreatePaymentBody = Static<typeof CreatePaymentBody>;

/** Cancel takes no body; an empty JSON object is accepted, any field is refused. */
export const CancelPaymentBody = Type.Object({}, { additionalProperties: false });

export const PaymentIdParams = Type.Object({
  payment_id: Type.String({ description: "Payment UUID" }),
});
export type PaymentIdParams = Static<typeof PaymentIdParams>;

export const ReferenceParams = Type.Object({
  referenceId: Type.String({
    pattern: REFERENCE_ID_PATTERN,
    description: "The referenceId sent at create, URL-encoded",
  }),
});
export type ReferenceParams = Static<typeof ReferenceParams>;

export const ResponseModeQuery = Type.Object({
  responseMode: Type.Optional(responseModeProperty),
});
export type ResponseModeQuery = Static<typeof ResponseModeQuery>;

export const PAYMENT_SORT_FIELDS = [
  "amount",
  "status",
  "createdAt",
  "confirmedAt",
  "capturedAt",
  "referenceId",
] as const;
export type PaymentSortField = (typeof PAYMENT_SORT_FIELDS)[number];

/** In the order of interface.md's list table: the first invalid parameter is reported. */
export const ListPaymentsQuery = Type.Object({
  page: Type.Optional(pageProperty),
  limit: Type.Optional(limitProperty),
  status: Type.Optional(stringEnum(PAYMENT_STATUSES)),
  paymentMethod: Type.Optional(stringEnum(PAYMENT_METHODS)),
  responseMode: Type.Optional(responseModeProperty),
  dateFrom: Type.Optional(dateFromProperty),
  dateTo: Type.Optional(dateToProperty),
  sortBy: Type.Optional(sortByProperty(PAYMENT_SORT_FIELDS, "createdAt")),
  sortOrder: Type.Optional(sortOrderProperty),
});
export type ListPaymentsQuery = Static<typeof ListPaymentsQuery>;

// Response schemas. They are exact: every field of interface.md's Payment table, nullable
// ones as `null`, so the serializer neither drops nor invents a field.

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const timestamp = Type.String({ format: "date-time" });

export const QrCodeSchema = Type.Object({
  type: Type.Literal("promptpay"),
  payload: Type.String({ description: "EMVCo PromptPay payload (dynamic QR, tag 29)" }),
  imageUrl: Type.String({ description: "PNG of the payload" }),
});

export const NextActionSchema = Type.Union([
  Type.Object({
    type: Type.Literal("use_payment_app"),
    paymentAppUrl: Type.Optional(Type.String()),
    qrCode: Type.Optional(QrCodeSchema),
  }),
  Type.Object({
    type: Type.Literal("redirect"),
    redirectUrl: Type.Optional(Type.String()),
    qrCode: Type.Optional(QrCodeSchema),
  }),
  Type.Object({
    type: Type.Literal("display_bank_transfer_instructions"),
    bankTransferInstructions: Type.Object({
      bankName: Type.String(),
      accountNumber: Type.String(),
      accountName: Type.String(),
      amount: Type.String({ description: "THB with two decimals" }),
      reference: Type.String(),
    }),
  }),
]);

export const PaymentSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  amount: Type.String(),
  currency: Type.Literal("THB"),
  status: stringEnum(PAYMENT_STATUSES),
  paymentMethod: nullable(stringEnum(PAYMENT_METHODS)),
  referenceId: Type.String(),
  description: nullable(Type.String()),
  metadata: nullable(
    Type.Unsafe<Record<string, string>>({ type: "object", additionalProperties: { type: "string" } }),
  ),
  clientSecret: nullable(Type.String()),
  nextAction: nullable(NextActionSchema),
  confirmedAt: nullable(timestamp),
  capturedAt: nullable(timestamp),
  canceledAt: nullable(timestamp),
  expiresAt: nullable(timestamp),
  createdAt: timestamp,
  updatedAt: timestamp,
});
export type PaymentRecord = Static<typeof PaymentSchema>;
export type NextAction = Static<typeof NextActionSchema>;

export const PaymentEnvelope = Type.Object({ success: Type.Literal(true), data: PaymentSchema });
export const PaymentListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: pageSchema(PaymentSchema),
});
