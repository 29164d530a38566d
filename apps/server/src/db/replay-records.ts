/**
 * The replay record of a signed write (table `signature_uses`, CONTRACT 3): one row per
 * (key, timestamp, signature), so a captured request is accepted once by any process. Written
 * on its own (`ON CONFLICT DO NOTHING`, integrations/store.ts) or inside the statement of the
 * write it protects (payments/store.ts): there as a plain INSERT in a data-modifying CTE, so a
 * signature used before fails the whole statement with a unique violation on this table and
 * nothing of the write is kept (`isReplayRecordConflict`).
 */
import type { Insertable } from "kysely";
import type { SignatureUsesTable } from "./types.ts";

/** One signed write, recorded so that it is accepted once. */
export interface SignatureUse {
  apiKey: string;
  timestampMs: bigint;
  signature: string;
  expiresAt: Date;
}

/** The row of a signature use. */
export function replayRecordRow(use: SignatureUse): Insertable<SignatureUsesTable> {
  return {
    api_key: use.apiKey,
    timestamp_ms: use.timestampMs,
    signature: use.signature,
    expires_at: use.expiresAt,
  };
}

/** True when `error` is the unique violation of a replay record written before (23505). */
export function isReplayRecordConflict(error: unknown): boolean {
  const fields = error as { code?: unknown; table?: unknown; constraint?: unknown } | null;
  if (fields?.code !== "23505") return false;
  return fields.table === "signature_uses" || fields.constraint === "signature_uses_pkey";
}
