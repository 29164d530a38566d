/**
 * Request signing for the Satang API.
 *
 * v2: X-Signature = "v2=" + hex HMAC-SHA256(secret, timestamp + "." + METHOD + "." +
 *     path with query + "." + body). The client signs v2 unless told otherwise, and so does
 *     `signRequest` whenever it is given the method and the path.
 * v1: X-Signature = "sha256=" + hex HMAC-SHA256(secret, timestamp + "." + body). `signRequest`
 *     signs v1 when given only the body (nothing else to sign), or `version: "v1"`. A v1
 *     signature does not name its request: the server refuses a v1 signature already seen on
 *     a read when it comes back on a write.
 *
 * The server accepts a signed write once, so no two requests may share a timestamp: the
 * timestamps handed out here strictly increase within a process.
 */
import { createHmac } from "node:crypto";

let lastTimestamp = 0;

/** Unix milliseconds, strictly increasing across calls in this process. */
export function nextTimestamp(now: number = Date.now()): number {
  lastTimestamp = Math.max(now, lastTimestamp + 1);
  return lastTimestamp;
}

export interface SignInput {
  apiKey: string;
  apiSecret: string;
  /** The exact body text that will be sent; omitted (or "") when there is none, as on a GET. */
  body?: string;
  method?: string;
  /** Path with query string, needed for v2. */
  path?: string;
  timestamp?: number;
  /** Default: v2 when the method and path are given, v1 otherwise. */
  version?: "v1" | "v2";
}

export interface SignedHeaders {
  "X-API-Key": string;
  "X-Timestamp": string;
  "X-Signature": string;
  [name: string]: string;
}

export function signRequest(input: SignInput): SignedHeaders {
  // A body given as an object (not the JSON text sent) would be signed as "[object Object]".
  if (input.body !== undefined && typeof input.body !== "string") {
    throw new TypeError("body must be the exact text that will be sent (JSON.stringify it first)");
  }
  const body = input.body ?? "";
  const timestamp = String(input.timestamp ?? nextTimestamp());
  const hmac = createHmac("sha256", input.apiSecret);
  let signature: string;
  const version = input.version ?? (input.method && input.path ? "v2" : "v1");
  if (version !== "v1" && version !== "v2") {
    throw new TypeError(`version must be "v1" or "v2", got ${JSON.stringify(version)}`);
  }
  if (version === "v2") {
    if (!input.method || !input.path) throw new Error("v2 signatures need the method and the path");
    hmac.update(`${timestamp}.${input.method.toUpperCase()}.${input.path}.${body}`);
    signature = `v2=${hmac.digest("hex")}`;
  } else {
    hmac.update(`${timestamp}.${body}`);
    signature = `sha256=${hmac.digest("hex")}`;
  }
  return { "X-API-Key": input.apiKey, "X-Timestamp": timestamp, "X-Signature": signature };
}
