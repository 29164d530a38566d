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
import AjvModule, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchema, FastifySchemaCompiler } from "fastify";
import { type Static, type TSchema, Type } from "typebox";
import { ERROR_CODE_KEYWORD } from "../http/validation.ts";
import { BANK_CODES } from "../lib/bank-codes.ts";
import { AppError, type ErrorCode } from "../lib/errors.ts";
import {
  ACCOUNT_NUMBER_INPUT_LENGTH_MAX,
  CUSTOMER_NAME_LENGTH_MAX,
  INTEGRATION_NAME_LENGTH_MAX,
  MERCHANT_NAME_LENGTH_MAX,
  PAGE_SIZE_DEFAULT,
  PAGE_SIZE_MAX,
  SETTLEMENT_DELAY_HOURS_MAX,
  URL_LENGTH_MAX,
} from "../lib/limits.ts";
import { AMOUNT_WIRE_PATTERN, parseAmount } from "../lib/money.ts";
import type { MerchantInput } from "../merchants/service.ts";

/** A friendlier message than Ajv's for a field whose rule a regular expression cannot say well. */
export const ERROR_MESSAGE_KEYWORD = "x-error-message";
/** The amount rule of lib/money.ts (whole satang, greater than zero), applied as a keyword. */
const AMOUNT_KEYWORD = "x-amount";
/** An absolute http or https URL with a host. */
const HTTP_URL_KEYWORD = "x-http-url";

const AMOUNT_MESSAGE =
  'must be an amount: a decimal string of whole satang greater than zero, such as "1000.00"';

function amount(description: string) {
  return Type.String({
    pattern: AMOUNT_WIRE_PATTERN,
    [AMOUNT_KEYWORD]: true,
    [ERROR_CODE_KEYWORD]: "INVALID_AMOUNT",
    [ERROR_MESSAGE_KEYWORD]: AMOUNT_MESSAGE,
    description,
  });
}

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
    pattern: "^[\\s-]*(?:[0-9][\\s-]*){10,15}$",
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

const PROMPTPAY_MESSAGE =
  "must be a mobile number (10 digits starting with 0), a national id (13 digits) or an e-wallet id (15 digits)";

/** Digits with optional `-` and spaces between them: 0 + 9 digits, 13 digits or 15 digits. */
const PROMPTPAY_PATTERN = "^(?:0(?:[\\s-]*[0-9]){9}|[0-9](?:[\\s-]*[0-9]){12}|[0-9](?:[\\s-]*[0-9]){14})$";

const promptpayId = Type.String({
  pattern: PROMPTPAY_PATTERN,
  description: "The PromptPay id payment QR codes pay to",
  [ERROR_MESSAGE_KEYWORD]: PROMPTPAY_MESSAGE,
});

const nullablePromptpayId = Type.Union([promptpayId, Type.Null()], {
  description: "The PromptPay id payment QR codes pay to; null removes it",
  [ERROR_MESSAGE_KEYWORD]: `${PROMPTPAY_MESSAGE}, or null`,
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

export const IdParams = Type.Object({ id: Type.String() });
export type IdParams = Static<typeof IdParams>;

export const PageQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

// Responses: they document the operator API in the OpenAPI document. Objects allow more
// properties, so a field added to a view later is sent rather than silently dropped.

const nullableString = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const timestamp = (description: string) => Type.String({ format: "date-time", description });

export const MerchantSchema = Type.Object(
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

export const IntegrationSchema = Type.Object(integrationFields, { additionalProperties: true });

export const CreatedIntegrationSchema = Type.Object(
  {
    ...integrationFields,
    apiSecret: Type.String({ description: "The HMAC secret: shown in this response only, stored encrypted" }),
  },
  { additionalProperties: true },
);

const envelope = (data: TSchema) => Type.Object({ success: Type.Literal(true), data });

export const MerchantEnvelope = envelope(MerchantSchema);
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
  return input;
}

// ---------------------------------------------------------------------------------------------
// Validation with nested field paths.

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    unicodeRegExp: true,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: ERROR_CODE_KEYWORD, schemaType: "string" });
  ajv.addKeyword({ keyword: ERROR_MESSAGE_KEYWORD, schemaType: "string" });
  ajv.addKeyword({
    keyword: AMOUNT_KEYWORD,
    type: "string",
    schemaType: "boolean",
    validate: (enabled: boolean, data: string) => !enabled || parseAmount(data) !== null,
    errors: false,
  });
  ajv.addKeyword({
    keyword: HTTP_URL_KEYWORD,
    type: "string",
    schemaType: "boolean",
    validate: (enabled: boolean, data: string) => !enabled || isHttpUrl(data),
    errors: false,
  });
  return ajv;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  anyOf?: SchemaNode[];
  [ERROR_CODE_KEYWORD]?: ErrorCode;
  [ERROR_MESSAGE_KEYWORD]?: string;
}

/** The property path an error is about: ["collectionAccount", "bankCode"]. */
function pathOf(error: ErrorObject): string[] {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (error.keyword === "required") segments.push(String(error.params.missingProperty));
  if (error.keyword === "additionalProperties") segments.push(String(error.params.additionalProperty));
  return segments;
}

/** The object schema among a node and its anyOf branches (nullable objects are unions). */
function objectOf(node: SchemaNode | undefined): SchemaNode | undefined {
  if (!node) return undefined;
  if (node.properties) return node;
  return node.anyOf?.find((branch) => branch.properties);
}

/** The schema nodes along a path, starting below the root. */
function nodesAlong(root: SchemaNode, path: string[]): SchemaNode[] {
  const nodes: SchemaNode[] = [];
  let current: SchemaNode | undefined = root;
  for (const segment of path) {
    current = objectOf(current)?.properties?.[segment];
    if (!current) break;
    nodes.push(current);
  }
  return nodes;
}

/**
 * Position of an error in the body table: at each level, an unknown field ranks first, then
 * fields in the order the schema lists them. A deeper error ranks before the error about its
 * enclosing field, because it says more precisely what is wrong.
 */
function rankOf(root: SchemaNode, error: ErrorObject): number[] {
  const path = pathOf(error);
  const ranks: number[] = [];
  let current: SchemaNode | undefined = root;
  path.forEach((segment, depth) => {
    const object = objectOf(current);
    const order = Object.keys(object?.properties ?? {});
    const last = depth === path.length - 1;
    const index = order.indexOf(segment);
    ranks.push(last && error.keyword === "additionalProperties" ? -1 : index === -1 ? order.length : index);
    current = object?.properties?.[segment];
  });
  return ranks;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  }
  return b.length - a.length;
}

function describe(error: ErrorObject, field: string, where: string, custom: string | undefined): string {
  const subject = field || where;
  switch (error.keyword) {
    case "required":
      return `${field} is required`;
    case "additionalProperties":
      return `${field} is not a recognised ${where} field`;
    default:
      if (custom) return `${subject} ${custom}`;
      if (error.keyword === "type") return `${subject} must be of type ${String(error.params.type)}`;
      if (error.keyword === "enum") {
        return `${subject} must be one of ${(error.params.allowedValues as unknown[]).join(", ")}`;
      }
      return `${subject} ${error.message ?? "is invalid"}`;
  }
}

/** Picks the one error to report and turns it into an AppError whose field is a dotted path. */
export function toFieldError(schema: object, errors: ErrorObject[], where: string): AppError {
  const root = schema as SchemaNode;
  const ranked = errors.map((error) => ({ error, rank: rankOf(root, error) }));
  ranked.sort((a, b) => compareRanks(a.rank, b.rank));
  const first = ranked[0]!.error;
  const path = pathOf(first);
  const field = path.join(".");
  const structural = first.keyword === "required" || first.keyword === "additionalProperties";
  const nodes = path.length === 0 ? [root] : nodesAlong(root, path);
  let code: ErrorCode = "VALIDATION_ERROR";
  let message: string | undefined;
  if (!structural) {
    for (const node of nodes) {
      code = node[ERROR_CODE_KEYWORD] ?? code;
      message = node[ERROR_MESSAGE_KEYWORD] ?? message;
    }
  }
  return new AppError(code, describe(first, field, where, message), { field: field || where });
}

const bodyCache = new WeakMap<object, ValidateFunction>();
const textCache = new WeakMap<object, ValidateFunction>();

/** Fastify validator compiler for the admin routes: same envelope and codes, nested paths. */
export const adminValidatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? bodyAjv : textAjv;
  const cache = httpPart === "body" ? bodyCache : textCache;
  let validate = cache.get(schema as object);
  if (!validate) {
    validate = ajv.compile(schema as TSchema);
    cache.set(schema as object, validate);
  }
  const fn = validate;
  const where = httpPart === "body" ? "body" : httpPart === "querystring" ? "query" : "path";
  return (data: unknown) => {
    if (fn(data)) return { value: data };
    return { error: toFieldError(schema as object, fn.errors ?? [], where) };
  };
};
