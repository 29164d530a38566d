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
import { foldKeptTotals, type KeptTotals } from "./kept-totals.ts";
import type { CountedList } from "./types.ts";

/** The filters a kept count can answer: the merchant, and optionally a status and a variant. */
export interface CountedFilters {
  resource: CountedList;
  merchantId: string;
  status?: string | undefined;
  /** A payment's method or a withdraw's destination type. */
  variant?: string | undefined;
}

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

export const LIST_COUNTS: KeptTotals = {
  changes: "list_count_changes",
  totals: "list_counts",
  keys: ["merchant_id", "resource", "status", "variant"],
  delta: "delta",
  total: "n",
};

/** Folds appended list-count changes into the counts (db/kept-totals.ts); how many it folded. */
export function foldListCounts(db: Db, batch?: number): Promise<number> {
  return foldKeptTotals(db, LIST_COUNTS, batch);
}
