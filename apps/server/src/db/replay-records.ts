/**
 * The replay record of a signed write (table `signature_uses`, CONTRACT 3): one row per
 * (key, timestamp, signature), so a captured request is accepted once by any process. Written
 * on its own (`ON CONFLICT DO NOTHING`, integrations/store.ts) or inside the statement of the
 * write it protects (payments/store.ts): there as a plain INSERT in a data-modifying CTE, so a
 * signature used before fails the whole statement with a unique violation on this table and
 * nothing of the write is kept (`isReplayRecordConflict`).
 */
import { type Insertable, sql } from "kysely";
import { cachedStatement } from "./compiled.ts";
import type { Db } from "./handles.ts";
import { poolQueueBound, StatementGroup, type StatementGroupOptions } from "./statement-group.ts";
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

/** The most replay records in one grouped INSERT, and grouped INSERTs in flight, per store. */
export const REPLAY_RECORD_GROUP_ITEMS_MAX = 64;
export const REPLAY_RECORD_GROUPS_IN_FLIGHT_MAX = 2;
/**
 * How long records that arrive while a group is in flight wait for it to end before a group goes
 * beside it (db/statement-group.ts `busyHoldMs`), as payment creates wait (payments/store.ts
 * `PAYMENT_GROUP_BUSY_HOLD_MS`). A group's INSERT commits on its own, and under a load of v1
 * reads its commit, not its rows, is most of what a record costs PostgreSQL: held, the records
 * go in fewer and larger groups (docs/PERFORMANCE.md, "Evening"). A record alone on a quiet
 * service is sent at once, and a slow group delays the next by at most this.
 */
export const REPLAY_RECORD_GROUP_BUSY_HOLD_MS = 2;

/** Replay records in one statement, whatever their number: the fields go as four arrays. */
const recordUsesStatement = cachedStatement<
  { apiKeys: string[]; timestamps: string[]; signatures: string[]; expiries: string[] },
  { api_key: string; timestamp_ms: bigint | string; signature: string }
>(["apiKeys", "timestamps", "signatures", "expiries"], (db, params) =>
  db
    .insertInto("signature_uses")
    .columns(["api_key", "timestamp_ms", "signature", "expires_at"])
    .expression(
      sql`select * from unnest(${params.apiKeys}::text[], ${params.timestamps}::bigint[],
        ${params.signatures}::text[], ${params.expiries}::timestamptz[])`,
    )
    .onConflict((oc) => oc.doNothing())
    .returning(["api_key", "timestamp_ms", "signature"]),
);

const keyOf = (apiKey: string, timestampMs: bigint | string, signature: string) =>
  `${apiKey}\n${String(timestampMs)}\n${signature}`;

/**
 * Records every use of `uses` in one `INSERT ... ON CONFLICT DO NOTHING`, committed on its own:
 * for each, true when it was new. One signature twice in the list is new once, for the first.
 */
export async function recordUses(db: Db, uses: readonly SignatureUse[]): Promise<boolean[]> {
  const { rows } = await recordUsesStatement.execute(db, {
    apiKeys: uses.map((use) => use.apiKey),
    timestamps: uses.map((use) => String(use.timestampMs)),
    signatures: uses.map((use) => use.signature),
    expiries: uses.map((use) => use.expiresAt.toISOString()),
  });
  const inserted = new Set(rows.map((row) => keyOf(row.api_key, row.timestamp_ms, row.signature)));
  return uses.map((use) => {
    const key = keyOf(use.apiKey, use.timestampMs, use.signature);
    return inserted.delete(key);
  });
}

/** One replay record, built once (db/compiled.ts): a group of one runs it, on every quiet moment. */
const recordUseStatement = cachedStatement<
  { apiKey: string; timestampMs: bigint; signature: string; expiresAt: Date },
  { inserted: number }
>(["apiKey", "timestampMs", "signature", "expiresAt"], (db, params) =>
  db
    .insertInto("signature_uses")
    .values(replayRecordRow(params))
    .onConflict((oc) => oc.doNothing())
    .returning(sql<number>`1`.as("inserted")),
);

/** Records one use on its own: false when the same signature was used before. */
export async function recordUse(db: Db, use: SignatureUse): Promise<boolean> {
  const { rows } = await recordUseStatement.execute(db, {
    apiKey: use.apiKey,
    timestampMs: use.timestampMs,
    signature: use.signature,
    expiresAt: use.expiresAt,
  });
  return rows.length > 0;
}

const recordGroups = new WeakMap<Db, StatementGroup<SignatureUse, boolean>>();

/** How the replay records of one store are grouped: at most, in flight, and held. */
export const REPLAY_RECORD_GROUPING = {
  maxItems: REPLAY_RECORD_GROUP_ITEMS_MAX,
  maxInFlight: REPLAY_RECORD_GROUPS_IN_FLIGHT_MAX,
  busyHoldMs: REPLAY_RECORD_GROUP_BUSY_HOLD_MS,
} as const satisfies Partial<StatementGroupOptions<SignatureUse, boolean>>;

/**
 * `recordUse`, sent together with the other replay records of this process that arrive at the
 * same time (db/statement-group.ts): the same answer, one statement and one commit for the
 * group. A v1-signed read records its signature this way (http/auth.ts), as do signed writes
 * whose routes do not record it in their own transaction. On a transaction it runs alone, in it.
 */
export function recordUseGrouped(db: Db, use: SignatureUse): Promise<boolean> {
  if (db.isTransaction) return recordUse(db, use);
  let group = recordGroups.get(db);
  if (!group) {
    group = new StatementGroup({
      runGroup: (uses) => recordUses(db, uses),
      runOne: (one) => recordUse(db, one),
      ...REPLAY_RECORD_GROUPING,
      ...poolQueueBound(db),
    });
    recordGroups.set(db, group);
  }
  return group.submit(use);
}
