/**
 * The HTTP client of Opn Payments' API (docs/providers/opn.md).
 *
 * - Authentication is HTTP Basic with the secret key as the user and no password, as Opn's pages
 *   show; the key never appears in a message this client returns.
 * - Every call pins `Omise-Version`, so an account whose default version moves on does not change
 *   the shape of the objects this connector reads.
 * - Every call is bounded by OPN_TIMEOUT_MS (an AbortSignal) and by the caller's own signal.
 * - Answers are sorted into three kinds, which is all the connector needs to decide: `ok` (2xx
 *   with a JSON object), `refused` (4xx other than 429 with Opn's error object: Opn read the
 *   request and said no, with its error `code`), and `unavailable` (no answer, a timeout, 5xx,
 *   429, an unreadable body, or a 4xx without Opn's error object, which something in front of
 *   Opn may have sent after Opn acted: the request may or may not have been acted on, ask again
 *   later). A 429 carries Opn's
 *   `Retry-After` when it sent one.
 *
 * Amounts are satang on both sides: Opn counts THB in its smallest unit. `opnAmount` and
 * `satangOf` are the only conversions, and both refuse anything that is not a whole number.
 */

/** The API version this connector is written against (Opn's current one). */
export const OPN_API_VERSION = "2019-05-29";

export interface OpnClientOptions {
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
  /** Tests may pass their own; the connector uses the global fetch. */
  fetch?: typeof fetch;
}

/** Opn's error object: `{ object: "error", code, message, location }`. */
function isOpnError(value: unknown): value is { object: "error"; code: string; message?: unknown } {
  return isObject(value) && value.object === "error" && typeof value.code === "string" && value.code !== "";
}

export type OpnAnswer<T> =
  | { ok: true; status: number; body: T }
  | { ok: false; kind: "refused"; status: number; code: string; message: string }
  | { ok: false; kind: "unavailable"; status: number | null; error: string; retryAfterMs: number | null };

export type OpnFailure = Extract<OpnAnswer<unknown>, { ok: false }>;

/** A form value: Opn takes `application/x-www-form-urlencoded` with `a[b]` for nested keys. */
export type FormValue = string | number | boolean | null | undefined | { [key: string]: FormValue };

export interface OpnCallOptions {
  signal?: AbortSignal | undefined;
  /** Sent as `Idempotency-Key`; see docs/providers/opn.md for why nothing relies on it. */
  idempotencyKey?: string;
}

/** Satang to Opn's amount: a positive whole number of satang, exact as a JSON number. */
export function opnAmount(satang: bigint): number {
  if (satang <= 0n || satang > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`amount must be between 1 and ${Number.MAX_SAFE_INTEGER} satang, got ${satang}`);
  }
  return Number(satang);
}

/** An amount Opn printed, in satang; null for anything but a whole, non-negative number. */
export function satangOf(value: unknown): bigint | null {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) return null;
  return BigInt(value);
}

function encodeForm(values: Record<string, FormValue>): string {
  const params = new URLSearchParams();
  const add = (prefix: string, value: FormValue): void => {
    if (value === null || value === undefined) return;
    if (typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) add(`${prefix}[${key}]`, inner);
      return;
    }
    params.append(prefix, String(value));
  };
  for (const [key, value] of Object.entries(values)) add(key, value);
  return params.toString();
}

/** Retry-After as Opn may send it: seconds, or an HTTP date. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === "") return null;
  if (/^[0-9]+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export class OpnClient {
  private readonly authorization: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: OpnClientOptions) {
    this.authorization = `Basic ${Buffer.from(`${options.secretKey}:`).toString("base64")}`;
    this.fetchImpl = options.fetch ?? fetch;
  }

  get<T>(
    path: string,
    query: Record<string, string> = {},
    options: OpnCallOptions = {},
  ): Promise<OpnAnswer<T>> {
    const search = new URLSearchParams(query).toString();
    return this.call<T>("GET", search ? `${path}?${search}` : path, undefined, options);
  }

  post<T>(
    path: string,
    form: Record<string, FormValue>,
    options: OpnCallOptions = {},
  ): Promise<OpnAnswer<T>> {
    return this.call<T>("POST", path, encodeForm(form), options);
  }

  private async call<T>(
    method: string,
    path: string,
    body: string | undefined,
    options: OpnCallOptions,
  ): Promise<OpnAnswer<T>> {
    if (options.signal?.aborted) {
      return {
        ok: false,
        kind: "unavailable",
        status: null,
        error: "not sent: the caller gave up",
        retryAfterMs: null,
      };
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: "application/json",
      "omise-version": OPN_API_VERSION,
    };
    if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(`${this.options.baseUrl}${path}`, { method, headers, body, signal });
      text = await response.text();
    } catch (error) {
      const reason = timeout.aborted
        ? `no answer within ${this.options.timeoutMs} ms`
        : options.signal?.aborted
          ? "the caller gave up before Opn answered"
          : `network error: ${(error as Error).message}`;
      return { ok: false, kind: "unavailable", status: null, error: reason, retryAfterMs: null };
    }
    return answerOf<T>(response, text);
  }
}

/** One answer of Opn's, sorted into the three kinds (see the top of this file). */
function answerOf<T>(response: Response, text: string): OpnAnswer<T> {
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const status = response.status;
  const unavailable = (error: string, retryAfter: number | null = null): OpnAnswer<T> => ({
    ok: false,
    kind: "unavailable",
    status,
    error,
    retryAfterMs: retryAfter,
  });
  if (status === 429 || status >= 500) {
    const code = isObject(parsed) && typeof parsed.code === "string" ? ` (${parsed.code})` : "";
    const wait = status === 429 ? retryAfterMs(response.headers.get("retry-after"), Date.now()) : null;
    return unavailable(`Opn answered HTTP ${status}${code}`, wait);
  }
  if (status >= 400) {
    // Only Opn's own error object says Opn read the request and refused it. Any other 4xx body
    // (a proxy's or firewall's page, text, JSON of another shape) may have come after Opn acted
    // on the request: a transfer made, its answer replaced on the way back.
    if (!isOpnError(parsed)) {
      return unavailable(
        `Opn answered HTTP ${status} without its error object (a page of something in front of Opn?)`,
      );
    }
    const message = typeof parsed.message === "string" ? parsed.message : `HTTP ${status}`;
    return { ok: false, kind: "refused", status, code: parsed.code, message };
  }
  if (!isObject(parsed))
    return unavailable(`Opn answered HTTP ${status} with a body that is not a JSON object`);
  return { ok: true, status, body: parsed as T };
}
