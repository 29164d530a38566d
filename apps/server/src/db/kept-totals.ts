/**
 * Totals the database keeps beside the rows they count (list counts, db/list-counts.ts; the
 * withdraws' per-day limit capacity, withdraws/store.ts): triggers append each statement's
 * differences to a changes table, taking no lock a request waits for, and a job folds them into
 * the totals table. A reader sums both, so a total is exact whether or not the fold has run.
 */
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
