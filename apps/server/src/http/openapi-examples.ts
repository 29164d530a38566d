/**
 * Examples for the OpenAPI document, generated from the same schemas that validate requests:
 * every request body and JSON response of the document gets an `example` built by walking its
 * schema. A property's value comes from its own `examples` keyword when a schema has one, then
 * from the realistic values below (by property name), then from its `const`, enum, format or
 * type. Every example is checked against its schema by the tests, so a schema change that an
 * example no longer fits fails there rather than showing a wrong example in /docs.
 */

import { AMOUNT_EXAMPLE } from "./fields.ts";

type Schema = Record<string, unknown>;

const PAYMENT_ID = "0b8f2c4e-6d1a-4f3b-9c7e-5a2d8e1f4b60";
const WITHDRAW_ID = "5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84";
const MERCHANT_ID = "9e4a6b2c-1d3f-4a5e-8b7c-6f0d2e1a3b95";
const EVENT_ID = "c3d5e7f9-1a2b-4c4d-8e6f-7a8b9c0d1e2f";
const ENDPOINT_ID = "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b";
const INTEGRATION_ID = "a7b8c9d0-e1f2-4a3b-9c4d-5e6f7a8b9c0d";
const REFUND_ID = "f6a7b8c9-d0e1-4f2a-8b3c-4d5e6f7a8b9c";
const BATCH_ID = "2d4f6a8c-0e1b-4d3f-9a5c-7e9b1d3f5a70";
/** The moment every example happens at. */
export const EXAMPLE_MOMENT = "2026-01-15T12:00:00.000Z";
const AT = EXAMPLE_MOMENT;
const PROMPTPAY_PAYLOAD =
  "00020101021229370016A000000677010111011300668123456785802TH53037645406100.006304ABCD";

/** The ids the examples show, for examples built elsewhere (error metadata). */
export const EXAMPLE_IDS = {
  payment: PAYMENT_ID,
  withdraw: WITHDRAW_ID,
  merchant: MERCHANT_ID,
  refund: REFUND_ID,
  payoutBatch: BATCH_ID,
} as const;

/** Realistic values by property name, valid for every schema of that name in the document. */
const BY_NAME: Record<string, unknown> = {
  // The amount a request example sends (http/fields.ts), so a create's response shows the
  // amount its request sent.
  amount: AMOUNT_EXAMPLE,
  status: "requires_action",
  referenceId: "order-1001",
  paymentMethod: "promptpay",
  customerBankAccountName: "Somchai Jaidee",
  customerBankAccountNumber: "1234567890",
  customerBankCode: "004",
  bankAccountName: "Somchai Jaidee",
  bankAccountNumber: "******7890",
  bankCode: "004",
  bankName: "Kasikornbank",
  bankNameTh: "ธนาคารกสิกรไทย",
  accountName: "My Shop Co., Ltd.",
  accountNumber: "1234567890",
  description: "Order 1001: 2 x Thai iced tea",
  metadata: { orderId: "1001" },
  events: ["payment.received", "withdraw.paid"],
  idempotencyKey: "order-1001",
  merchantReference: "INV-2026-0001",
  invoiceNo: "INV-2026-0001",
  clientSecret: `${PAYMENT_ID}_secret_Jx4pQ9mT2vWc7LkR8sYb1nHd5fGa3eZu`,
  paymentAppUrl: `https://pay.example/pay/${PAYMENT_ID}`,
  redirectUrl: `https://shop.example/orders/1001/done?paymentId=${PAYMENT_ID}`,
  imageUrl: `https://pay.example/pay/${PAYMENT_ID}/qr.png`,
  payload: PROMPTPAY_PAYLOAD,
  reference: "SAT7K2Q9",
  name: "My Shop",
  email: "owner@shop.example",
  password: "correct-horse-battery",
  promptpayId: "0812345678",
  url: "https://shop.example/webhooks/satang",
  reason: "Opening float",
  apiKey: "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
  apiSecret: "sec_Jx4pQ9mT2vWc7LkR8sYb1nHd5fGa3eZuXw0",
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  token: "sess_Jx4pQ9mT2vWc7LkR8sYb1nHd5fGa3eZu",
  message: "Payment not found",
  provider: "sandbox",
  report: "paid",
  subjectStatus: "processing",
  subjectId: WITHDRAW_ID,
  id: PAYMENT_ID,
  paymentId: PAYMENT_ID,
  merchantId: MERCHANT_ID,
  eventId: EVENT_ID,
  endpointId: ENDPOINT_ID,
  integrationId: INTEGRATION_ID,
  destinationId: "d4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70",
  callbackId: "cb_20260115_000123",
  balanceAfter: "250000.00",
  walletBalance: 250000,
  settlementBalance: 100000,
  expiresInMinutes: 15,
  settlementDelayHours: 24,
  seconds: 3600,
  page: 1,
  limit: 20,
  total: 1,
  totalPages: 1,
  count: 1,
  attemptCount: 1,
  attemptNumber: 1,
  statusCode: 200,
  lastStatusCode: 200,
  durationMs: 84,
  lastError: null,
  error: null,
  errorCode: null,
  createdBy: "Somsri (finance)",
  createdByOperator: "desk-bangkok",
  withdrawStatus: "processing",
  destinationType: "bank_account",
  totalAmount: "250000.00",
  paidAmount: "0.00",
  failureReason: null,
  bankReference: "TRF2611230001234",
  responseExcerpt: '{"received":true}',
  dailyWithdrawLimit: "5000000.00",
  monthlyWithdrawLimit: "100000000.00",
  withdrawVerificationThreshold: "1000000.00",
};

/** Nullable moments an example record has a value for; every other one is shown as null. */
const SET_MOMENTS = new Set(["expiresAt", "nextAttemptAt", "nextRetryAt"]);

const BY_FORMAT: Record<string, unknown> = {
  uuid: PAYMENT_ID,
  "date-time": AT,
  date: "2026-01-15",
  email: "owner@shop.example",
  uri: "https://shop.example/webhooks/satang",
};

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The first alternative of an anyOf/oneOf that is not null: what an example should show. */
function preferredAlternative(alternatives: unknown[]): Schema | undefined {
  const schemas = alternatives.filter(isSchema);
  return schemas.find((s) => s.type !== "null") ?? schemas[0];
}

function scalarExample(schema: Schema): unknown {
  if (typeof schema.format === "string" && schema.format in BY_FORMAT) return BY_FORMAT[schema.format];
  switch (schema.type) {
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? Math.max(schema.minimum, 1) : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    case "string":
      return typeof schema.minLength === "number" && schema.minLength > 6
        ? "x".repeat(schema.minLength)
        : "text";
    default:
      return null;
  }
}

function objectExample(schema: Schema, resolve: (ref: string) => Schema | undefined, depth: number): unknown {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    if (isSchema(property)) out[key] = exampleOf(property, resolve, key, depth + 1);
  }
  return out;
}

/**
 * An example value for `schema`. `name` is the property the schema belongs to, if any; `resolve`
 * looks up a `$ref` in the document's components.
 */
export function exampleOf(
  schema: Schema,
  resolve: (ref: string) => Schema | undefined,
  name?: string,
  depth = 0,
): unknown {
  if (depth > 12) return null;
  if (typeof schema.$ref === "string") {
    const target = resolve(schema.$ref);
    return target ? exampleOf(target, resolve, name, depth + 1) : null;
  }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const named = name === undefined ? undefined : BY_NAME[name];
    return schema.enum.includes(named) ? named : schema.enum[0];
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const alternatives = schema[key];
    if (Array.isArray(alternatives)) {
      const chosen = preferredAlternative(alternatives);
      // A nullable moment (confirmedAt, canceledAt, ...) has not happened yet in an example
      // that shows a new record.
      const nullable = alternatives.some((a) => isSchema(a) && a.type === "null");
      if (nullable && chosen?.format === "date-time" && !SET_MOMENTS.has(name ?? "")) return null;
      return chosen ? exampleOf(chosen, resolve, name, depth + 1) : null;
    }
  }
  if (Array.isArray(schema.allOf)) {
    const first = schema.allOf.find(isSchema);
    return first ? exampleOf(first, resolve, name, depth + 1) : null;
  }
  if (name !== undefined && name in BY_NAME && schema.type !== "object" && schema.type !== "array") {
    return BY_NAME[name];
  }
  if (schema.type === "object" || isSchema(schema.properties)) {
    if (name === "metadata" && !isSchema(schema.properties)) return BY_NAME.metadata;
    return objectExample(schema, resolve, depth);
  }
  if (schema.type === "array") {
    if (name !== undefined && Array.isArray(BY_NAME[name])) return BY_NAME[name];
    return isSchema(schema.items) ? [exampleOf(schema.items, resolve, name, depth + 1)] : [];
  }
  return scalarExample(schema);
}

interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

function addExample(media: MediaType | undefined, resolve: (ref: string) => Schema | undefined): void {
  if (!media?.schema || media.example !== undefined || media.examples !== undefined) return;
  media.example = exampleOf(media.schema, resolve);
}

/** Gives every JSON request body and response of the document an example, in place. */
export function addExamples(document: {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}): void {
  const resolve = (ref: string) => {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    return match?.[1] ? document.components?.schemas?.[match[1]] : undefined;
  };
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations) as (Operation | null)[]) {
      if (typeof operation !== "object" || operation === null) continue;
      addExample(operation.requestBody?.content?.["application/json"], resolve);
      for (const response of Object.values(operation.responses ?? {})) {
        addExample(response.content?.["application/json"], resolve);
      }
    }
  }
}
