/**
 * Body parsing that keeps the raw text: signatures are computed over the bytes exactly as
 * sent, never over a re-serialized object. A body that is not a JSON object is not refused
 * here but remembered, so authentication still runs first and the refusal comes after it.
 *
 * Bytes that are not UTF-8 are remembered the same way (400 VALIDATION_ERROR after
 * authentication): the raw bytes are kept for the signature (`rawBytes`), and no route reads them
 * as text (`rawBody` is empty).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../lib/errors.ts";
import { BODY_SIZE_MAX_BYTES, JSON_NESTING_DEPTH_MAX } from "../lib/limits.ts";

declare module "fastify" {
  interface FastifyRequest {
    rawBody: string;
    /** The body's bytes when they are not UTF-8 (its signature is over them); else undefined. */
    rawBytes: Buffer | undefined;
    bodyError: AppError | undefined;
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What one pass over JSON text's characters finds outside its strings. */
export interface JsonShape {
  /** The deepest nesting of arrays and objects. */
  depth: number;
  /** How many object members the text writes: one `:` outside strings each. */
  members: number;
}

/**
 * The nesting depth and member count of JSON text, counted in one pass over its characters
 * (brackets and colons inside strings do not count), so that a body of thousands of `[` is
 * measured without parsing it or walking it recursively.
 */
export function scanJson(text: string): JsonShape {
  let depth = 0;
  let deepest = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) members += 1;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return { depth: deepest, members };
}

/** The members of a parsed JSON value's objects, at every depth (at most the nesting bound). */
function parsedMembers(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += parsedMembers(item);
    return count;
  }
  for (const key in value) count += 1 + parsedMembers((value as Record<string, unknown>)[key]);
  return count;
}

/**
 * The dotted path of the first member that JSON text names twice in one object (`"amount"`, or
 * `"\u0061mount"` beside `"amount"`), found by walking its tokens; JSON.parse would keep the last
 * one silently. Only called when the counts say one exists, and only on text that parsed.
 */
export function duplicateMemberPath(text: string): string | undefined {
  const levels: Array<{ names: Set<string> | undefined; last: string }> = [];
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) levels.push({ names: c === 0x7b ? new Set() : undefined, last: "" });
    else if (c === 0x7d || c === 0x5d) levels.pop();
    else if (c === 0x22) {
      const start = i;
      for (i += 1; text.charCodeAt(i) !== 0x22; i += 1) if (text.charCodeAt(i) === 0x5c) i += 1;
      let next = i + 1;
      while (/\s/.test(text[next] ?? "")) next += 1;
      const level = levels.at(-1);
      if (text[next] !== ":" || !level?.names) continue;
      const name = JSON.parse(text.slice(start, i + 1)) as string;
      if (level.names.has(name))
        return [
          ...levels
            .slice(0, -1)
            .map((l) => l.last)
            .filter(Boolean),
          name,
        ].join(".");
      level.names.add(name);
      level.last = name;
    }
  }
  return undefined;
}

/**
 * The body's text, decoded strictly; undefined when it is not UTF-8, which is then remembered as
 * the request's body error (refused after authentication, never replaced), with its bytes.
 */
function decode(request: FastifyRequest, body: Buffer): string | undefined {
  try {
    return strictUtf8.decode(body);
  } catch {
    request.rawBytes = body;
    request.bodyError = new AppError("VALIDATION_ERROR", "Request body is not valid UTF-8", {
      field: "body",
    });
    return undefined;
  }
}

const CHARSET_PARAMETER = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * True unless the Content-Type names a charset other than UTF-8: JSON between systems is UTF-8
 * (RFC 8259), and the body is read as UTF-8 whatever is declared, so a body declared in another
 * charset (`charset=utf-16`, `iso-8859-1`) is refused (remembered, answered after authentication
 * by `rejectUnparsedBody`) rather than read as something it says it is not. A bank's notice
 * (`/providers/...`) is read from `rawBody`, which is kept, whatever charset it declares.
 */
function declaresUtf8(contentType: string | undefined): boolean {
  const charset = contentType ? CHARSET_PARAMETER.exec(contentType)?.[1] : undefined;
  return charset === undefined || /^utf-?8$/i.test(charset);
}

/** A body that does not parse as JSON. */
export function invalidJsonBody(): AppError<"VALIDATION_ERROR"> {
  return new AppError("VALIDATION_ERROR", "Request body is not valid JSON", { field: "body" });
}

const bodyError = (message: string, field = "body") => new AppError("VALIDATION_ERROR", message, { field });

/**
 * The JSON object a body's text holds; undefined for an empty body (the routes' schemas decide
 * whether one is needed); or why it is refused (remembered, answered after authentication).
 */
function parseObject(text: string): object | undefined | AppError<"VALIDATION_ERROR"> {
  if (text.trim() === "") return undefined;
  const shape = scanJson(text);
  if (shape.depth > JSON_NESTING_DEPTH_MAX) {
    return bodyError(`Request body nests arrays and objects deeper than ${JSON_NESTING_DEPTH_MAX} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return invalidJsonBody();
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return bodyError("Request body must be a JSON object");
  }
  // A member named twice would be read as its last value here and as its first elsewhere (a
  // proxy, a log, an approval step): the body is refused rather than read one way.
  if (parsedMembers(parsed) !== shape.members) {
    // The path is echoed only when it reads as a field name can (printable ASCII, short).
    const path = duplicateMemberPath(text);
    const field = path !== undefined && /^[\x20-\x7e]{1,200}$/.test(path) ? path : "body";
    return bodyError(`Request body names the member "${field}" twice`, field);
  }
  return parsed;
}

/** A Content-Encoding other than none or `identity`, as sent (at most 40 characters); else undefined. */
function contentEncodingOf(header: string | string[] | undefined): string | undefined {
  // Nearly every request sends none: nothing to read.
  if (header === undefined) return undefined;
  const value = (Array.isArray(header) ? header.join(", ") : (header ?? "")).trim();
  // "identity", once or listed more than once (a header sent twice), is no encoding at all.
  if (value.split(",").every((coding) => /^\s*(?:identity)?\s*$/i.test(coding))) return undefined;
  return value.length <= 40 && /^[\x21-\x7e ]+$/.test(value) ? value : "(unreadable)";
}

/**
 * Refuses (remembers the error of) a body the caller says is compressed: it is read as it came,
 * and one that is compressed (and then rarely UTF-8) is refused for what it is, not read as
 * something other than it sent. The text, when it decoded, is kept for the signature's check.
 */
function refusedEncoding(request: FastifyRequest, body: Buffer, text: string | undefined): boolean {
  const encoding = contentEncodingOf(request.headers["content-encoding"]);
  if (body.length === 0 || encoding === undefined) return false;
  request.bodyError = bodyError(
    `Content-Encoding ${encoding} is not supported: send the JSON body uncompressed`,
    "Content-Encoding",
  );
  if (text !== undefined) request.rawBody = text;
  return true;
}

export function installBodyParsing(app: FastifyInstance): void {
  app.decorateRequest("rawBody", "");
  app.decorateRequest("rawBytes", undefined);
  app.decorateRequest("bodyError", undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer", bodyLimit: BODY_SIZE_MAX_BYTES },
    (request, body, done) => {
      const text = decode(request, body as Buffer);
      if (refusedEncoding(request, body as Buffer, text)) {
        done(null, undefined);
        return;
      }
      if (text === undefined) {
        done(null, undefined);
        return;
      }
      request.rawBody = text;
      if (text.length > 0 && !declaresUtf8(request.headers["content-type"])) {
        request.bodyError = bodyError("Content-Type charset must be utf-8 (JSON is UTF-8)", "Content-Type");
        done(null, undefined);
        return;
      }
      const parsed = parseObject(text);
      if (parsed instanceof AppError) {
        request.bodyError = parsed;
        done(null, undefined);
        return;
      }
      done(null, parsed);
    },
  );
  app.addContentTypeParser(
    "*",
    { parseAs: "buffer", bodyLimit: BODY_SIZE_MAX_BYTES },
    (request, body, done) => {
      const text = decode(request, body as Buffer);
      if (refusedEncoding(request, body as Buffer, text)) {
        done(null, undefined);
        return;
      }
      if (text === undefined) {
        done(null, undefined);
        return;
      }
      request.rawBody = text;
      if (request.rawBody.length > 0) {
        request.bodyError = new AppError("VALIDATION_ERROR", "Content-Type must be application/json", {
          field: "Content-Type",
        });
      }
      done(null, undefined);
    },
  );
}

/** Refuses with the remembered body error; runs after authentication. */
export function rejectUnparsedBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  // Callback style: every API request runs it, and a promise per request costs more than the test.
  done(request.bodyError ?? undefined);
}

/**
 * For routes whose body is optional or empty (cancel, rotate, redeliver): an absent body is
 * validated as `{}`, so only fields that should not be there are refused. Runs as a route's
 * own preValidation hook, after the scope's authentication and `rejectUnparsedBody`.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
