/**
 * Request schemas of the operator API (CONTRACT 2), written once in TypeBox: they validate the
 * requests, type the handlers and can feed an OpenAPI document.
 *
 * The admin bodies nest one object (`collectionAccount`), so a failing field is named by its
 * path ("collectionAccount.bankCode") and carries the error code of the deepest schema that
 * declares one. The public API's validator names top-level fields only, which is all its flat
 * bodies need; this module keeps the same rules (an unknown field first, then the first failing
 * field in the order of the body table, `x-error-code` for present-but-invalid values) and
 * extends them to nested paths.
 */

import { type Static, type TSchema, Type } from "typebox";
import { BalanceSchema } from "../balance/schemas.ts";
import { AMOUNT_MESSAGE, amountField } from "../http/fields.ts";
import { ERROR_CODE_KEYWORD, ERROR_MESSAGE_KEYWORD, HTTP_URL_KEYWORD } from "../http/validation.ts";
import { DIGIT_SEPARATOR_CLASS } from "../lib/account-number.ts";
import { BANK_CODES } from "../lib/bank-codes.ts";
import {
  ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
  CUSTOMER_NAME_LENGTH_MAX,
  INTEGRATION_NAME_LENGTH_MAX,
  MERCHANT_NAME_LENGTH_MAX,
  SETTLEMENT_DELAY_HOURS_MAX,
  URL_LENGTH_MAX,
} from "../lib/limits.ts";
import { parseAmount } from "../lib/money.ts";
import { PROMPTPAY_ID_MESSAGE, PROMPTPAY_ID_PATTERN } from "../merchants/promptpay-id.ts";
import type { MerchantInput } from "../merchants/service.ts";
import { EXAMPLE_CONNECTOR_NAME } from "../providers/registry.ts";

const amount = amountField;

/** An amount that may be null, which removes the setting (no limit, no threshold). */
function nullableAmount(description: string) {
  return Type.Union([amount(description), Type.Null()], {
    [ERROR_CODE_KEYWORD]: "INVALID_AMOUNT",
    [ERROR_MESSAGE_KEYWORD]: `${AMOUNT_MESSAGE}, or null for none`,
    description,
  });
}

const merchantName = Type.String({
  minLength: 1,
  maxLength: MERCHANT_NAME_LENGTH_MAX,
  pattern: "\\S",
  [ERROR_MESSAGE_KEYWORD]: `must be a non-empty string of at most ${MERCHANT_NAME_LENGTH_MAX} characters`,
});

const settlementDelayHours = Type.Integer({
  minimum: 0,
  maximum: SETTLEMENT_DELAY_HOURS_MAX,
  description: "Hours between a payment succeeding and its money reaching the wallet",
  [ERROR_MESSAGE_KEYWORD]: `must be a whole number of hours from 0 to ${SETTLEMENT_DELAY_HOURS_MAX}`,
});

const collectionAccountFields = {
  bankCode: Type.String({
    enum: [...BANK_CODES],
    [ERROR_CODE_KEYWORD]: "INVALID_BANK_CODE",
    [ERROR_MESSAGE_KEYWORD]: "must be the 3-digit code of a bank operating in Thailand",
  }),
  accountNumber: Type.String({
    maxLength: ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
    pattern: `^${DIGIT_SEPARATOR_CLASS}*(?:[0-9]${DIGIT_SEPARATOR_CLASS}*){10,15}$`,
    [ERROR_MESSAGE_KEYWORD]: "must be 10 to 15 digits (dashes and spaces are ignored)",
  }),
  accountName: Type.String({
    minLength: 1,
    maxLength: CUSTOMER_NAME_LENGTH_MAX,
    pattern: "\\S",
    [ERROR_MESSAGE_KEYWORD]: `must be a non-empty string of at most ${CUSTOMER_NAME_LENGTH_MAX} characters`,
  }),
};

const COLLECTION_ACCOUNT_MESSAGE = "must be an object with bankCode, accountNumber and accountName";

const collectionAccount = Type.Object(collectionAccountFields, {
  additionalProperties: false,
  description: "The account bank transfers are paid to",
  [ERROR_MESSAGE_KEYWORD]: COLLECTION_ACCOUNT_MESSAGE,
});

const nullableCollectionAccount = Type.Union([collectionAccount, Type.Null()], {
  description: "The account bank transfers are paid to; null removes it",
  [ERROR_MESSAGE_KEYWORD]: `${COLLECTION_ACCOUNT_MESSAGE}, or null`,
});

const promptpayId = Type.String({
  pattern: PROMPTPAY_ID_PATTERN,
  description: "The PromptPay id payment QR codes pay to",
  [ERROR_MESSAGE_KEYWORD]: PROMPTPAY_ID_MESSAGE,
});

const nullablePromptpayId = Type.Union([promptpayId, Type.Null()], {
  description: "The PromptPay id payment QR codes pay to; null removes it",
  [ERROR_MESSAGE_KEYWORD]: `${PROMPTPAY_ID_MESSAGE}, or null`,
});

const promptpayReuse = Type.Boolean({
  description: "Return a still-valid PromptPay payment for the same customer and amount",
});

export const CreateMerchantBody = Type.Object(
  {
    name: merchantName,
    dailyWithdrawLimit: Type.Optional(nullableAmount("Daily withdraw limit (UTC day); null for none")),
    monthlyWithdrawLimit: Type.Optional(nullableAmount("Monthly withdraw limit (UTC month); null for none")),
    settlementDelayHours: Type.Optional(settlementDelayHours),
    collectionAccount: Type.Optional(collectionAccount),
    promptpayId: Type.Optional(promptpayId),
    promptpayReuse: Type.Optional(promptpayReuse),
  },
  { additionalProperties: false },
);
export type CreateMerchantBody = Static<typeof CreateMerchantBody>;

export const UpdateMerchantBody = Type.Object(
  {
    name: Type.Optional(merchantName),
    dailyWithdrawLimit: Type.Optional(nullableAmount("Daily withdraw limit (UTC day); null removes it")),
    monthlyWithdrawLimit: Type.Optional(
      nullableAmount("Monthly withdraw limit (UTC month); null removes it"),
    ),
    settlementDelayHours: Type.Optional(settlementDelayHours),
    collectionAccount: Type.Optional(nullableCollectionAccount),
    promptpayId: Type.Optional(nullablePromptpayId),
    promptpayReuse: Type.Optional(promptpayReuse),
    walletStatus: Type.Optional(
      Type.Enum(["active", "frozen", "closed"], {
        [ERROR_MESSAGE_KEYWORD]: "must be active, frozen or closed",
      }),
    ),
    withdrawVerificationThreshold: Type.Optional(
      nullableAmount("Withdraws at or above this amount wait for operator approval; null for none"),
    ),
    status: Type.Optional(
      Type.Enum(["active", "disabled"], { [ERROR_MESSAGE_KEYWORD]: "must be active or disabled" }),
    ),
    provider: Type.Optional(
      Type.Union(
        [Type.String({ minLength: 1, maxLength: 50, examples: [EXAMPLE_CONNECTOR_NAME] }), Type.Null()],
        {
          description:
            "Pins the merchant's new payments to one connector of SATANG_PROVIDER (no failover); null unpins",
          [ERROR_MESSAGE_KEYWORD]: "must be a connector's name, or null",
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    [ERROR_MESSAGE_KEYWORD]: "must be a JSON object naming at least one field to change",
  },
);
export type UpdateMerchantBody = Static<typeof UpdateMerchantBody>;

const redirectUrl = Type.String({
  format: "uri",
  maxLength: URL_LENGTH_MAX,
  [HTTP_URL_KEYWORD]: true,
  description: "Where the hosted payment page sends the customer (paymentId is added to its query)",
  [ERROR_MESSAGE_KEYWORD]: `must be an absolute http or https URL of at most ${URL_LENGTH_MAX} characters`,
});

export const CreateIntegrationBody = Type.Object(
  {
    name: Type.Optional(
      Type.Union(
        [
          Type.String({
            minLength: 1,
            maxLength: INTEGRATION_NAME_LENGTH_MAX,
          }),
          Type.Null(),
        ],
        {
          [ERROR_MESSAGE_KEYWORD]: `must be a non-empty string of at most ${INTEGRATION_NAME_LENGTH_MAX} characters`,
        },
      ),
    ),
    redirectUrl: Type.Optional(
      Type.Union([redirectUrl, Type.Null()], {
        [ERROR_MESSAGE_KEYWORD]: `must be an absolute http or https URL of at most ${URL_LENGTH_MAX} characters, or null`,
      }),
    ),
    requireSignatureV2: Type.Optional(
      Type.Boolean({ description: "Refuse v1 signatures for this integration's key" }),
    ),
  },
  { additionalProperties: false },
);
export type CreateIntegrationBody = Static<typeof CreateIntegrationBody>;

/** A change of an integration: any of the create's fields, at least one. */
export const UpdateIntegrationBody = Type.Object(CreateIntegrationBody.properties, {
  additionalProperties: false,
  minProperties: 1,
  [ERROR_MESSAGE_KEYWORD]: "must be a JSON object naming at least one field to change",
});
export type UpdateIntegrationBody = Static<typeof UpdateIntegrationBody>;

export const IdParams = Type.Object({ id: Type.String() });
export type IdParams = Static<typeof IdParams>;

export { PageQuery } from "../http/list-query.ts";

// Responses: they document the operator API in the OpenAPI document. Objects allow more
// properties, so a field added to a view later is sent rather than silently dropped.

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const timestamp = (description: string) => Type.String({ format: "date-time", description });

const MerchantSchema = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    name: Type.String(),
    status: Type.Enum(["active", "disabled"], {
      description: "A disabled merchant's keys get AUTHENTICATION_ERROR",
    }),
    settlementDelayHours: Type.Integer(),
    collectionAccount: Type.Union([
      Type.Object(collectionAccountFields, { additionalProperties: true }),
      Type.Null(),
    ]),
    promptpayId: nullableString("PromptPay id QR codes pay to"),
    promptpayReuse: Type.Boolean(),
    walletStatus: Type.Enum(["active", "frozen", "closed"]),
    dailyWithdrawLimit: nullableString("Amount (satang, two decimals), or null for no limit"),
    monthlyWithdrawLimit: nullableString("Amount (satang, two decimals), or null for no limit"),
    withdrawVerificationThreshold: nullableString("Amount (satang, two decimals), or null for none"),
    provider: Type.Union([Type.String({ examples: [EXAMPLE_CONNECTOR_NAME] }), Type.Null()], {
      description: "The connector the merchant is pinned to, or null: SATANG_PROVIDER's order",
    }),
    createdAt: timestamp("Creation time"),
    updatedAt: timestamp("Last change"),
  },
  { additionalProperties: true },
);

const integrationFields = {
  id: Type.String({ format: "uuid" }),
  merchantId: Type.String({ format: "uuid" }),
  name: nullableString("Name to recognise the integration by"),
  apiKey: Type.String({ description: "Sent as X-API-Key" }),
  environment: Type.Enum(["sandbox", "live"]),
  redirectUrl: nullableString("Where the hosted payment page sends the customer"),
  requireSignatureV2: Type.Boolean(),
  revokedAt: Type.Union([timestamp("When the key stopped working"), Type.Null()]),
  createdAt: timestamp("Creation time"),
};

const IntegrationSchema = Type.Object(integrationFields, { additionalProperties: true });

const CreatedIntegrationSchema = Type.Object(
  {
    ...integrationFields,
    apiSecret: Type.String({ description: "The HMAC secret: shown in this response only, stored encrypted" }),
  },
  { additionalProperties: true },
);

const envelope = (data: TSchema) => Type.Object({ success: Type.Literal(true), data });

export const MerchantEnvelope = envelope(MerchantSchema);
/** The operator's retrieve: the merchant with its wallet (CONTRACT 2), as GET /api/v1/balance reads it. */
export const MerchantWithWalletEnvelope = envelope(
  Type.Object(
    {
      ...MerchantSchema.properties,
      wallet: Type.Object(BalanceSchema.properties, {
        additionalProperties: true,
        description: "The merchant's balance, as the merchant's GET /api/v1/balance answers it",
      }),
    },
    { additionalProperties: true },
  ),
);
export const IntegrationEnvelope = envelope(IntegrationSchema);
export const CreatedIntegrationEnvelope = envelope(CreatedIntegrationSchema);
export const IntegrationListEnvelope = envelope(
  Type.Object({
    data: Type.Array(IntegrationSchema),
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    totalPages: Type.Integer(),
  }),
);

/** Wire amounts (already validated) to satang; undefined stays undefined, null stays null. */
function satang(value: string | null | undefined): bigint | null | undefined {
  if (value === undefined || value === null) return value;
  const parsed = parseAmount(value);
  if (parsed === null) throw new Error(`schema let an invalid amount through: ${value}`);
  return parsed;
}

/** The service input of a validated create or update body. */
export function merchantInputOf(body: CreateMerchantBody): MerchantInput;
export function merchantInputOf(body: UpdateMerchantBody): Partial<MerchantInput>;
export function merchantInputOf(body: UpdateMerchantBody): Partial<MerchantInput> {
  const input: Partial<MerchantInput> = {};
  if (body.name !== undefined) input.name = body.name;
  const daily = satang(body.dailyWithdrawLimit);
  if (daily !== undefined) input.dailyWithdrawLimitSatang = daily;
  const monthly = satang(body.monthlyWithdrawLimit);
  if (monthly !== undefined) input.monthlyWithdrawLimitSatang = monthly;
  if (body.settlementDelayHours !== undefined) input.settlementDelayHours = body.settlementDelayHours;
  if (body.collectionAccount !== undefined) input.collectionAccount = body.collectionAccount;
  if (body.promptpayId !== undefined) input.promptpayId = body.promptpayId;
  if (body.promptpayReuse !== undefined) input.promptpayReuse = body.promptpayReuse;
  if (body.walletStatus !== undefined) input.walletStatus = body.walletStatus;
  const threshold = satang(body.withdrawVerificationThreshold);
  if (threshold !== undefined) input.withdrawVerificationThresholdSatang = threshold;
  if (body.status !== undefined) input.status = body.status;
  if (body.provider !== undefined) input.provider = body.provider;
  return input;
}
