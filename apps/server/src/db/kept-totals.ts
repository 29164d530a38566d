/**
 * Totals the database keeps beside the rows they count (list counts, db/list-counts.ts; the
 * withdraws' per-day limit capacity, withdraws/store.ts): triggers append each statement's
 * differences to a changes table, taking no lock a request waits for, and a job folds them into
 * the totals table. A reader sums both, so a total is exact whether or not the fold has run.
 *
 * A fold deletes the changes it takes, and a deleted row's index entry stays until the table is
 * vacuumed. The readers find a merchant's changes through the changes table's index, so between
 * two vacuums each read also steps over every change folded since: after 40,000 payment
 * creates, a list's total read 50 index pages to find no live change, and a list cost
 * PostgreSQL 0.25 ms more (docs/PERFORMANCE.md). Autovacuum looks at a table once a minute at
 * best (its naptime), and had not vacuumed it a minute after that load. So the fold job
 * vacuums a changes table itself (`tidyChanges`): at most once every VACUUM_INTERVAL_MS,
 * whenever it folded changes of it since the last time. A vacuum of a changes table is small
 * (its live rows are the few changes not folded yet) and takes no lock a write or a fold waits
 * for: the tables keep their empty pages (`vacuum_truncate = false`, migration 0108), since
 * truncating them would take the lock every write waits behind, each second.
 */
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import type { Db } from "./handles.ts";

/** A changes table and the totals table it folds into. */
export interface KeptTotals {
  changes: "list_count_changes" | "withdraw_day_changes";
  totals: "list_counts" | "withdraw_day_totals";
  /** The columns both tables share that identify a total (the totals table's primary key). */
  keys: readonly string[];
  /** The changes' difference column and the totals' sum column. */
  delta: string;
  total: string;
}

/** How many changes one fold moves: a bounded statement, repeated while changes remain. */
export const FOLD_BATCH = 5_000;

/** The shortest time between two vacuums of one changes table by one process. */
export const VACUUM_INTERVAL_MS = 1_000;

/**
 * Folds the oldest appended changes into their totals, in one statement: the changes it takes
 * are deleted and added to their totals atomically, so a reader sees each change in exactly one
 * of the two tables. Concurrent folds take different changes (`SKIP LOCKED`) and update totals in
 * key order, so they neither double-count nor deadlock. Returns how many changes it folded.
 */
export async function foldKeptTotals(db: Db, kept: KeptTotals, batch = FOLD_BATCH): Promise<number> {
  const keys = sql.join(kept.keys.map((key) => sql.ref(key)));
  const movedKeys = sql.join(kept.keys.map((key) => sql.ref(`c.${key}`)));
  const result = await sql<{ folded: string }>`
    WITH taken AS (
      SELECT id FROM ${sql.table(kept.changes)} ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED
    ), moved AS (
      DELETE FROM ${sql.table(kept.changes)} c USING taken WHERE c.id = taken.id
      RETURNING ${movedKeys}, ${sql.ref(`c.${kept.delta}`)} AS delta
    ), folded AS (
      INSERT INTO ${sql.table(kept.totals)} AS totals (${keys}, ${sql.ref(kept.total)})
      SELECT ${keys}, sum(delta) FROM moved GROUP BY ${keys} ORDER BY ${keys}
      ON CONFLICT (${keys}) DO UPDATE
        SET ${sql.ref(kept.total)} = ${sql.ref(`totals.${kept.total}`)} + ${sql.ref(`excluded.${kept.total}`)}
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM moved) AS folded
  `.execute(db);
  return Number(result.rows[0]?.folded ?? 0);
}

/** Per store and changes table: changes folded since its last vacuum, and when that was. */
const vacuums = new WeakMap<Db, Map<KeptTotals["changes"], { folded: number; at: number }>>();

/**
 * Counts `folded` changes out of `kept`'s changes table, and vacuums it when changes were folded
 * since its last vacuum and that was VACUUM_INTERVAL_MS ago or more (`now` is a monotonic time
 * in ms), so its index does not keep their entries (above). A vacuum another process is running
 * is not waited for (`SKIP_LOCKED`), and a vacuum never runs inside a transaction. Returns
 * whether it vacuumed.
 */
export async function tidyChanges(
  db: Db,
  kept: Pick<KeptTotals, "changes">,
  folded: number,
  now: number = performance.now(),
): Promise<boolean> {
  if (db.isTransaction) return false;
  let tables = vacuums.get(db);
  if (!tables) {
    tables = new Map();
    vacuums.set(db, tables);
  }
  const state = tables.get(kept.changes) ?? { folded: 0, at: Number.NEGATIVE_INFINITY };
  tables.set(kept.changes, state);
  state.folded += folded;
  if (state.folded === 0 || now - state.at < VACUUM_INTERVAL_MS) return false;
  state.folded = 0;
  state.at = now;
  await sql`VACUUM (SKIP_LOCKED) ${sql.table(kept.changes)}`.execute(db);
  return true;
}
