import { randomFillSync, randomUUID } from "node:crypto";

export const newId = (): string => randomUUID();

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/**
 * Random bytes from the system's CSPRNG, drawn a few kilobytes at a time (as `randomUUID`
 * does): one draw per token cost more than the rest of a payment's row. Each byte is handed out
 * once; the answer is a copy, never a view of the pool.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomBytesFromPool(bytes: number): Buffer {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes));
  if (poolOffset + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + bytes));
  pool.fill(0, poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return out;
}

/** URL-safe random token of `bytes` random bytes. */
export function randomToken(bytes: number): string {
  return randomBytesFromPool(bytes).toString("base64url");
}

const REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A short code a customer can type into a bank transfer note (no 0/O, 1/I confusion). */
export function shortReference(length: number): string {
  const bytes = randomBytesFromPool(length);
  let out = "";
  for (const b of bytes) out += REFERENCE_ALPHABET[b % REFERENCE_ALPHABET.length];
  return out;
}
