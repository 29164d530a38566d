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

const isTokenChar = (c: number) =>
  (c >= 0x30 && c <= 0x39) ||
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x61 && c <= 0x7a) ||
  c === 0x5f ||
  c === 0x2d;

const isHexOrDash = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66) || c === 0x2d;

/**
 * Whether the 36 characters of `text` from `from` are a UUID's: hex digits, with `-` at 8, 13, 18
 * and 23 and nowhere else (the characters around them are the caller's to look at).
 */
function isUuidAt(text: string, from: number): boolean {
  if (from + 36 > text.length) return false;
  for (let i = 0; i < 36; i += 1) {
    const c = text.charCodeAt(from + i);
    const dash = c === 0x2d;
    if (dash !== (i === 8 || i === 13 || i === 18 || i === 23) || !isHexOrDash(c)) return false;
  }
  return true;
}

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
    if (length >= 32 && !(length === 36 && isUuidAt(text, start))) return true;
    start = i + 1;
  }
  return false;
}

/**
 * Whether the characters of `text` from `start` to `end` lie inside a whole UUID: a run of hex
 * digits and `-` of the UUID's shape that no token character touches. A UUID is an id (a
 * payment's, a request's), and its digits are not an account number, however many of them
 * stand between its dashes: `7c9e6679-7425-40de-...` holds ten digits in one run.
 */
export function insideUuid(text: string, start: number, end: number): boolean {
  let from = start;
  while (from > 0 && isHexOrDash(text.charCodeAt(from - 1))) from -= 1;
  let to = end;
  while (to < text.length && isHexOrDash(text.charCodeAt(to))) to += 1;
  if (to - from !== 36) return false;
  if (from > 0 && isTokenChar(text.charCodeAt(from - 1))) return false;
  if (to < text.length && isTokenChar(text.charCodeAt(to))) return false;
  return isUuidAt(text, from);
}

/**
 * What may stand between two digits of an account number: `-`, and a space or `-` as a URL
 * writes them (`%20`, `+`, `%2D`, and the no-break space `%C2%A0`, which the API also takes).
 */
const DIGIT_SEPARATOR = "(?:-|%20|\\+|%2[Dd]|%[Cc]2%[Aa]0)";

/** A digit of the text itself, not the last character of a percent-encoding (`%20`, `%A3`). */
const TEXT_DIGIT = "(?<!%[0-9A-Fa-f])\\d";
/**
 * Where an account number cannot start: after a digit (unless that digit ends a
 * percent-encoding: `tel%200812345678`, Thai text before the number); after `":` (a JSON
 * number, such as pino's `time`) or `[`; inside a percent-encoding (`%20`'s own digits); after a
 * separator or `.` that follows a digit (inside a longer number, or a decimal's fraction); after
 * a `-` that starts a JSON number. After a letter and a `-`, `.`, `:` or `,`
 * (`order-1234567890`, `acct:1234567890`) or after another number and a `,` it can.
 */
const ACCOUNT_NUMBER_START = `(?<!${TEXT_DIGIT}|":|[%[]|%[A-Fa-f]|(?:^|${TEXT_DIGIT}|[:,[])-|${TEXT_DIGIT}(?:[+.]|%20|%2[Dd]|%[Cc]2%[Aa]0))`;

/**
 * The start of an ACCOUNT_NUMBER's run: a digit where one may start, then nine more digits
 * with any separators between them (a match lies inside such a run, from its start).
 */
const ACCOUNT_NUMBER_RUN = new RegExp(`${ACCOUNT_NUMBER_START}\\d(?:${DIGIT_SEPARATOR}*\\d){9}`, "g");

/**
 * Whether `text` may hold an ACCOUNT_NUMBER outside a UUID: a run that could start one, not
 * inside a UUID. Most log lines hold none, and skip the masking expression; the search is
 * compiled to machine code by the engine, about three times as fast as a loop over the
 * characters (docs/PERFORMANCE.md).
 */
export function mayHoldAccountNumber(text: string): boolean {
  ACCOUNT_NUMBER_RUN.lastIndex = 0;
  for (let run = ACCOUNT_NUMBER_RUN.exec(text); run; run = ACCOUNT_NUMBER_RUN.exec(text)) {
    if (!insideUuid(text, run.index, ACCOUNT_NUMBER_RUN.lastIndex)) return true;
  }
  return false;
}

/** The characters of a query or form field's name, brackets and their escapes included. */
const NAME_CHARS = "A-Za-z0-9_.\\-\\[\\]%";
/** Words that make a field's name a secret's wherever they stand in it. */
const SECRET_NAME_WORDS = [
  "secret",
  "token",
  "password",
  "passwd",
  "passphrase",
  "passcode",
  "pwd",
  "otp",
  "signature",
  "api[_-]?key",
  "access[_-]?key",
  "private[_-]?key",
].join("|");

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
  // A secret named in a query string or a form: any name holding one of these words
  // (clientSecret=, access_token=, API_SECRET_KEY=, user[password]=, passphrase=) or ending in
  // `pass` (pass=, db_pass=), whatever its case, brackets (also %5B/%5D) included in the name.
  {
    shape: new RegExp(
      `(?<=(?:^|[^${NAME_CHARS}])[${NAME_CHARS}]*(?:(?:${SECRET_NAME_WORDS})[${NAME_CHARS}]*|pass(?:\\]|%5D)?)=)[^&\\s"\\\\]+`,
      "gi",
    ),
    markers: ["="],
  },
];

/**
 * Account numbers: 10 to 15 digits, with up to three separators between two of them
 * (DIGIT_SEPARATOR: the API takes `098 - 765 - 4321`, so a query string may carry it so; a bare
 * space is not one), starting where ACCOUNT_NUMBER_START allows, and not inside a UUID
 * (`maskAccountNumbers`). A run followed by a digit, by a separator and a digit, or by a colon
 * (also `%3A`) is not one either: it is part of a longer number (a card's 16 digits are not
 * masked in part) or a date and time (`2026-12-06%2010:40:37` stays readable). All but the last
 * four digits become `*`, as in API responses.
 */
export const ACCOUNT_NUMBER = new RegExp(
  `${ACCOUNT_NUMBER_START}\\d(?:${DIGIT_SEPARATOR}{0,3}\\d){9,14}(?![\\d:]|%3[Aa]|${DIGIT_SEPARATOR}+\\d)`,
  "g",
);

function maskDigits(match: string): string {
  const digits = match.replace(/%20|%2[Dd]|%[Cc]2%[Aa]0/g, "").replace(/\D/g, "");
  return "*".repeat(digits.length - 4) + digits.slice(-4);
}

/** `text` with every ACCOUNT_NUMBER outside a UUID masked to its last four digits. */
export function maskAccountNumbers(text: string): string {
  return text.replace(ACCOUNT_NUMBER, (match: string, offset: number) =>
    insideUuid(text, offset, offset + match.length) ? match : maskDigits(match),
  );
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
  return mayHoldAccountNumber(out) ? maskAccountNumbers(out) : out;
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
