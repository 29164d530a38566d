/**
 * Secrets at rest: AES-256-GCM under the service's SECRET_KEY, and the hashing and
 * constant-time comparison used for tokens and signatures.
 */
import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = "v1";

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error("SecretBox needs a 32-byte key");
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
  }

  open(sealed: string): string {
    const [format, payload] = sealed.split(":");
    if (format !== FORMAT || payload === undefined) throw new Error("unknown secret format");
    const raw = Buffer.from(payload, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  }
}

/** SHA-256 of the text's UTF-8 bytes, as hex. One call, no Hash object (a third of the time). */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

/** Compares two strings in time that depends only on their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** A stable hash of parsed JSON: key order and whitespace do not change it. */
export function canonicalJsonHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * Parsed JSON as text with every object's keys in UTF-16 code unit order and no whitespace; a key
 * whose value is undefined is left out. Stored request hashes were made from this exact text, so
 * it must never change (test/lib/canonical-json.test.ts). Built by appending, with no array of
 * entries per object: it runs on every create's body.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let text = "[";
    for (let i = 0; i < value.length; i += 1) text += (i > 0 ? "," : "") + canonicalJson(value[i]);
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  // sort()'s default order compares strings by UTF-16 code units, as `<` does.
  const keys = Object.keys(record).sort();
  let text = "{";
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    text += `${text.length > 1 ? "," : ""}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${text}}`;
}
