/**
 * The HTTP client of SCB's partner API. One instance per deployment holds the access token.
 *
 * - The token comes from POST /v1/oauth/token with the credentials in the body, is cached and
 *   replaced a margin before its expiry, one fetch at a time (token.ts).
 * - Every call carries the standard headers: `resourceOwnerId` (the API key), a fresh
 *   `requestUId`, `accept-language`, and the bearer token.
 * - A 401 drops the token, fetches a new one and retries the call once. SCB's gateway refuses
 *   an unauthenticated request before any service acts on it, so the retry cannot repeat a
 *   transfer (docs/providers/scb.md, "Readings").
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
}

export type ScbCallErrorKind = "timeout" | "network" | "malformed" | "token";

/**
 * SCB said nothing usable. `sent` tells whether the request may have reached SCB: false only
 * when it never left (no access token could be had), which makes a money call safe to send
 * again; true otherwise, since a timeout or a lost answer says nothing about what SCB did.
 */
export class ScbCallError extends Error {
  constructor(
    readonly kind: ScbCallErrorKind,
    readonly sent: boolean,
    message: string,
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
  };
}

/** A count of seconds SCB printed as a JSON number or a numeric string. */
function seconds(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^[0-9]{1,12}$/.test(value)) return Number(value);
  return null;
}

export class ScbClient {
  private readonly tokens: TokenCache;
  private readonly baseUrl: string;

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
    let token = await this.usableToken(() => this.tokens.get());
    let raw = await this.exchange(spec, token, 1);
    if (raw.status === 401) {
      // The first request was refused as unauthenticated, so nothing was done: a failure to get
      // a new token still means the call was not sent.
      const refused = token;
      token = await this.usableToken(() => this.tokens.replace(refused));
      raw = await this.exchange(spec, token, 2);
    }
    return toAnswer<T>(raw);
  }

  /** A token, or the certainty that the call cannot be sent. */
  private async usableToken(get: () => Promise<string>): Promise<string> {
    try {
      return await get();
    } catch (error) {
      throw new ScbCallError("token", false, `no SCB access token: ${describeError(error).message}`);
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
    if (expiresInMs === null)
      throw new ScbCallError("token", false, "SCB's access token answer has no expiry");
    return { value: data.accessToken, expiresInMs };
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
    // Checked last before the request leaves: past the caller's bound nothing more is sent.
    if (spec.signal?.aborted)
      throw new ScbCallError("timeout", false, "the caller's bound passed before the call left");
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
      raw = { status: response.status, body: await readBody(response) };
    } catch (error) {
      failure = describeError(error);
    }
    await this.record(spec, headers, attempt, startedAt, performance.now() - started, raw, failure);
    if (!raw) throw new ScbCallError(failure!.kind, true, failure!.message);
    return raw;
  }

  private async record(
    spec: CallSpec,
    headers: Record<string, string>,
    attempt: number,
    startedAt: Date,
    durationMs: number,
    raw: RawAnswer | undefined,
    failure: { message: string } | undefined,
  ): Promise<void> {
    try {
      await this.options.recorder.record({
        direction: "outbound",
        operation: spec.operation,
        requestUId: headers.requestUId!,
        method: spec.method,
        path: spec.path,
        attempt,
        startedAt,
        durationMs: Math.round(durationMs),
        requestHeaders: redactHeaders(headers),
        requestBody: spec.body === undefined ? null : redact(spec.body),
        responseStatus: raw?.status ?? null,
        responseBody: raw ? redact(raw.body) : null,
        error: failure?.message ?? null,
        // What the request named wins over what the answer repeats.
        keys: presentKeys({ ...(raw ? answerKeys(spec.operation, raw.body) : {}), ...spec.keys }),
      });
    } catch (error) {
      this.options.onRecorderError?.(error);
    }
  }
}
