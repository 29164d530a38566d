/**
 * Why a webhook attempt failed, as a closed list the API returns in `errorCode` and the
 * dashboard translates, beside the human `error` message. A succeeded attempt has none.
 *
 * | Code                 | Meaning                                                          |
 * | -------------------- | ---------------------------------------------------------------- |
 * | `timeout`            | no answer (status line and headers) within the 15 s deadline     |
 * | `dns`                | the host name did not resolve                                    |
 * | `url_refused`        | the URL or an address it resolves to is not allowed (SSRF rules) |
 * | `connection_refused` | nothing accepted the connection                                  |
 * | `connection_reset`   | the connection was closed or reset before an answer              |
 * | `tls`                | the TLS handshake or the certificate check failed                |
 * | `network`            | any other network failure (unreachable host or network, ...)     |
 * | `redirect`           | the receiver answered 3xx; redirects are never followed          |
 * | `non_2xx`            | the receiver answered another status that is not 2xx             |
 *
 * The same outcome also tells the per-endpoint concurrency (events/concurrency.ts) whether the
 * receiver looks overloaded.
 */
import { WEBHOOK_ATTEMPT_ERROR_CODES, type WebhookAttemptErrorCode } from "../db/types.ts";
import type { LoadSignal } from "./concurrency.ts";
import { UrlRefused } from "./url-guard.ts";

export const ATTEMPT_ERROR_CODES = WEBHOOK_ATTEMPT_ERROR_CODES;
export type AttemptErrorCode = WebhookAttemptErrorCode;

/** Raised when the attempt's deadline passes. */
export class DeadlineExceeded extends Error {
  constructor(timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = "DeadlineExceeded";
  }
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH$)/;

/** The code of a failure that came without any answer from the receiver. */
export function errorCodeOf(error: unknown): AttemptErrorCode {
  if (error instanceof UrlRefused) return error.reason === "unresolved" ? "dns" : "url_refused";
  if (error instanceof DeadlineExceeded) return "timeout";
  if (!(error instanceof Error)) return "network";
  if (error.name === "AbortError") return "timeout";
  const code = String((error as { code?: unknown }).code ?? "");
  if (code === "ECONNREFUSED") return "connection_refused";
  if (code === "ECONNRESET" || code === "EPIPE" || code === "ECONNABORTED") return "connection_reset";
  if (code === "ETIMEDOUT") return "timeout";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "dns";
  if (TLS_CODE.test(code)) return "tls";
  return "network";
}

/** The code of an answered attempt: none for 2xx. */
export function errorCodeOfStatus(status: number): AttemptErrorCode | null {
  if (status >= 200 && status < 300) return null;
  return status >= 300 && status < 400 ? "redirect" : "non_2xx";
}

/** What an attempt says about the receiver's load (events/concurrency.ts). */
export function loadSignalOf(
  outcome: { statusCode: number | null; errorCode: AttemptErrorCode | null; durationMs: number },
  fastMs: number,
): LoadSignal {
  if (outcome.errorCode === null) return outcome.durationMs <= fastMs ? "fast" : "slow";
  if (outcome.statusCode !== null) {
    return outcome.statusCode >= 500 || outcome.statusCode === 429 ? "overloaded" : "neutral";
  }
  switch (outcome.errorCode) {
    case "timeout":
    case "connection_refused":
    case "connection_reset":
      return "overloaded";
    default:
      return "neutral";
  }
}
