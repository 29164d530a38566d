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
  accountNameField,
  accountNumberField,
  amountField,
  bankCodeField,
  currencyField,
  descriptionField,
  EmptyBody,
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
import {
  EXPIRES_IN_MINUTES_MAX,
  EXPIRES_IN_MINUTES_MIN,
  MERCHANT_REFERENCE_LENGTH_MAX,
} from "../lib/limits.ts";

export const RESPONSE_MODES = ["both", "payment_link", "qr_code"] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

const responseModeProperty = stringEnum(RESPONSE_MODES, {
  description:
    "both (default): payment link and QR code; payment_link: no qrCode; qr_code: only qrCode. " +
    "Changes only nextAction.",
});

export const CreatePaymentBody = Type.Object(
  {
    amount: amountField(),
    currency: Type.Optional(currencyField()),
    referenceId: referenceIdField("Unique per merchant; 1-255 letters, digits, _ - ."),
    paymentMethod: stringEnum(PAYMENT_METHODS),
    responseMode: Type.Optional(responseModeProperty),
    customerBankAccountName: accountNameField("Customer bank account name"),
    customerBankAccountNumber: accountNumberField(
      "10-15 digits; `-` and spaces are ignored. Never returned.",
    ),
    customerBankCode: bankCodeField(),
    description: Type.Optional(descriptionField()),
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
    metadata: Type.Optional(metadataField()),
    idempotencyKey: Type.Optional(idempotencyKeyField()),
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

export const CancelPaymentBody = EmptyBody;

export const PaymentIdParams = Type.Object({
  payment_id: Type.String({ description: "Payment UUID" }),
});
export type PaymentIdParams = Static<typeof PaymentIdParams>;

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

const QrCodeSchema = Type.Object({
  type: Type.Literal("promptpay"),
  payload: Type.String({ description: "EMVCo PromptPay payload (dynamic QR, tag 29)" }),
  imageUrl: Type.String({ description: "PNG of the payload" }),
});

const QR_IMAGE_URL_EXAMPLE =
  "https://api.provider.example/charges/chrg_5xuy4w91xqz7d0pu3xg/documents/qrcode.svg";

const NextActionSchema = Type.Union([
  Type.Object({
    type: Type.Literal("use_payment_app"),
    paymentAppUrl: Type.Optional(Type.String()),
    qrCode: Type.Optional(QrCodeSchema),
    qrImageUrl: Type.Optional(
      Type.String({
        description: "The QR image the payment's provider made, when it gives an image and no payload",
        examples: [QR_IMAGE_URL_EXAMPLE],
      }),
    ),
  }),
  Type.Object({
    type: Type.Literal("redirect"),
    redirectUrl: Type.Optional(Type.String()),
    qrCode: Type.Optional(QrCodeSchema),
    qrImageUrl: Type.Optional(
      Type.String({
        description: "The QR image the payment's provider made, when it gives an image and no payload",
        examples: [QR_IMAGE_URL_EXAMPLE],
      }),
    ),
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
