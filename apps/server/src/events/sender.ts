/**
 * One HTTP attempt of a webhook delivery: check the URL (events/url-guard.ts), then POST the
 * signed body to the address that passed the check, within one deadline.
 *
 * - The connection goes to the vetted address: a `lookup` function that returns only that
 *   address replaces DNS for the request, so the host cannot be re-pointed between the check
 *   and the connection. TLS still verifies the certificate against the host name.
 * - Redirects are not followed (node's http client never follows them); a 3xx is a failure.
 * - Only 2xx is success. The deadline covers DNS, connecting, and the response headers; a body
 *   still streaming at the deadline is cut off, and at most WEBHOOK_RESPONSE_BODY_MAX_BYTES of
 *   it is read, so a hostile receiver cannot hold a worker slot or memory.
 * - No connection reuse (`agent: false`): every attempt is checked and pinned on its own.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { performance } from "node:perf_hooks";
import { WEBHOOK_ERROR_LENGTH_MAX, WEBHOOK_RESPONSE_BODY_MAX_BYTES } from "../lib/limits.ts";
import type { Resolver } from "./settings.ts";
import { type UrlPolicy, UrlRefused, type VettedTarget, vetWebhookUrl } from "./url-guard.ts";

export interface AttemptOutcome {
  succeeded: boolean;
  /** The receiver's HTTP status, or null when none arrived. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface PostInput {
  url: string;
  body: string;
  headers: Record<string, string>;
  policy: UrlPolicy;
  resolve: Resolver;
  timeoutMs: number;
}

class DeadlineExceeded extends Error {
  constructor(timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = "DeadlineExceeded";
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

/** Sends the request; resolves with the response status once the response is over. */
function send(target: VettedTarget, input: PostInput, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const transport = target.url.protocol === "https:" ? https : http;
    let status: number | undefined;
    const request = transport.request({
      host: target.host,
      port: target.url.port === "" ? undefined : Number(target.url.port),
      path: `${target.url.pathname}${target.url.search}`,
      method: "POST",
      headers: { ...input.headers, "content-length": String(Buffer.byteLength(input.body)) },
      agent: false,
      lookup: pinnedLookup(target),
      signal,
    });
    request.on("response", (response) => {
      status = response.statusCode ?? 0;
      let received = 0;
      response.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received > WEBHOOK_RESPONSE_BODY_MAX_BYTES) response.destroy();
      });
      response.on("error", () => {});
      response.on("close", () => resolve(status ?? 0));
    });
    request.on("error", (error) => {
      // Once the status is in, an error while reading the body (the deadline, the size cap)
      // does not change the outcome: the receiver has answered.
      if (status !== undefined) resolve(status);
      else reject(error);
    });
    request.end(input.body);
  });
}

function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof DeadlineExceeded) return error.message;
  if (error instanceof Error && error.name === "AbortError") return `timed out after ${timeoutMs} ms`;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
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
    const statusCode = await send(target, input, controller.signal);
    if (statusCode >= 200 && statusCode < 300) {
      return { succeeded: true, statusCode, error: null, durationMs: elapsed() };
    }
    const error =
      statusCode >= 300 && statusCode < 400
        ? `redirect (${statusCode}) not followed`
        : `receiver answered ${statusCode}`;
    return { succeeded: false, statusCode, error, durationMs: elapsed() };
  } catch (error) {
    const message =
      error instanceof UrlRefused ? `refused: ${error.message}` : describeError(error, input.timeoutMs);
    return { succeeded: false, statusCode: null, error: truncate(message), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}
