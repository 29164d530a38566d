/**
 * The HTTP client of SCB's partner API. One instance per deployment holds the access token.
 *
 * - The token comes from POST /v1/oauth/token with the credentials in the body, is cached and
 *   replaced a margin before its expiry, one fetch at a time (token.ts).
 * - Every call carries the standard headers: `resourceOwnerId` (the API key), a fresh
 *   `requestUId`, `accept-language`, and the bearer token.
 * - A 401 drops the token, fetches a new one and retries the call once. When no new token can
 *   be had after a 401, the call counts as sent (its outcome uncertain): SCB's pages do not say
 *   that a refused request was never acted on (docs/providers/scb.md, "Readings").
 * - A failed token fetch is shared by every caller for a growing backoff (token.ts).
 * - Every call is bounded by a timeout (AbortSignal) and recorded, redacted (recorder.ts), with
 *   the headers that matter (never the authorization) and the SCB references it names.
 *
 * It answers with what SCB said (`ScbAnswer`: the HTTP status, `status.code`, `data`) or throws
 * `ScbCallError` when SCB said nothing usable. What an answer means for a payment or a payout is
 * decided in collection.ts and payouts.ts.
 */
import { randomUUID } from "node:crypto";
import type { Clock } from "../../lib/clock.ts";
import { SCB_RESPONSE_BODY_MAX_BYTES, SCB_SUCCESS_CODE } from "./limits.ts";
import {
  answerKeys,
  type ExchangeKeys,
  presentKeys,
  redact,
  redactHeaders,
  type ScbOperation,
  type ScbRecorder,
} from "./recorder.ts";
import { TokenCache } from "./token.ts";
import type {
  BillPaymentInquiryQuery,
  BillPaymentRecord,
  CreditConfirmData,
  CreditConfirmRequest,
  CreditInitiateData,
  CreditInitiateRequest,
  ScbEnvelope,
  SlipData,
  TokenData,
  TransferInquiryData,
  TransferInquiryRequest,
} from "./types.ts";

export interface ScbClientOptions {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  timeoutMs: number;
  tokenRefreshMarginMs: number;
  /** Real time, for token expiry and the records' timestamps. */
  clock: Clock;
  recorder: ScbRecorder;
  acceptLanguage?: "EN" | "TH";
  /** Told when a record could not be kept; the call's outcome is unchanged. */
  onRecorderError?: (error: unknown) => void;
}

/** What SCB answered: any HTTP status with a JSON body. */
export interface ScbAnswer<T> {
  httpStatus: number;
  /** `status.code`, or null when the body has none. */
  code: number | null;
  description: string | null;
  data: T | undefined;
  /** The id its record was kept under, to mark it when its body turns out unreadable. */
  exchangeId: string | null;
  /** The wait SCB asked for with a 429 or 503 (`Retry-After`, seconds or an HTTP date), or null. */
  retryAfterMs: number | null;
}

export type ScbCallErrorKind = "timeout" | "network" | "malformed" | "token";

/**
 * SCB said nothing usable. `sent` tells whether the request may have reached SCB: false only
 * when it never left (no access token could be had before its first attempt), which makes a
 * money call safe to send again; true otherwise, since a timeout, a lost answer or a 401 whose
 * retry could not get a token says nothing certain about what SCB did.
 */
export class ScbCallError extends Error {
  constructor(
    readonly kind: ScbCallErrorKind,
    readonly sent: boolean,
    message: string,
    /** The record of the exchange that gave no usable answer, when one was kept. */
    readonly exchangeId: string | null = null,
  ) {
    super(message);
    this.name = "ScbCallError";
  }
}

/** A fresh requestUId: a UUID's 32 hex digits, which is both a UUID and SCB's "32 alphanumeric". */
export function newRequestUId(): string {
  return randomUUID().replace(/-/g, "");
}

interface RawAnswer {
  status: number;
  body: unknown;
  retryAfterMs: number | null;
  exchangeId: string | null;
}

/** `Retry-After` as delta seconds or an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^[0-9]{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

interface CallSpec {
  operation: ScbOperation;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** The SCB references the request names, recorded for the operator's lookups. */
  keys?: ExchangeKeys;
  /**
   * The caller's bound (a payout send's): once it is aborted no further request leaves, and a
   * request in flight is abandoned like a timeout.
   */
  signal?: AbortSignal | undefined;
}

function describeError(error: unknown): { kind: ScbCallErrorKind; message: string } {
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError")
    return { kind: "timeout", message: "SCB did not answer in time" };
  if (error instanceof ScbCallError) return { kind: error.kind, message: error.message };
  const text = error instanceof Error ? error.message : String(error);
  return { kind: "network", message: `SCB could not be reached: ${text}`.slice(0, 300) };
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (Buffer.byteLength(text) > SCB_RESPONSE_BODY_MAX_BYTES) {
    throw new ScbCallError("malformed", true, "SCB's answer is larger than the connector reads");
  }
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new ScbCallError(
      "malformed",
      true,
      `SCB answered HTTP ${response.status} with a body that is not JSON`,
    );
  }
}

function toAnswer<T>(raw: RawAnswer): ScbAnswer<T> {
  const envelope = (raw.body && typeof raw.body === "object" ? raw.body : {}) as ScbEnvelope<T>;
  const code = envelope.status?.code;
  const description = envelope.status?.description;
  const numeric =
    typeof code === "number" ? code : typeof code === "string" && /^\d+$/.test(code) ? Number(code) : null;
  return {
    httpStatus: raw.status,
    code: numeric,
    description: typeof description === "string" ? description : null,
    data: envelope.data,
    exchangeId: raw.exchangeId,
    retryAfterMs: raw.retryAfterMs,
  };
}

/** `object[key]` when `object` is a JSON object, else undefined. */
function fieldOf(object: unknown, key: string): unknown {
  return object !== null && typeof object === "object" && !Array.isArray(object)
    ? (object as Record<string, unknown>)[key]
    : undefined;
}

/** The tokens a token answer's data carries, under SCB's names or the OAuth ones. */
function tokenValuesOf(data: unknown): string[] {
  const names = ["accessToken", "refreshToken", "access_token", "refresh_token", "id_token"];
  return names
    .map((name) => fieldOf(data, name))
    .filter((value): value is string => typeof value === "string" && value !== "");
}

/** A count of seconds SCB printed as a JSON number or a numeric string. */
function seconds(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^[0-9]{1,12}$/.test(value)) return Number(value);
  return null;
}

/** How many of the latest access tokens the records hide by value (a refused one may be quoted). */
const TOKENS_HIDDEN_MAX = 4;

export class ScbClient {
  private readonly tokens: TokenCache;
  private readonly baseUrl: string;
  /** The latest access and refresh tokens SCB gave, newest last: hidden wherever a record quotes them. */
  private readonly tokensGiven: string[] = [];

  constructor(private readonly options: ScbClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.tokens = new TokenCache(() => this.fetchToken(), options.clock, options.tokenRefreshMarginMs);
  }

  // The endpoints.

  billPaymentInquiry(
    query: BillPaymentInquiryQuery,
  ): Promise<ScbAnswer<BillPaymentRecord[] | BillPaymentRecord>> {
    const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined));
    return this.call({
      operation: "bill_payment_inquiry",
      method: "GET",
      path: `/v1/payment/billpayment/inquiry?${params}`,
      keys: { ref1: query.reference1 },
    });
  }

  slipVerification(transRef: string, sendingBank: string): Promise<ScbAnswer<SlipData>> {
    const params = new URLSearchParams({ sendingBank });
    return this.call({
      operation: "slip_verification",
      method: "GET",
      path: `/v1/payment/billpayment/transactions/${encodeURIComponent(transRef)}?${params}`,
      keys: { transRef },
    });
  }

  creditInitiate(body: CreditInitiateRequest, signal?: AbortSignal): Promise<ScbAnswer<CreditInitiateData>> {
    return this.call({
      operation: "credit_initiate",
      method: "POST",
      path: "/v1/payment/transfer/fcd/credit/initiate",
      body,
      keys: { partnerTransactionId: body.partnerTransactionID },
      signal,
    });
  }

  creditConfirm(body: CreditConfirmRequest, signal?: AbortSignal): Promise<ScbAnswer<CreditConfirmData>> {
    return this.call({
      operation: "credit_confirm",
      method: "POST",
      path: "/v1/payment/transfer/fcd/credit/confirm",
      body,
      keys: { tokenizerId: body.tokenizerId },
      signal,
    });
  }

  transferInquiry(
    body: TransferInquiryRequest,
    signal?: AbortSignal,
  ): Promise<ScbAnswer<TransferInquiryData>> {
    return this.call({
      operation: "transfer_inquiry",
      method: "POST",
      path: "/v1/payment/transfer/fcd/inquiry",
      body,
      keys: { tokenizerId: body.tokenizerId },
      signal,
    });
  }

  // The machinery.

  /** One call with the cached token; after a 401, one retry with a new token. */
  private async call<T>(spec: CallSpec): Promise<ScbAnswer<T>> {
    let token = await this.usableToken(() => this.tokens.get(), false);
    let raw = await this.exchange(spec, token, 1);
    if (raw.status === 401) {
      // The first request reached SCB. Its 401 is the gateway's word that the token was
      // refused, but SCB's pages do not say that such a request was never acted on, so when no
      // new token can be had the call counts as sent: its outcome is uncertain, never "not
      // sent" (a credit confirm then goes to the inquiry instead of being sent again).
      const refused = token;
      token = await this.usableToken(() => this.tokens.replace(refused), true);
      raw = await this.exchange(spec, token, 2);
    }
    return toAnswer<T>(raw);
  }

  /**
   * A token, or an error saying the call could not go out. `sent` says whether an earlier
   * attempt of the same call already reached SCB.
   */
  private async usableToken(get: () => Promise<string>, sent: boolean): Promise<string> {
    try {
      return await get();
    } catch (error) {
      const wait = this.tokens.backoffRemainingMs();
      const backoff =
        wait > 0 ? ` (SCB's token endpoint is not asked again for ${Math.ceil(wait / 1000)} s)` : "";
      const message = `no SCB access token: ${describeError(error).message}${backoff}`;
      throw new ScbCallError(
        "token",
        sent,
        sent ? `${message}; the refused request may have reached SCB` : message,
      );
    }
  }

  private async fetchToken(): Promise<{ value: string; expiresInMs: number }> {
    const body = { applicationKey: this.options.apiKey, applicationSecret: this.options.apiSecret };
    const raw = await this.exchange(
      { operation: "token", method: "POST", path: "/v1/oauth/token", body },
      null,
      1,
    );
    const answer = toAnswer<TokenData>(raw);
    const data = answer.data;
    if (
      answer.code !== SCB_SUCCESS_CODE ||
      !data ||
      typeof data.accessToken !== "string" ||
      !data.accessToken
    ) {
      throw new ScbCallError(
        "token",
        false,
        `SCB refused the access token request: HTTP ${raw.status}, code ${answer.code ?? "none"}, ${answer.description ?? "no description"}`,
      );
    }
    const now = this.options.clock.now().getTime();
    const expiresIn = seconds(data.expiresIn);
    const expiresAt = seconds(data.expiresAt);
    let expiresInMs: number | null = null;
    if (expiresIn !== null && expiresIn > 0) expiresInMs = expiresIn * 1000;
    else if (expiresAt !== null && expiresAt * 1000 > now) expiresInMs = expiresAt * 1000 - now;
    this.rememberTokens(data);
    if (expiresInMs === null)
      throw new ScbCallError("token", false, "SCB's access token answer has no expiry");
    return { value: data.accessToken, expiresInMs };
  }

  private rememberTokens(data: TokenData): void {
    for (const value of tokenValuesOf(data)) this.tokensGiven.push(value);
    this.tokensGiven.splice(0, Math.max(0, this.tokensGiven.length - 2 * TOKENS_HIDDEN_MAX));
  }

  /** Values no record may show, wherever they appear: the credentials and the tokens given. */
  private secretValues(): string[] {
    return [this.options.apiSecret, this.options.apiKey, ...this.tokensGiven];
  }

  private headers(spec: CallSpec, token: string | null): Record<string, string> {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "accept-language": this.options.acceptLanguage ?? "EN",
      resourceOwnerId: this.options.apiKey,
      requestUId: newRequestUId(),
    };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (spec.method === "GET") delete headers["content-type"];
    return headers;
  }

  /** One HTTP request, bounded and recorded. Throws ScbCallError when there is no answer. */
  private async exchange(spec: CallSpec, token: string | null, attempt: number): Promise<RawAnswer> {
    // Checked last before the request leaves: past the caller's bound nothing more is sent. This
    // request did not leave, but when it is the retry after a 401 the first one reached SCB: the
    // call then counts as sent, as a 401 without a new token does (`call`), so a credit confirm
    // goes to the inquiry instead of being claimed again as never sent.
    if (spec.signal?.aborted)
      throw new ScbCallError("timeout", attempt > 1, "the caller's bound passed before the call left");
    const headers = this.headers(spec, token);
    const startedAt = this.options.clock.now();
    const started = performance.now();
    let raw: RawAnswer | undefined;
    let failure: { kind: ScbCallErrorKind; message: string } | undefined;
    try {
      const bound = AbortSignal.timeout(this.options.timeoutMs);
      const signal = spec.signal ? AbortSignal.any([bound, spec.signal]) : bound;
      const response = await fetch(`${this.baseUrl}${spec.path}`, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal,
        redirect: "error",
      });
      raw = {
        status: response.status,
        body: await readBody(response),
        retryAfterMs: retryAfterMs(response.headers.get("retry-after"), this.options.clock.now()),
        exchangeId: null,
      };
    } catch (error) {
      failure = describeError(error);
    }
    const exchangeId = await this.record(
      spec,
      headers,
      attempt,
      startedAt,
      performance.now() - started,
      raw,
      failure,
    );
    if (!raw) throw new ScbCallError(failure!.kind, true, failure!.message, exchangeId);
    raw.exchangeId = exchangeId;
    return raw;
  }

  private async record(
    spec: CallSpec,
    headers: Record<string, string>,
    attempt: number,
    startedAt: Date,
    durationMs: number,
    raw: RawAnswer | undefined,
    failure: { kind: ScbCallErrorKind; message: string } | undefined,
  ): Promise<string | null> {
    // A token answer's own tokens are hidden in its record too, under whatever name they came.
    const secrets = [
      ...this.secretValues(),
      ...(spec.operation === "token" && raw ? tokenValuesOf(fieldOf(raw.body, "data")) : []),
    ];
    try {
      const id = await this.options.recorder.record({
        direction: "outbound",
        operation: spec.operation,
        requestUId: headers.requestUId!,
        method: spec.method,
        path: spec.path,
        attempt,
        startedAt,
        durationMs: Math.round(durationMs),
        requestHeaders: redactHeaders(headers),
        requestBody: spec.body === undefined ? null : redact(spec.body, secrets),
        responseStatus: raw?.status ?? null,
        responseBody: raw ? redact(raw.body, secrets) : null,
        error: failure ? (redact(failure.message, secrets) as string) : null,
        // What the request named wins over what the answer repeats.
        keys: presentKeys({ ...(raw ? answerKeys(spec.operation, raw.body) : {}), ...spec.keys }),
        // An answer that is not JSON (or too large) is one the connector could not read.
        unreadable: failure?.kind === "malformed" ? failure.message : null,
      });
      return typeof id === "string" ? id : null;
    } catch (error) {
      this.options.onRecorderError?.(error);
      return null;
    }
  }
}
