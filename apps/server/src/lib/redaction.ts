/**
 * Redaction by shape, for log lines (CONTRACT 14: no secret, token or unmasked account number
 * in any log line, whatever the error). Field-name redaction (server.ts) misses a secret that
 * travels under another name: a database error's SQL parameters, a URL's query string, a
 * message that quotes a value. So every finished log line also passes through `redactText`,
 * and errors lose the fields that carry SQL and its parameters (`redactError`).
 */

export const REDACTED = "[redacted]";

/**
 * The shapes of the service's credentials (lib/ids.ts randomToken, integrations, webhooks), each
 * with the literal texts one of which any match contains: a line holding none of them is not
 * searched for that shape (most lines hold none, and a search costs more than a look for a text).
 */
export const TOKEN_SHAPE =
  /(?<![A-Za-z0-9_-])(?![0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![A-Za-z0-9_-]))[A-Za-z0-9_-]{32,}/g;

const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const isTokenChar = (c: number) =>
  (c >= 0x30 && c <= 0x39) ||
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x61 && c <= 0x7a) ||
  c === 0x5f ||
  c === 0x2d;

/**
 * Whether `text` may hold a TOKEN_SHAPE: a run of 32 or more of its characters that is not
 * exactly a UUID (the shape's runs are whole runs, since nothing of the class may precede one).
 * One pass over the characters, where the expression's look-behind and look-ahead run at every
 * position: most log lines hold no such run (their ids are UUIDs), and skip the expression.
 */
export function mayHoldToken(text: string): boolean {
  let start = 0;
  for (let i = 0; i <= text.length; i += 1) {
    if (i < text.length && isTokenChar(text.charCodeAt(i))) continue;
    const length = i - start;
    if (length >= 32 && !(length === 36 && UUID_TEXT.test(text.slice(start, i)))) return true;
    start = i + 1;
  }
  return false;
}

/**
 * Whether `text` may hold an ACCOUNT_NUMBER: a run of digits and `-` that starts with a digit,
 * follows none of `:`, `,`, `[`, `.` and holds 10 or more digits (a match lies inside one such
 * run, from its start). Numbers of JSON, such as pino's `time`, follow `:` and never qualify.
 */
export function mayHoldAccountNumber(text: string): boolean {
  let digits = 0;
  let qualifies = false;
  for (let i = 0; i <= text.length; i += 1) {
    const c = i < text.length ? text.charCodeAt(i) : -1;
    const inRun = (c >= 0x30 && c <= 0x39) || c === 0x2d;
    if (inRun) {
      const previous = i > 0 ? text.charCodeAt(i - 1) : -1;
      const startsRun = !((previous >= 0x30 && previous <= 0x39) || previous === 0x2d);
      if (startsRun) {
        digits = 0;
        // 0x3a ':', 0x2c ',', 0x5b '[', 0x2e '.'
        qualifies =
          c !== 0x2d && previous !== 0x3a && previous !== 0x2c && previous !== 0x5b && previous !== 0x2e;
      }
      if (c !== 0x2d) digits += 1;
      continue;
    }
    if (qualifies && digits >= 10) return true;
    qualifies = false;
    digits = 0;
  }
  return false;
}

const SECRET_SHAPES: { shape: RegExp; markers?: readonly string[]; mayHold?: (text: string) => boolean }[] = [
  // API keys and API secrets: sk_test_..., sk_live_..., sec_...
  { shape: /\b(?:sk_(?:test|live)_|sec_)[A-Za-z0-9_-]{8,}/g, markers: ["sk_test_", "sk_live_", "sec_"] },
  // Webhook signing secrets: whsec_ + base64.
  { shape: /whsec_[A-Za-z0-9+/=]{8,}/g, markers: ["whsec_"] },
  // Payment client secrets: <payment id>_secret_<random>.
  { shape: /[A-Za-z0-9-]*_secret_[A-Za-z0-9_-]{8,}/g, markers: ["_secret_"] },
  // Anything else token-like: 32 or more base64url characters in one run (session tokens, the
  // generated operator token, hashes), except a UUID, which is an id and stays readable.
  { shape: TOKEN_SHAPE, mayHold: mayHoldToken },
  // A secret named in a query string or a form: clientSecret=..., token=..., password=...
  {
    shape: /(?<=\b(?:clientSecret|client_secret|secret|token|password|apiSecret|signature)=)[^&\s"\\]+/gi,
    markers: ["="],
  },
];

/**
 * Account numbers: 10 to 15 digits, with or without `-` between them, inside text (a JSON
 * number, such as pino's `time`, is left alone: it follows `:`, `,` or `[`). All but the last
 * four digits become `*`, as in API responses.
 */
export const ACCOUNT_NUMBER = /(?<![\d:,[\-.])\d(?:-?\d){9,14}(?![\d-])/g;

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
  for (const { shape, markers, mayHold } of SECRET_SHAPES) {
    if (markers && !markers.some((marker) => out.includes(marker))) continue;
    if (mayHold && !mayHold(out)) continue;
    out = out.replace(shape, REDACTED);
  }
  return mayHoldAccountNumber(out) ? out.replace(ACCOUNT_NUMBER, maskDigits) : out;
}

/**
 * A redactor of JSON text by field name: the value of every member whose name is one of `names`,
 * at any depth, becomes "[redacted]" (a string, a number, a literal, or a whole object or array).
 * It reads the finished log line once, so its cost does not grow with the number of names or
 * depths, where path redaction on the logged objects (pino's `redact`) cost each key of every
 * line a walk of every path (docs/PERFORMANCE.md). Text that is not JSON is returned as it is
 * from the first value it cannot read.
 */
export function fieldRedaction(names: readonly string[]): (json: string) => string {
  for (const name of names) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`field name ${name} cannot be matched`);
  }
  const member = new RegExp(`"(?:${names.join("|")})"\\s*:\\s*`, "g");
  return (json) => {
    member.lastIndex = 0;
    let out = "";
    let from = 0;
    for (let match = member.exec(json); match; match = member.exec(json)) {
      const start = member.lastIndex;
      const end = valueEnd(json, start);
      if (end <= start) continue;
      out += `${json.slice(from, start)}"${REDACTED}"`;
      from = end;
      member.lastIndex = end;
    }
    return from === 0 ? json : out + json.slice(from);
  };
}

/** Where the JSON value starting at `start` ends (exclusive); `start` when it cannot be read. */
function valueEnd(json: string, start: number): number {
  const first = json[start];
  if (first === '"') return stringEnd(json, start);
  if (first === "{" || first === "[") {
    let depth = 0;
    for (let i = start; i < json.length; i += 1) {
      const c = json[i];
      if (c === '"') {
        i = stringEnd(json, i) - 1;
        if (i < start) return start;
      } else if (c === "{" || c === "[") {
        depth += 1;
      } else if (c === "}" || c === "]") {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
    }
    return start;
  }
  let i = start;
  while (i < json.length && !",}]".includes(json[i]!)) i += 1;
  return i;
}

/** The end (exclusive) of the JSON string opening at `start`; `start` when it does not close. */
function stringEnd(json: string, start: number): number {
  for (let i = start + 1; i < json.length; i += 1) {
    const c = json[i];
    if (c === "\\") i += 1;
    else if (c === '"') return i + 1;
  }
  return start;
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
