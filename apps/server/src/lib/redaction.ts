/**
 * Redaction by shape, for log lines (CONTRACT 14: no secret, token or unmasked account number
 * in any log line, whatever the error). Field-name redaction (server.ts) misses a secret that
 * travels under another name: a database error's SQL parameters, a URL's query string, a
 * message that quotes a value. So every finished log line also passes through `redactText`,
 * and errors lose the fields that carry SQL and its parameters (`redactError`).
 */

export const REDACTED = "[redacted]";

/** The shapes of the service's credentials (lib/ids.ts randomToken, integrations, webhooks). */
const SECRET_SHAPES: RegExp[] = [
  // API keys and API secrets: sk_test_..., sk_live_..., sec_...
  /\b(?:sk_(?:test|live)_|sec_)[A-Za-z0-9_-]{8,}/g,
  // Webhook signing secrets: whsec_ + base64.
  /whsec_[A-Za-z0-9+/=]{8,}/g,
  // Payment client secrets: <payment id>_secret_<random>.
  /[A-Za-z0-9-]*_secret_[A-Za-z0-9_-]{8,}/g,
  // Anything else token-like: 32 or more base64url characters in one run (session tokens, the
  // generated operator token, hashes), except a UUID, which is an id and stays readable.
  /(?<![A-Za-z0-9_-])(?![0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![A-Za-z0-9_-]))[A-Za-z0-9_-]{32,}/g,
  // A secret named in a query string or a form: clientSecret=..., token=..., password=...
  /(?<=\b(?:clientSecret|client_secret|secret|token|password|apiSecret|signature)=)[^&\s"\\]+/gi,
];

/**
 * Account numbers: 10 to 15 digits, with or without `-` between them, inside text (a JSON
 * number, such as pino's `time`, is left alone: it follows `:`, `,` or `[`). All but the last
 * four digits become `*`, as in API responses.
 */
const ACCOUNT_NUMBER = /(?<![\d:,[\-.])\d(?:-?\d){9,14}(?![\d-])/g;

function maskDigits(match: string): string {
  const digits = match.replace(/-/g, "");
  return "*".repeat(digits.length - 4) + digits.slice(-4);
}

/** `text` with every secret-shaped run, every literal in `literals` and account numbers hidden. */
export function redactText(text: string, literals: readonly string[] = []): string {
  let out = text;
  for (const literal of literals) {
    if (literal.length >= 8) out = out.split(literal).join(REDACTED);
  }
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  return out.replace(ACCOUNT_NUMBER, maskDigits);
}

/**
 * Fields of database driver errors that carry SQL and its parameters (PGlite: `query`,
 * `params`; pg: `detail`, `where`, `internalQuery`) or the values of a row.
 */
const ERROR_FIELDS_DROPPED = ["query", "params", "parameters", "internalQuery", "detail", "where"];

/** A serialized error without the fields that carry SQL parameters or row values. */
export function redactError<T extends Record<string, unknown>>(serialized: T): T {
  const out: Record<string, unknown> = { ...serialized };
  for (const field of ERROR_FIELDS_DROPPED) delete out[field];
  if (out.cause && typeof out.cause === "object")
    out.cause = redactError(out.cause as Record<string, unknown>);
  return out as T;
}
