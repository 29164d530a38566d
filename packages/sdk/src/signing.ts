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
 * The server accepts a signed write once: it records the (API key, timestamp, signature) triple
 * and refuses it again. So `signRequest` never hands out one triple twice in a process: requests
 * that differ (their body, or for v2 their method or path) may share a millisecond, and only the
 * same request signed again within one gets the next millisecond. Timestamps never go back, and
 * they stay at the clock's however many different requests a process signs a second (a plain
 * "next millisecond each time" would run ahead of the clock by a second for each thousand
 * requests above a thousand a second, and past the server's 5 minutes within minutes).
 */
import { createHmac } from "node:crypto";

/** The newest timestamp handed out, by either function below. */
let lastTimestamp = 0;
/** Up to here, timestamps were handed out whole by `nextTimestamp` (for signing by hand). */
let wholeUntil = 0;
/** The API key and signature of each request `signRequest` signed at `lastTimestamp`. */
let signedAtLast = new Set<string>();

/**
 * Unix milliseconds, strictly increasing across calls in this process, for signing by hand: a
 * timestamp it hands out is the caller's whole, and `signRequest` never signs with it.
 */
export function nextTimestamp(now: number = Date.now()): number {
  lastTimestamp = Math.max(now, lastTimestamp + 1);
  wholeUntil = lastTimestamp;
  signedAtLast = new Set();
  return lastTimestamp;
}

/** The timestamp and signature of a request: never a pair this process handed out for the key. */
function freshlySigned(
  apiKey: string,
  sign: (timestamp: number) => string,
): { timestamp: number; signature: string } {
  let timestamp = Math.max(Date.now(), lastTimestamp, wholeUntil + 1);
  for (;;) {
    const signature = sign(timestamp);
    if (timestamp > lastTimestamp) {
      lastTimestamp = timestamp;
      signedAtLast = new Set();
    }
    const used = `${apiKey}\n${signature}`;
    if (!signedAtLast.has(used)) {
      signedAtLast.add(used);
      return { timestamp, signature };
    }
    timestamp += 1;
  }
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
  const version = input.version ?? (input.method && input.path ? "v2" : "v1");
  if (version !== "v1" && version !== "v2") {
    throw new TypeError(`version must be "v1" or "v2", got ${JSON.stringify(version)}`);
  }
  const { method, path } = input;
  if (version === "v2" && (!method || !path)) throw new Error("v2 signatures need the method and the path");
  const sign = (timestamp: number): string => {
    const hmac = createHmac("sha256", input.apiSecret);
    if (version === "v1") return `sha256=${hmac.update(`${timestamp}.${body}`).digest("hex")}`;
    return `v2=${hmac.update(`${timestamp}.${method!.toUpperCase()}.${path}.${body}`).digest("hex")}`;
  };
  const signed =
    input.timestamp === undefined
      ? freshlySigned(input.apiKey, sign)
      : { timestamp: input.timestamp, signature: sign(input.timestamp) };
  return {
    "X-API-Key": input.apiKey,
    "X-Timestamp": String(signed.timestamp),
    "X-Signature": signed.signature,
  };
}
