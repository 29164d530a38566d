/**
 * The SDK's one HTTP path: builds the URL, signs every attempt afresh, sends, unwraps the
 * envelope, turns error envelopes into typed errors, and retries what is safe to retry.
 *
 * Retries (RetryPolicy in routes.ts says which requests may repeat):
 * - on a network error or timeout, a 5xx, or 429; never on another 4xx, which would fail the
 *   same way again;
 * - after exponential backoff with jitter (0.5 s, 1 s, 2 s, ... up to 8 s, each scaled by a
 *   random factor in [0.5, 1) so clients that failed together do not retry together), or after
 *   exactly what `Retry-After` asks on 429 and 503;
 * - each attempt gets a new timestamp and signature: the server accepts a signed write once, so
 *   resending the same signature would be refused as a replay;
 * - the body is serialized once, so a create's idempotency key and every byte stay the same
 *   across its attempts and the server answers a repeat with the original record.
 */
import {
  ConnectionError,
  RequestTimeoutError,
  type SatangError,
  type SatangErrorInit,
  satangErrorFor,
  UnexpectedResponseError,
} from "./errors.ts";
import type { Route } from "./routes.ts";
import { signRequest } from "./signing.ts";

export const DEFAULT_BASE_URL = "http://127.0.0.1:3000";
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 30_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;
/** A Retry-After longer than this is not waited for: the error goes to the caller at once. */
const RETRY_AFTER_MAX_MS = 60_000;
const USER_AGENT = "satang-node/0.1.0";

/** Connection failures where nothing reached the server, so any request may be sent again. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpConfig {
  apiKey: string;
  apiSecret: string;
  baseUrl: string;
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
  signatureVersion: "v1" | "v2";
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export interface CallInput {
  params?: Record<string, string>;
  query?: object | undefined;
  body?: object | undefined;
}

function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{([A-Za-z_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === "") throw new TypeError(`${name} is required`);
    return pathSegment(value);
  });
}

/**
 * A value as one path segment. "." and ".." cannot be one: URL parsing (fetch, browsers, and
 * curl without --path-as-is) removes them, and their percent-encoded forms, as dot segments, so
 * the request would reach another route. Such a referenceId is looked up by the record's id.
 */
function pathSegment(value: string): string {
  if (value === "." || value === "..") {
    throw new TypeError(
      `${JSON.stringify(value)} cannot be sent as a path segment: URLs drop it as a dot segment; retrieve the record by its id`,
    );
  }
  return encodeURIComponent(value);
}

function queryString(query: object | undefined): string {
  if (!query) return "";
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Date && Number.isNaN(value.getTime())) {
      throw new TypeError(`${name} is an invalid Date`);
    }
    search.set(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

function isRedirect(response: Response): boolean {
  return response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400);
}

/** A redirect in front of the API (http to https, a moved host): baseUrl should name where it went. */
function redirected(url: URL, response: Response, requestId: string | undefined): UnexpectedResponseError {
  const location = response.headers.get("location");
  const to = location ? ` to ${new URL(location, url).origin}` : "";
  return new UnexpectedResponseError({
    code: "UNEXPECTED_RESPONSE",
    message:
      `${url.origin} answered HTTP ${response.status || "3xx"}, a redirect${to}: set baseUrl to the address ` +
      "the API answers at. The SDK does not follow redirects, which would send the signed request " +
      "and its API key elsewhere.",
    status: response.status,
    metadata: undefined,
    requestId,
  });
}

/**
 * Whether a failed fetch reached nothing: a refused connection, an unknown host, or a port the
 * fetch standard refuses to connect to at all ("bad port": 1, 25, 6000, ...).
 */
function neverReachedServer(error: unknown): boolean {
  if (NOT_SENT_CODES.has(errorCode(error) ?? "")) return true;
  const cause = (error as { cause?: { message?: unknown } } | undefined)?.cause;
  return cause?.message === "bad port";
}

function errorCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === "string" ? cause.code : undefined;
}

function describeNetworkError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { message?: unknown } } | undefined)?.cause;
  const detail = errorCode(error) ?? (typeof cause?.message === "string" ? cause.message : undefined);
  const message = error instanceof Error ? error.message : String(error);
  return detail ? `${message} (${detail})` : message;
}

function idempotencyKeyOf(body: object | undefined): string | undefined {
  const key = (body as { idempotencyKey?: unknown } | undefined)?.idempotencyKey;
  return typeof key === "string" ? key : undefined;
}

/** For a write whose answer was lost: it may have been done, and how to learn its result. */
function whatToDoNext(idempotencyKey: string | undefined): string {
  return idempotencyKey === undefined
    ? "; the request may have been processed: retrieve the record to see"
    : `; the request may have been processed: send it again with idempotencyKey "${idempotencyKey}" to get its result`;
}

/** RFC 9110's HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms. */
const HTTP_DATE = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/**
 * Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable (a negative
 * or fractional number, or text that is not an HTTP date), so the caller falls back to the
 * error's `metadata.retryAfter` or its own backoff.
 */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | undefined {
  const text = value?.trim() ?? "";
  if (text === "") return undefined;
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.some((form) => form.test(text))) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The record in `data` of a successful answer, with the answer's status and headers. */
export interface Answer<T> {
  data: T;
  status: number;
  headers: Headers;
  /** The answer's body as it came, for figures JSON numbers cannot hold exactly. */
  text: string;
}

/**
 * The error a call ends with, saying whether a write may have been done by an earlier attempt
 * and which idempotency key it carried, with what to do next in its message.
 */
function withOutcome(error: SatangError, route: Route, body: object | undefined, mayHaveBeenDone: boolean) {
  const idempotencyKey = idempotencyKeyOf(body);
  const mayHaveBeenProcessed = mayHaveBeenDone && route.method !== "GET";
  if (!mayHaveBeenProcessed && idempotencyKey === undefined) return error;
  // The same class as the answer's error, so `instanceof` still tells what the server said.
  const ErrorType = error.constructor as new (init: SatangErrorInit<unknown>) => SatangError;
  return new ErrorType({
    code: error.code,
    message: mayHaveBeenProcessed ? `${error.message}${whatToDoNext(idempotencyKey)}` : error.message,
    status: error.status,
    metadata: error.metadata,
    requestId: error.requestId,
    mayHaveBeenProcessed,
    idempotencyKey,
  });
}

/**
 * Whether an answer says the server did no work: the server's own 429, 503 and 408 (the request
 * never arrived whole), so even a write without an idempotency key may repeat. Only the
 * server's own answers (in Satang's envelope) vouch for that: an answer without it (a proxy's
 * page, whatever its status) may come after the server did the work.
 */
function saidNoWorkDone(response: Response, error: SatangError): boolean {
  if (error instanceof UnexpectedResponseError) return false;
  const status = response.status;
  return status === 429 || status === 503 || error instanceof RequestTimeoutError;
}

export class HttpClient {
  constructor(readonly config: HttpConfig) {}

  /** Exponential backoff with jitter for attempt 0, 1, 2, ... */
  backoffMs(attempt: number): number {
    const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
    return Math.round(ceiling * (0.5 + this.config.random() / 2));
  }

  async call<T>(route: Route, input: CallInput = {}): Promise<T> {
    return (await this.answer<T>(route, input)).data;
  }

  /** As `call`, with the status and headers of the answer (some answers say more in headers). */
  async answer<T>(route: Route, input: CallInput = {}): Promise<Answer<T>> {
    const { config } = this;
    const pathWithQuery = fillPath(route.path, input.params) + queryString(input.query);
    const url = new URL(config.baseUrl.replace(/\/+$/, "") + pathWithQuery);
    const body = input.body === undefined ? "" : JSON.stringify(input.body);

    // Whether an earlier attempt of this call may have been done by the server: it reached the
    // server (or may have), and no answer said the server did no work. A later attempt that
    // reaches nothing does not undo it.
    let earlierMayHaveBeenDone = false;
    for (let attempt = 0; ; attempt += 1) {
      const retriesLeft = attempt < config.maxRetries;
      const headers: Record<string, string> = {
        ...signRequest({
          apiKey: config.apiKey,
          apiSecret: config.apiSecret,
          body,
          method: route.method,
          path: url.pathname + url.search,
          version: config.signatureVersion,
        }),
        accept: "application/json",
        "user-agent": USER_AGENT,
      };
      if (body !== "") headers["content-type"] = "application/json";

      let response: Response;
      let text: string;
      try {
        response = await config.fetch(url.toString(), {
          method: route.method,
          headers,
          ...(body === "" ? {} : { body }),
          // Never followed: a redirect would resend the signed request, and the API key, to
          // wherever it points, or turn a POST into a GET. It is answered as an error below.
          redirect: "manual",
          signal: AbortSignal.timeout(config.timeoutMs),
        });
        text = await response.text();
      } catch (error) {
        const neverSent = neverReachedServer(error);
        if (!neverSent) earlierMayHaveBeenDone = true;
        if (retriesLeft && (route.retry === "always" || neverSent)) {
          await config.sleep(this.backoffMs(attempt));
          continue;
        }
        const idempotencyKey = idempotencyKeyOf(input.body);
        // A read changes nothing: only a write that may have reached the server, on this
        // attempt or an earlier one, may have been done.
        const mayHaveBeenProcessed = earlierMayHaveBeenDone && route.method !== "GET";
        throw new ConnectionError({
          code: "CONNECTION_ERROR",
          message: `Cannot reach Satang at ${config.baseUrl}: ${describeNetworkError(error, config.timeoutMs)}${
            mayHaveBeenProcessed ? whatToDoNext(idempotencyKey) : ""
          }`,
          status: undefined,
          metadata: undefined,
          requestId: undefined,
          cause: error,
          mayHaveBeenProcessed,
          idempotencyKey,
        });
      }

      const requestId = response.headers.get("x-request-id") ?? undefined;
      if (isRedirect(response)) {
        // Not the server's answer: something in front of it may have passed the request on first.
        throw withOutcome(redirected(url, response, requestId), route, input.body, true);
      }
      let envelope: { success?: unknown; data?: unknown; error?: Record<string, unknown> } | undefined;
      try {
        envelope = JSON.parse(text);
      } catch {
        envelope = undefined;
      }
      if (response.ok && envelope?.success === true && "data" in envelope) {
        return { data: envelope.data as T, status: response.status, headers: response.headers, text };
      }

      const error: SatangError =
        envelope?.success === false && typeof envelope.error === "object" && envelope.error !== null
          ? satangErrorFor({
              code: String(envelope.error.code ?? "UNKNOWN_ERROR"),
              message: String(envelope.error.message ?? `HTTP ${response.status}`),
              status: response.status,
              metadata: (envelope.error.metadata as Record<string, unknown> | undefined) ?? undefined,
              requestId,
            })
          : new UnexpectedResponseError({
              code: "UNEXPECTED_RESPONSE",
              message: `${url.origin} answered HTTP ${response.status} without a Satang envelope`,
              status: response.status,
              metadata: undefined,
              requestId,
            });
      // A 5xx other than Satang's own 503 (a 500) may come after the server did the work, and so
      // may any answer without Satang's envelope (a proxy's page, of any status, even 2xx); the
      // server's own 4xx and 503 say it did nothing.
      if (
        error instanceof UnexpectedResponseError ||
        (response.status >= 500 && !saidNoWorkDone(response, error))
      ) {
        earlierMayHaveBeenDone = true;
      }
      const delay = retriesLeft ? this.retryDelay(route, response, error, attempt) : undefined;
      if (delay === undefined) throw withOutcome(error, route, input.body, earlierMayHaveBeenDone);
      await config.sleep(delay);
    }
  }

  /** How long to wait before repeating a request that got this answer, or undefined: do not. */
  private retryDelay(
    route: Route,
    response: Response,
    error: SatangError,
    attempt: number,
  ): number | undefined {
    const status = response.status;
    // Any 5xx but those of saidNoWorkDone, and a 429 that is not the server's own (a proxy's),
    // repeat only requests that cannot do the work twice.
    const unprocessed = saidNoWorkDone(response, error);
    if (!unprocessed && !((status >= 500 || status === 429) && route.retry === "always")) return undefined;
    if (unprocessed || status === 429) {
      const metadataSeconds = (error.metadata as { retryAfter?: unknown } | undefined)?.retryAfter;
      const asked =
        parseRetryAfter(response.headers.get("retry-after")) ??
        (typeof metadataSeconds === "number" ? metadataSeconds * 1000 : undefined);
      if (asked !== undefined) return asked <= RETRY_AFTER_MAX_MS ? asked : undefined;
    }
    return this.backoffMs(attempt);
  }
}
