/**
 * Every exchange with SCB is recorded for the operator: which call, the request and the answer
 * (or why there was none), redacted before it leaves the client. Secrets and tokens are
 * replaced, account numbers, proxy ids and tax ids are masked to their last four digits, so a
 * record can be shown on an operator screen or written to a log as it is.
 */
import { maskAccountNumber } from "../../lib/account-number.ts";
import { redactText } from "../../lib/redaction.ts";
import { SCB_TRANSACTION_ID_LENGTH_MAX } from "./limits.ts";

/** What an exchange was: one of SCB's endpoints, or (inbound) a payment confirmation SCB posted. */
export const SCB_OPERATIONS = [
  "token",
  "bill_payment_inquiry",
  "slip_verification",
  "credit_initiate",
  "credit_confirm",
  "transfer_inquiry",
  "payment_confirmation",
] as const;
export type ScbOperation = (typeof SCB_OPERATIONS)[number];

export const SCB_DIRECTIONS = ["outbound", "inbound"] as const;

/** `outbound`: a call to SCB and its answer. `inbound`: a payment confirmation SCB posted to us. */
export type ScbDirection = (typeof SCB_DIRECTIONS)[number];

/**
 * The SCB references an exchange names, for the operator's lookups: the payment's `ref1`, a
 * transfer's `partnerTransactionId` and `tokenizerId`, a transaction's `transRef` (SCB's
 * transaction id). Absent when the exchange names none.
 */
export interface ExchangeKeys {
  ref1?: string;
  partnerTransactionId?: string;
  tokenizerId?: string;
  transRef?: string;
}

export interface ScbExchange {
  direction: ScbDirection;
  operation: ScbOperation;
  /**
   * The requestUId sent; for a confirmation SCB sent us, the requestUId header it carried, else
   * its transaction id.
   */
  requestUId: string;
  method: string;
  /** Path and query, below the base URL. */
  path: string;
  /** 1 for the first try, 2 for the one retry after a refreshed token. */
  attempt: number;
  startedAt: Date;
  durationMs: number;
  /** The headers that matter (RECORDED_HEADERS), the resource owner masked; never the authorization. */
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  /** Null when no answer came (timeout, connection error). */
  responseStatus: number | null;
  responseBody: unknown;
  /** Why there was no usable answer, or null. */
  error: string | null;
  keys: ExchangeKeys;
  /** Why the connector could not read the answer (a body that is not JSON), or absent. */
  unreadable?: string | null;
}

/**
 * Where records go. The client waits for `record` but never lets its failure change an outcome.
 * `record` may answer the id it kept the exchange under, so that an answer found unreadable later
 * (by the parsers of collection.ts) can be marked on its record with `markUnreadable`.
 */
export interface ScbRecorder {
  record(exchange: ScbExchange): undefined | string | Promise<undefined | string>;
  markUnreadable?(exchangeId: string, reason: string): void | Promise<void>;
}

export const REDACTED = "[redacted]";

/**
 * Keys whose values are secrets: replaced whole. Compared without case, `_` or `-`, so
 * `access_token`, `accessToken` and `Access-Token` are one key.
 */
const SECRET_KEYS = new Set([
  "applicationsecret",
  "apisecret",
  "clientsecret",
  "secret",
  "password",
  "token",
  "accesstoken",
  "refreshtoken",
  "idtoken",
  "bearertoken",
  "authorization",
  "authcode",
  "codechallenge",
  "codeverifier",
]);

const keyName = (key: string): string => key.toLowerCase().replace(/[_-]/g, "");

/**
 * Secret shapes inside any string, whatever its key: a bearer credential (`Bearer <token>`) and
 * a JWT (three base64url parts, the first two starting `eyJ`, a JSON object). An opaque token
 * has no shape of its own (SCB's are UUIDs, like many ids), so those a client knows are named
 * to `redact` as literals instead.
 */
const SECRET_SHAPES: RegExp[] = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]+/gi,
  /\beyJ[A-Za-z0-9_-]*\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/g,
];

/** Shortest literal worth hiding: shorter values would hide ordinary text. */
const LITERAL_LENGTH_MIN = 8;

function redactString(value: string, literals: readonly string[]): string {
  let out = value;
  for (const literal of literals) {
    if (literal.length >= LITERAL_LENGTH_MIN) out = out.split(literal).join(REDACTED);
  }
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}
/** Keys whose values identify an account or a person: masked to the last four characters. */
const MASKED_KEY = /(accountno|accountnumber|proxyid|taxid|applicationkey|resourceownerid|citizenid)$/i;
/** Inside a `proxy` or `account` object (slip verification), `value` is an id too. */
const MASKED_PARENTS = new Set(["proxy", "account", "accountinfo"]);

function mask(value: unknown): unknown {
  if (typeof value !== "string") return value === null || value === undefined ? value : REDACTED;
  return maskAccountNumber(value);
}

/**
 * A deep copy with secrets replaced and identifiers masked: by key (SECRET_KEYS, MASKED_KEY),
 * by shape (a bearer credential or a JWT in any string) and by value (`literals`: the secrets
 * the caller knows, such as the API secret and the access tokens it was given, wherever they
 * appear, even quoted in a description).
 */
export function redact(value: unknown, literals: readonly string[] = [], parentKey = ""): unknown {
  if (typeof value === "string") return redactString(value, literals);
  if (Array.isArray(value)) return value.map((item) => redact(item, literals, parentKey));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const name = keyName(key);
    if (SECRET_KEYS.has(name)) out[key] = inner === undefined ? inner : REDACTED;
    else if (MASKED_KEY.test(name)) out[key] = mask(inner);
    else if (name === "value" && MASKED_PARENTS.has(parentKey)) out[key] = mask(inner);
    else out[key] = redact(inner, literals, name);
  }
  return out;
}

/**
 * The request headers an exchange keeps, by their lower-case names, under the names SCB's pages
 * use. The authorization (a bearer token, or anything a caller sends us) is never among them.
 */
const RECORDED_HEADERS: Readonly<Record<string, string>> = {
  requestuid: "requestUId",
  resourceownerid: "resourceOwnerId",
  "accept-language": "accept-language",
};

/** Longest header value kept: SCB's are ids of a few dozen characters. */
const RECORDED_HEADER_LENGTH_MAX = 200;

/** Request headers as recorded: requestUId, resourceOwnerId (masked) and accept-language only. */
export function redactHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const label = RECORDED_HEADERS[name.toLowerCase()];
    if (label === undefined || value === undefined) continue;
    kept[label] = (Array.isArray(value) ? value.join(", ") : value).slice(0, RECORDED_HEADER_LENGTH_MAX);
  }
  return redact(kept) as Record<string, string>;
}

const textOf = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/** `object[key]` when `object` is a JSON object, else undefined. */
function fieldOf(object: unknown, key: string): unknown {
  return object !== null && typeof object === "object" && !Array.isArray(object)
    ? (object as Record<string, unknown>)[key]
    : undefined;
}

/**
 * Only the keys that have a value, so a record compares and prints without `undefined`s, and
 * only values that can be an SCB reference in length: a key is an indexed column, and what an
 * answer or a confirmation carries is not trusted to be short.
 */
export function presentKeys(keys: ExchangeKeys): ExchangeKeys {
  return Object.fromEntries(
    Object.entries(keys).filter(([, v]) => v !== undefined && v.length <= SCB_TRANSACTION_ID_LENGTH_MAX),
  ) as ExchangeKeys;
}

/**
 * The references SCB's answer names: the tokenizer id of a credit initiate, the ref1 of a slip,
 * the transaction of an inquiry that answered exactly one.
 */
export function answerKeys(operation: ScbOperation, body: unknown): ExchangeKeys {
  const data = fieldOf(body, "data");
  if (operation === "credit_initiate")
    return presentKeys({ tokenizerId: textOf(fieldOf(data, "tokenizerId")) });
  if (operation === "slip_verification") return presentKeys({ ref1: textOf(fieldOf(data, "ref1")) });
  if (operation === "bill_payment_inquiry") {
    const rows: unknown[] = Array.isArray(data) ? data : data ? [data] : [];
    return rows.length === 1 ? presentKeys({ transRef: textOf(fieldOf(rows[0], "transactionId")) }) : {};
  }
  return {};
}

/** What a payment confirmation as received says of itself, for the record. */
function confirmationBodyOf(rawBody: string, maxBytes: number): { body: unknown; keys: ExchangeKeys } {
  if (Buffer.byteLength(rawBody) > maxBytes) {
    return { body: `[a body of ${Buffer.byteLength(rawBody)} bytes, not kept]`, keys: {} };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    // Not JSON: kept as text with secret-shaped runs and account numbers hidden.
    return { body: redactText(rawBody), keys: {} };
  }
  return {
    body: redact(parsed),
    keys: presentKeys({
      ref1: textOf(fieldOf(parsed, "billPaymentRef1")),
      transRef: textOf(fieldOf(parsed, "transactionId")),
    }),
  };
}

/**
 * The record of a payment confirmation SCB posted (`direction` inbound), redacted as the client
 * redacts its calls. The path names the route, never the callback token in it.
 */
export function inboundConfirmation(input: {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  rawBody: string;
  bodyMaxBytes: number;
  startedAt: Date;
  durationMs: number;
  responseStatus: number;
  responseBody: unknown;
  error: string | null;
}): ScbExchange {
  const { body, keys } = confirmationBodyOf(input.rawBody, input.bodyMaxBytes);
  const requestHeaders = redactHeaders(input.headers);
  return {
    direction: "inbound",
    operation: "payment_confirmation",
    requestUId: requestHeaders.requestUId ?? keys.transRef ?? "",
    method: "POST",
    path: "/providers/scb/confirmations/{SCB_CALLBACK_TOKEN}",
    attempt: 1,
    startedAt: input.startedAt,
    durationMs: Math.round(input.durationMs),
    requestHeaders,
    requestBody: body,
    responseStatus: input.responseStatus,
    responseBody: redact(input.responseBody),
    error: input.error,
    keys,
  };
}

/** Keeps records in memory: for tests, and for an operator command that prints one session. */
export class MemoryRecorder implements ScbRecorder {
  readonly exchanges: ScbExchange[] = [];

  /** The exchange's id is its position, from 1. */
  record(exchange: ScbExchange): string {
    this.exchanges.push(exchange);
    return String(this.exchanges.length);
  }

  markUnreadable(exchangeId: string, reason: string): void {
    const exchange = this.exchanges[Number(exchangeId) - 1];
    if (exchange) exchange.unreadable = reason;
  }

  of(operation: ScbOperation): ScbExchange[] {
    return this.exchanges.filter((e) => e.operation === operation);
  }
}
