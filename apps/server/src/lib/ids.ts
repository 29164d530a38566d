import { randomBytes, randomUUID } from "node:crypto";

export const newId = (): string => randomUUID();

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** URL-safe random token of `bytes` random bytes. */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}

const REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A short code a customer can type into a bank transfer note (no 0/O, 1/I confusion). */
export function shortReference(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const b of bytes) out += REFERENCE_ALPHABET[b % REFERENCE_ALPHABET.length];
  return out;
}
