/**
 * Every exchange with SCB is recorded for the operator: which call, the request and the answer
 * (or why there was none), redacted before it leaves the client. Secrets and tokens are
 * replaced, account numbers, proxy ids and tax ids are masked to their last four digits, so a
 * record can be shown on an operator screen or written to a log as it is.
 */
import { maskAccountNumber } from "../../lib/account-number.ts";

export type ScbOperation =
  | "token"
  | "bill_payment_inquiry"
  | "slip_verification"
  | "credit_initiate"
  | "credit_confirm"
  | "transfer_inquiry"
  | "payment_confirmation";

export interface ScbExchange {
  operation: ScbOperation;
  /** The requestUId sent (or, for a confirmation SCB sent us, its transaction id). */
  requestUId: string;
  method: string;
  /** Path and query, below the base URL. */
  path: string;
  /** 1 for the first try, 2 for the one retry after a refreshed token. */
  attempt: number;
  startedAt: Date;
  durationMs: number;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  /** Null when no answer came (timeout, connection error). */
  responseStatus: number | null;
  responseBody: unknown;
  /** Why there was no usable answer, or null. */
  error: string | null;
}

/** Where records go. The client waits for `record` but never lets its failure change an outcome. */
export interface ScbRecorder {
  record(exchange: ScbExchange): void | Promise<void>;
}

export const REDACTED = "[redacted]";

/** Keys whose values are secrets: replaced whole. */
const SECRET_KEYS = new Set([
  "applicationsecret",
  "accesstoken",
  "refreshtoken",
  "authorization",
  "authcode",
  "codechallenge",
]);
/** Keys whose values identify an account or a person: masked to the last four characters. */
const MASKED_KEY = /(accountno|accountnumber|proxyid|taxid|applicationkey|resourceownerid|citizenid)$/i;
/** Inside a `proxy` or `account` object (slip verification), `value` is an id too. */
const MASKED_PARENTS = new Set(["proxy", "account", "accountinfo"]);

function mask(value: unknown): unknown {
  if (typeof value !== "string") return value === null || value === undefined ? value : REDACTED;
  return maskAccountNumber(value);
}

/** A deep copy with secrets replaced and identifiers masked. */
export function redact(value: unknown, parentKey = ""): unknown {
  if (Array.isArray(value)) return value.map((item) => redact(item, parentKey));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const lower = key.toLowerCase();
    if (SECRET_KEYS.has(lower)) out[key] = inner === undefined ? inner : REDACTED;
    else if (MASKED_KEY.test(key)) out[key] = mask(inner);
    else if (lower === "value" && MASKED_PARENTS.has(parentKey)) out[key] = mask(inner);
    else out[key] = redact(inner, lower);
  }
  return out;
}

/** Request headers as recorded: the bearer token replaced, the API key masked. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return redact(headers) as Record<string, string>;
}

/** Keeps records in memory: for tests, and for an operator command that prints one session. */
export class MemoryRecorder implements ScbRecorder {
  readonly exchanges: ScbExchange[] = [];

  record(exchange: ScbExchange): void {
    this.exchanges.push(exchange);
  }

  of(operation: ScbOperation): ScbExchange[] {
    return this.exchanges.filter((e) => e.operation === operation);
  }
}
