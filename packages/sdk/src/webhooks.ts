/**
 * Webhook verification. Satang delivers events following the Standard Webhooks specification
 * (CONTRACT 12): headers `webhook-id`, `webhook-timestamp` (unix seconds) and
 * `webhook-signature` = "v1," + base64 HMAC-SHA256(secret, id + "." + timestamp + "." + body),
 * with an endpoint secret of the form `whsec_` + base64. Verification is delegated to the
 * specification's own `standardwebhooks` library rather than reimplemented, so a receiver checks
 * signatures with the same code as receivers of any other Standard Webhooks sender.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { WebhookVerificationError as LibraryVerificationError, Webhook } from "standardwebhooks";
import type { SatangEvent } from "./types.ts";

/**
 * The signature is missing, wrong, or too old (more than 5 minutes from now), the body is not an
 * event, or what was passed is not a raw body (a parsed object, say).
 */
export class WebhookVerificationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WebhookVerificationError";
  }
}

/** Headers as Node's `IncomingMessage.headers`, a fetch `Headers`, or a plain object. */
export type HeadersLike =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<readonly [string, string]>;

export interface WebhookHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
  [name: string]: string;
}

export interface TestHeaderOptions {
  /** The `webhook-id`; by default the payload's `id`, else a random UUID. */
  id?: string;
  /** The signing time; by default now. A Date or unix seconds. */
  timestamp?: Date | number;
}

function headerRecord(headers: HeadersLike): Record<string, string> {
  const out: Record<string, string> = {};
  const entries: Iterable<readonly [string, unknown]> =
    typeof (headers as Headers).entries === "function" || Symbol.iterator in headers
      ? (headers as Iterable<readonly [string, string]>)
      : Object.entries(headers);
  for (const [name, value] of entries) {
    // A header sent twice arrives as an array in Node; the first copy is the one that counts.
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === "string") out[name.toLowerCase()] = text;
  }
  return out;
}

/** The raw body of a delivery as a receiver reads it: text, a Buffer or other bytes. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** What a value that is not a raw body is, for the error that says so. */
function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object (a parsed body?)";
  return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}

/**
 * The body text, or undefined when `payload` is not a raw body. JavaScript callers (and a
 * framework that parsed the body already) can pass anything; the check keeps them from a
 * TypeError deep inside the decoder that does not say what to pass instead.
 */
function bodyText(payload: unknown): string | undefined {
  if (typeof payload === "string") return payload;
  if (payload instanceof Uint8Array || payload instanceof ArrayBuffer) return exactText(payload);
  return undefined;
}

/**
 * The bytes as text, each byte kept: a leading byte-order mark stays in the text (a default
 * decoder drops it), and bytes that are not UTF-8 are refused (a default decoder replaces them
 * with U+FFFD, so other bytes than those signed could read as the signed text).
 */
function exactText(bytes: Uint8Array | ArrayBuffer): string {
  try {
    return new TextDecoder("utf-8", { ignoreBOM: true, fatal: true }).decode(bytes);
  } catch {
    throw new WebhookVerificationError("webhook signature verification failed: the body is not UTF-8");
  }
}

function notRawBody(payload: unknown): string {
  return (
    `the webhook body must be the raw request body exactly as received, a string or a Buffer/Uint8Array; ` +
    `got ${describeValue(payload)}. Read the body as text or bytes before any JSON parsing ` +
    "(a re-serialized object has other bytes and never verifies)"
  );
}

function isEvent(value: unknown): value is SatangEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as Record<string, unknown>;
  const data = event.data as Record<string, unknown> | undefined;
  return (
    typeof event.id === "string" &&
    typeof event.type === "string" &&
    typeof event.createdAt === "string" &&
    typeof data === "object" &&
    data !== null &&
    typeof data.object === "object" &&
    data.object !== null
  );
}

/**
 * Checks a delivery and returns its event. `payload` must be the raw body exactly as received,
 * a string or a Buffer/Uint8Array (a re-serialized object changes the bytes and fails
 * verification; a parsed object is refused with a WebhookVerificationError saying so); `secret`
 * is the endpoint's `whsec_...` secret. Throws WebhookVerificationError when anything is off.
 */
function verify(payload: RawBody, headers: HeadersLike, secret: string): SatangEvent {
  const body = bodyText(payload);
  if (body === undefined) throw new WebhookVerificationError(notRawBody(payload));
  if (typeof headers !== "object" || headers === null) {
    throw new WebhookVerificationError(
      `the webhook headers are missing (got ${describeValue(headers)}): pass the request's headers`,
    );
  }
  let parsed: unknown;
  try {
    parsed = new Webhook(secret).verify(body, headerRecord(headers));
  } catch (error) {
    if (error instanceof LibraryVerificationError) {
      throw new WebhookVerificationError(`webhook signature verification failed: ${error.message}`, {
        cause: error,
      });
    }
    // Not a signature problem: a malformed secret, or a signed body that is not JSON.
    throw new WebhookVerificationError(
      `webhook could not be verified: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (!isEvent(parsed)) throw new WebhookVerificationError("webhook body is not a Satang event");
  return parsed;
}

function payloadId(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === "string" && id !== "" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Signed Standard Webhooks headers for `payload`, as Satang would send them: for tests of your
 * webhook handler, and for forwarding events (`satang listen`).
 */
function testHeaders(payload: RawBody, secret: string, options: TestHeaderOptions = {}): WebhookHeaders {
  const body = bodyText(payload);
  if (body === undefined) throw new TypeError(notRawBody(payload).replace("webhook body", "payload to sign"));
  const id = options.id ?? payloadId(body) ?? randomUUID();
  const at =
    options.timestamp === undefined
      ? new Date()
      : options.timestamp instanceof Date
        ? options.timestamp
        : new Date(options.timestamp * 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
}

/** A new endpoint-style secret: `whsec_` + base64 of 32 random bytes. */
function generateSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export const webhooks = { verify, testHeaders, generateSecret };
export type Webhooks = typeof webhooks;
