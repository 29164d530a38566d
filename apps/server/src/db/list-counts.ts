/**
 * Exact list totals from counts kept by the database (migration 0050_list_counts): a payments or
 * withdraws list filtered by nothing but status and method (or destination type) reads its
 * `total` from a few count rows instead of counting the merchant's rows.
 *
 * The total is the folded counts plus the changes appended since, read in one statement, so it
 * is exact at every moment; `foldListCounts` (a background job) keeps the appended changes few.
 */
import { type Expression, sql } from "kysely";
import type { Db } from "./handles.ts";
import type { CountedList } from "./types.ts";

/** The filters a kept count can answer: the merchant, and optionally a status and a variant. */
export interface CountedFilters {
  resource: CountedList;
  merchantId: string;
  status?: string | undefined;
  /** A payment's method or a withdraw's destination type. */
  variant?: string | undefined;
}

/** How many changes one fold moves: a bounded statement, repeated while changes remain. */
export const LIST_COUNT_FOLD_BATCH = 5_000;

/** The exact number of rows matching `filters`, as an expression for a page's statement. */
export function countedTotal(filters: CountedFilters): Expression<bigint> {
  const where = (table: "list_counts" | "list_count_changes") => {
    const status =
      filters.status === undefined ? sql`` : sql` AND ${sql.ref(`${table}.status`)} = ${filters.status}`;
    const variant =
      filters.variant === undefined ? sql`` : sql` AND ${sql.ref(`${table}.variant`)} = ${filters.variant}`;
    return sql`${sql.ref(`${table}.merchant_id`)} = ${filters.merchantId} AND ${sql.ref(`${table}.resource`)} = ${filters.resource}${status}${variant}`;
  };
  return sql<bigint>`(coalesce((SELECT sum(n) FROM list_counts WHERE ${where("list_counts")}), 0)
    + coalesce((SELECT sum(delta) FROM list_count_changes WHERE ${where("list_count_changes")}), 0))`;
}

/**
 * Folds the oldest appended changes into the counts, in one statement: the changes it takes
 * are deleted and added to their counts atomically, so a reader sees them in one place or the
 * other, never both or neither. Concurrent folds take different changes (`SKIP LOCKED`) and
 * update counts in one order, so they neither double-count nor deadlock. Returns how many
 * changes it folded.
 */
export async function foldListCounts(db: Db, batch = LIST_COUNT_FOLD_BATCH): Promise<number> {
  const result = await sql<{ folded: string }>`
    WITH taken AS (
      SELECT id FROM list_count_changes ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED
    ), moved AS (
      DELETE FROM list_count_changes c USING taken WHERE c.id = taken.id
      RETURNING c.merchant_id, c.resource, c.status, c.variant, c.delta
    ), folded AS (
      INSERT INTO list_counts AS counts (merchant_id, resource, status, variant, n)
      SELECT merchant_id, resource, status, variant, sum(delta) FROM moved
      GROUP BY merchant_id, resource, status, variant
      ORDER BY merchant_id, resource, status, variant
      ON CONFLICT (merchant_id, resource, status, variant) DO UPDATE SET n = counts.n + excluded.n
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM moved) AS folded
  `.execute(db);
  return Number(result.rows[0]?.folded ?? 0);
}
