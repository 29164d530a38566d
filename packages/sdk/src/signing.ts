/**
 * Request signing for the Satang API.
 *
 * v1 (default): X-Signature = "sha256=" + hex HMAC-SHA256(secret, timestamp + "." + body).
 * v2: X-Signature = "v2=" + hex HMAC-SHA256(secret, timestamp + "." + METHOD + "." +
 *     path with query + "." + body).
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
  /** The exact body text that will be sent ("" when there is none). */
  body: string;
  method?: string;
  /** Path with query string, needed for v2. */
  path?: string;
  timestamp?: number;
  version?: "v1" | "v2";
}

export interface SignedHeaders {
  "X-API-Key": string;
  "X-Timestamp": string;
  "X-Signature": string;
  [name: string]: string;
}

export function signRequest(input: SignInput): SignedHeaders {
  const timestamp = String(input.timestamp ?? nextTimestamp());
  const hmac = createHmac("sha256", input.apiSecret);
  let signature: string;
  if (input.version === "v2") {
    if (!input.method || !input.path) throw new Error("v2 signatures need the method and the path");
    hmac.update(`${timestamp}.${input.method.toUpperCase()}.${input.path}.${input.body}`);
    signature = `v2=${hmac.digest("hex")}`;
  } else {
    hmac.update(`${timestamp}.${input.body}`);
    signature = `sha256=${hmac.digest("hex")}`;
  }
  return { "X-API-Key": input.apiKey, "X-Timestamp": timestamp, "X-Signature": signature };
}
