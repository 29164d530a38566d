// @ts-check
// A webhook attempt's error in the reader's language. The server records the error as English
// text ("receiver answered 500", "timed out after 15000 ms", "refused: ...", or the network
// error's own message); an attempt that also carries an `errorCode` is shown by that code when
// this page has a text for it. Anything not recognised falls back to a generic sentence with the
// server's text as detail, so nothing is ever hidden.

/** @import { MessageKey } from "./i18n.js" */
import { t } from "./lang.js";

/** @typedef {"timeout" | "status" | "redirect" | "refused" | "connection" | "dns" | "tls" | "other"} AttemptErrorKind */

/** @type {readonly AttemptErrorKind[]} */
const KINDS = ["timeout", "status", "redirect", "refused", "connection", "dns", "tls", "other"];

/** @type {ReadonlyArray<[RegExp, AttemptErrorKind]>} */
const PATTERNS = [
  [/^timed out|ETIMEDOUT|ESOCKETTIMEDOUT/i, "timeout"],
  [/^redirect \(\d+\)/, "redirect"],
  [/^receiver answered \d+/, "status"],
  [/^refused: /, "refused"],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo/i, "dns"],
  [/certificate|CERT_|SSL|TLS/i, "tls"],
  [/ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|socket hang up/i, "connection"],
];

/**
 * @param {string} error
 * @param {string | null | undefined} [errorCode]
 * @returns {AttemptErrorKind}
 */
export function attemptErrorKind(error, errorCode) {
  const byCode = KINDS.find((kind) => kind === errorCode);
  if (byCode) return byCode;
  return PATTERNS.find(([pattern]) => pattern.test(error))?.[1] ?? "other";
}

/**
 * @param {{ error: string | null, statusCode: number | null, errorCode?: string | null }} attempt
 * @returns {string | null} null when the attempt has no error
 */
export function attemptErrorText(attempt) {
  if (!attempt.error) return null;
  const kind = attemptErrorKind(attempt.error, attempt.errorCode);
  const detail = attempt.error.replace(/^refused: /, "");
  const key = /** @type {MessageKey} */ (`attemptError.${kind}`);
  return t(key, { detail, status: attempt.statusCode ?? "" });
}
