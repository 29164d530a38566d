/**
 * One HTTP attempt of a webhook delivery: check the URL (events/url-guard.ts), then POST the
 * signed body to the address that passed the check, within one deadline.
 *
 * - The connection goes to the vetted address: a `lookup` function that returns only that
 *   address replaces DNS for the request, so the host cannot be re-pointed between the check
 *   and the connection. TLS still verifies the certificate against the host name.
 * - Connections are kept alive and reused per origin and vetted address (events/connections.ts);
 *   a request whose reused connection turns out closed by the receiver before any answer is
 *   sent once more on a new connection.
 * - Redirects are not followed (node's http client never follows them); a 3xx is a failure.
 * - Only 2xx is success. The deadline covers DNS, connecting, and the response headers; a body
 *   still streaming at the deadline is cut off, and at most WEBHOOK_RESPONSE_BODY_MAX_BYTES of
 *   it is read, so a hostile receiver cannot hold a worker slot or memory. The first
 *   WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES are kept for the attempt log, with anything that looks
 *   like the endpoint's secret blanked out.
 * - Every failure gets a code from the closed list of events/attempt-errors.ts.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import {
  WEBHOOK_ERROR_LENGTH_MAX,
  WEBHOOK_RESPONSE_BODY_MAX_BYTES,
  WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES,
} from "../lib/limits.ts";
import { type AttemptErrorCode, DeadlineExceeded, errorCodeOf, errorCodeOfStatus } from "./attempt-errors.ts";
import type { ConnectionPools } from "./connections.ts";
import type { Resolver } from "./settings.ts";
import { type UrlPolicy, UrlRefused, type VettedTarget, vetWebhookUrl } from "./url-guard.ts";

export interface AttemptOutcome {
  succeeded: boolean;
  /** The receiver's HTTP status, or null when none arrived. */
  statusCode: number | null;
  /** Why the attempt failed (the closed list of attempt-errors.ts); null on success. */
  errorCode: AttemptErrorCode | null;
  error: string | null;
  /** The start of the receiver's answer body, or null when none arrived. */
  responseExcerpt: string | null;
  durationMs: number;
}

interface PostInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: UrlPolicy;
  resolve: Resolver;
  timeoutMs: number;
  /** Keep-alive connections; without them every attempt opens its own connection. */
  connections?: ConnectionPools;
  /** Strings blanked out of the response excerpt (the endpoint's secrets). */
  redact?: readonly string[];
}

/**
 * Bytes of the answer read for the excerpt: twice what is kept, so a secret that starts within
 * the kept part is seen whole and blanked out before the excerpt is cut.
 */
const EXCERPT_READ_BYTES = 2 * WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES;

interface Answer {
  status: number;
  excerpt: Buffer;
  /** The Location a redirect named, if any. */
  location?: string;
}

/** The receiver closed a kept-alive connection just as it was reused: safe to send again. */
class StaleConnection extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
    this.name = "StaleConnection";
  }
}

function truncate(text: string): string {
  return text.length > WEBHOOK_ERROR_LENGTH_MAX ? `${text.slice(0, WEBHOOK_ERROR_LENGTH_MAX - 3)}...` : text;
}

/** A lookup that answers every question with the vetted address, in both callback shapes. */
function pinnedLookup(target: VettedTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/** Rejects when the signal aborts: lets a DNS lookup, which cannot be canceled, lose a race. */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(signal.reason);
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
}

/** Sends the request; resolves with the response status and excerpt once the response is over. */
function send(target: VettedTarget, input: PostInput, signal: AbortSignal): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const transport = target.url.protocol === "https:" ? https : http;
    let status: number | undefined;
    let location: string | undefined;
    const excerpt: Buffer[] = [];
    let kept = 0;
    const answer = () =>
      resolve({ status: status ?? 0, excerpt: Buffer.concat(excerpt), ...(location ? { location } : {}) });
    const request = transport.request({
      host: target.host,
      port: target.url.port === "" ? undefined : Number(target.url.port),
      path: `${target.url.pathname}${target.url.search}`,
      method: "POST",
      headers: { ...input.headers, "content-length": String(Buffer.byteLength(input.body)) },
      agent: input.connections ? input.connections.agentFor(target) : false,
      lookup: pinnedLookup(target),
      signal,
    });
    request.on("response", (response) => {
      status = response.statusCode ?? 0;
      const named = response.headers.location;
      if (status >= 300 && status < 400 && typeof named === "string") location = named;
      let received = 0;
      response.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (kept < EXCERPT_READ_BYTES) {
          const part = chunk.subarray(0, EXCERPT_READ_BYTES - kept);
          excerpt.push(part);
          kept += part.length;
        }
        if (received > WEBHOOK_RESPONSE_BODY_MAX_BYTES) response.destroy();
      });
      response.on("error", () => {});
      response.on("close", answer);
    });
    request.on("error", (error) => {
      // Once the status is in, an error while reading the body (the deadline, the size cap)
      // does not change the outcome: the receiver has answered.
      if (status !== undefined) answer();
      else if (request.reusedSocket && !signal.aborted && errorCodeOf(error) === "connection_reset") {
        reject(new StaleConnection(error));
      } else reject(error);
    });
    request.end(input.body);
  });
}

/** At most `max` bytes of UTF-8, cut at a character boundary. */
function utf8Prefix(bytes: Buffer, max: number): string {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  if (Buffer.byteLength(text) <= max) return text;
  const cut = new TextDecoder("utf-8", { fatal: false }).decode(Buffer.from(text).subarray(0, max));
  return cut.endsWith("\uFFFD") ? cut.slice(0, -1) : cut;
}

/** The excerpt as text: UTF-8 within the byte cap, secrets blanked out. */
function excerptText(bytes: Buffer, redact: readonly string[]): string {
  let text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  for (const secret of redact) {
    if (secret.length >= 8) text = text.split(secret).join("[redacted]");
  }
  // Any endpoint secret's prefix, with what follows in base64, base64url or URL-encoded.
  text = text.replace(/whsec_[A-Za-z0-9+/=%_-]+/g, "whsec_[redacted]");
  return utf8Prefix(Buffer.from(text), WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES);
}

/**
 * Where a redirect pointed, as the attempt's error says it (point the endpoint there instead):
 * resolved against the endpoint's URL, control characters escaped, secrets blanked as in excerpts.
 */
function redirectTarget(location: string, input: PostInput): string {
  let text = location;
  try {
    text = new URL(location, input.url).href;
  } catch {}
  text = text.replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return excerptText(Buffer.from(text), input.redact ?? []);
}

function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof UrlRefused) return `refused: ${error.message}`;
  if (error instanceof DeadlineExceeded) return error.message;
  if (error instanceof Error && error.name === "AbortError") return `timed out after ${timeoutMs} ms`;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

async function sendOnce(target: VettedTarget, input: PostInput, signal: AbortSignal): Promise<Answer> {
  try {
    return await send(target, input, signal);
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    try {
      return await send(target, input, signal);
    } catch (again) {
      throw again instanceof StaleConnection ? again.cause : again;
    }
  }
}

export async function postWebhook(input: PostInput): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceeded(input.timeoutMs)), input.timeoutMs);
  try {
    const target = await Promise.race([
      vetWebhookUrl(input.url, input.policy, input.resolve),
      whenAborted(controller.signal),
    ]);
    const { status, excerpt, location } = await sendOnce(target, input, controller.signal);
    const errorCode = errorCodeOfStatus(status);
    const error =
      errorCode === null
        ? null
        : errorCode === "redirect"
          ? truncate(
              `redirect (${status}) not followed${location ? ` (to ${redirectTarget(location, input)})` : ""}`,
            )
          : `receiver answered ${status}`;
    return {
      succeeded: errorCode === null,
      statusCode: status,
      errorCode,
      error,
      responseExcerpt: excerptText(excerpt, input.redact ?? []),
      durationMs: elapsed(),
    };
  } catch (error) {
    return {
      succeeded: false,
      statusCode: null,
      errorCode: errorCodeOf(error),
      error: truncate(describeError(error, input.timeoutMs)),
      responseExcerpt: null,
      durationMs: elapsed(),
    };
  } finally {
    clearTimeout(timer);
  }
}
