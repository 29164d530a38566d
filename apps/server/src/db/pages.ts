/**
 * One page of a list and the total matching its filters: the one way every list endpoint reads
 * (payments, withdraws, events, webhook endpoints, anomalies).
 *
 * - The page and the total come back in one statement (the total as a subquery beside each
 *   row); only an empty page past the first costs a second statement, the count alone.
 * - Rows are ordered by the sort column, then by `id` in the same direction, so rows with equal
 *   sort values keep one order across pages.
 * - Text columns can sort by byte order (`COLLATE "C"`), so both stores give the same order
 *   whatever their locale; columns that can be empty sort empty values last in both
 *   directions. A column that cannot be empty is ordered without `NULLS LAST`, so an index on
 *   it serves both directions (PostgreSQL does not treat the two orders as equal by itself).
 */
import { type Expression, type Selectable, type SelectQueryBuilder, sql } from "kysely";
import type { Database } from "./types.ts";

type SortDirection = "asc" | "desc";

/** How a page is ordered: one column and the `id` tie-break, both in `direction`. */
interface Ordering {
  column: string;
  direction: SortDirection;
  /** Compare the column by bytes (text columns), not by the database's locale. */
  byteOrder?: boolean;
  /** Empty values last in both directions. */
  emptyLast?: boolean;
}

/** The columns a list may be sorted by: API field name -> column, and which are text. */
export interface SortColumns<S extends string> {
  columns: Readonly<Record<S, string>>;
  /** Fields whose column is text, compared by bytes. */
  byteOrdered: readonly S[];
  /** Fields whose column can be empty: empty values sort last in both directions. */
  emptyLast: readonly S[];
}

/** The ordering a list query asks for, by the list's sort columns. */
export function orderingOf<S extends string>(
  sort: SortColumns<S>,
  params: { sortBy: S; sortOrder: SortDirection },
): Ordering {
  return {
    column: sort.columns[params.sortBy],
    direction: params.sortOrder,
    byteOrder: sort.byteOrdered.includes(params.sortBy),
    emptyLast: sort.emptyLast.includes(params.sortBy),
  };
}

/** Keeps rows created in [from, to): the `dateFrom` and `dateTo` of every list. */
export function createdWithin<TB extends keyof Database>(
  query: SelectQueryBuilder<Database, TB, object>,
  range: { dateFrom: Date | undefined; dateTo: Date | undefined },
): SelectQueryBuilder<Database, TB, object> {
  let filtered = query;
  if (range.dateFrom !== undefined) filtered = filtered.where(sql.ref("created_at"), ">=", range.dateFrom);
  if (range.dateTo !== undefined) filtered = filtered.where(sql.ref("created_at"), "<", range.dateTo);
  return filtered;
}

/** The column the total rides in beside each row of a page; no table has a column of this name. */
const TOTAL_COLUMN = "__page_total";

/**
 * The total of `query` (already filtered, nothing selected yet) and the page of its rows at
 * `window`, in `order`.
 */
export async function selectPage<TB extends keyof Database>(
  query: SelectQueryBuilder<Database, TB, object>,
  window: { offset: number; limit: number },
  order: Ordering,
  keptTotal?: Expression<bigint>,
): Promise<{ rows: Selectable<Database[TB]>[]; total: number }> {
  const counted = query.select((eb) => eb.fn.countAll<bigint>().as("n"));
  // One statement: the page, each row carrying the total (an uncorrelated subquery, counted
  // once, or the count the database keeps for these filters: db/list-counts.ts). Only an empty
  // page needs a second one, to tell an empty list from a page past its end.
  const found = await query
    .selectAll()
    .select(keptTotal === undefined ? counted.as(TOTAL_COLUMN) : sql<bigint>`${keptTotal}`.as(TOTAL_COLUMN))
    .orderBy(sql.ref(order.column), (ob) => {
      const directed = order.direction === "asc" ? ob.asc() : ob.desc();
      const placed = order.emptyLast ? directed.nullsLast() : directed;
      return order.byteOrder ? placed.collate("C") : placed;
    })
    .orderBy(sql.ref("id"), order.direction)
    .limit(window.limit)
    .offset(window.offset)
    .execute();
  if (found.length === 0) {
    if (window.offset === 0) return { rows: [], total: 0 };
    // A kept count is read beside one matching row: none matching means the total is 0.
    const total =
      keptTotal === undefined
        ? (await counted.executeTakeFirstOrThrow()).n
        : ((await query.select(sql<bigint>`${keptTotal}`.as("n")).limit(1).executeTakeFirst())?.n ?? 0);
    return { rows: [], total: Number(total) };
  }
  const total = Number((found[0] as Record<string, unknown>)[TOTAL_COLUMN]);
  const rows = found.map((row) => {
    const { [TOTAL_COLUMN]: _total, ...rest } = row as Record<string, unknown>;
    return rest;
  });
  return { rows: rows as Selectable<Database[TB]>[], total };
}
