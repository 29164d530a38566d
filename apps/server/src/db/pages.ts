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
 * - The payments and withdraws lists build and compile their page statement once per shape
 *   and reuse it (`merchantListPages`, db/compiled.ts).
 * - Their pages asked at the same moment are read together (`merchantListPages`): one round
 *   trip for the group, and one statement for each distinct page asked, however many requests
 *   asked it.
 */
import { type Expression, type RawBuilder, type Selectable, type SelectQueryBuilder, sql } from "kysely";
import { type CachedStatement, cachedStatement } from "./compiled.ts";
import type { Db } from "./handles.ts";
import { countedTotal } from "./list-counts.ts";
import { runTogether } from "./pg-driver.ts";
import { poolQueueBound, StatementGroup } from "./statement-group.ts";
import type { CountedList, Database } from "./types.ts";

type SortDirection = "asc" | "desc";

/** How a page is ordered: one column and the `id` tie-break, both in `direction`. */
export interface Ordering {
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

/** The count of `query`'s rows, as `n`. */
function countOf<TB extends keyof Database>(query: SelectQueryBuilder<Database, TB, object>) {
  return query.select((eb) => eb.fn.countAll<bigint>().as("n"));
}

/**
 * The statement of a page: `query` (already filtered, nothing selected yet) at `window`, in
 * `order`, each row carrying the total (an uncorrelated subquery, counted once, or the count
 * the database keeps for these filters: db/list-counts.ts).
 */
function pageStatement<TB extends keyof Database>(
  query: SelectQueryBuilder<Database, TB, object>,
  window: { offset: number | RawBuilder<number>; limit: number | RawBuilder<number> },
  order: Ordering,
  keptTotal?: Expression<bigint>,
  columns?: readonly string[],
) {
  const selected = columns
    ? query.select(columns.map((column) => sql.ref(column).as(column)))
    : query.selectAll();
  return selected
    .select(
      keptTotal === undefined ? countOf(query).as(TOTAL_COLUMN) : sql<bigint>`${keptTotal}`.as(TOTAL_COLUMN),
    )
    .orderBy(sql.ref(order.column), (ob) => {
      const directed = order.direction === "asc" ? ob.asc() : ob.desc();
      const placed = order.emptyLast ? directed.nullsLast() : directed;
      return order.byteOrder ? placed.collate("C") : placed;
    })
    .orderBy(sql.ref("id"), order.direction)
    .limit(window.limit)
    .offset(window.offset);
}

/** The total of `query` read by itself: an empty page's statement carries none. */
async function totalAlone<TB extends keyof Database>(
  query: SelectQueryBuilder<Database, TB, object>,
  keptTotal: Expression<bigint> | undefined,
): Promise<number> {
  // A kept count is read beside one matching row: none matching means the total is 0.
  const total =
    keptTotal === undefined
      ? (await countOf(query).executeTakeFirstOrThrow()).n
      : ((await query.select(sql<bigint>`${keptTotal}`.as("n")).limit(1).executeTakeFirst())?.n ?? 0);
  return Number(total);
}

/**
 * The page and the total out of the rows of a page statement. Only an empty page past the
 * first needs `countAlone`, to tell an empty list from a page past its end.
 */
async function pageOf<Row>(
  found: readonly object[],
  offset: number,
  countAlone: () => Promise<number>,
): Promise<{ rows: Row[]; total: number }> {
  if (found.length === 0) return { rows: [], total: offset === 0 ? 0 : await countAlone() };
  const total = Number((found[0] as Record<string, unknown>)[TOTAL_COLUMN]);
  const rows = found.map((row) => {
    const { [TOTAL_COLUMN]: _total, ...rest } = row as Record<string, unknown>;
    return rest;
  });
  return { rows: rows as Row[], total };
}

/**
 * The total of `query` (already filtered, nothing selected yet) and the page of its rows at
 * `window`, in `order`: one statement, a second only for an empty page past the first.
 */
export async function selectPage<DB extends Database, TB extends keyof DB & string>(
  query: SelectQueryBuilder<DB, TB, object>,
  window: { offset: number; limit: number },
  order: Ordering,
  keptTotal?: Expression<bigint>,
): Promise<{ rows: Selectable<DB[TB]>[]; total: number }> {
  // A connector's own tables (providers/<name>/db.ts) page the same way as the core's.
  const core = query as unknown as SelectQueryBuilder<Database, keyof Database, object>;
  const found = await pageStatement(core, window, order, keptTotal).execute();
  return pageOf(found, window.offset, () => totalAlone(core, keptTotal));
}

/**
 * What one request of a merchant list asks for: the values of its page statement's parameters.
 * `variant` is a payment's method or a withdraw's destination type; an undefined value filters
 * nothing.
 */
type MerchantListValues = {
  merchantId: string;
  status: string | undefined;
  variant: string | undefined;
  dateFrom: Date | undefined;
  dateTo: Date | undefined;
  limit: number;
  offset: number;
};

const MERCHANT_LIST_KEYS = [
  "merchantId",
  "status",
  "variant",
  "dateFrom",
  "dateTo",
  "limit",
  "offset",
] as const;

/** A list whose totals the database keeps (db/list-counts.ts): payments and withdraws. */
export interface MerchantList<
  TB extends CountedList,
  S extends string,
  C extends keyof Selectable<Database[TB]> & string = keyof Selectable<Database[TB]> & string,
> {
  table: TB;
  /** The column `variant` filters. */
  variantColumn: string;
  sort: SortColumns<S>;
  /**
   * The columns a page reads, when its rows need fewer than all: every column read costs the
   * driver its parsing on every row (docs/PERFORMANCE.md).
   */
  columns?: readonly C[];
}

let merchantPagesBuilt = 0;

/** How many page statements the merchant lists have built so far: tests read it to see the cache at work. */
export function merchantPageStatementsBuilt(): number {
  return merchantPagesBuilt;
}

/** The merchant's rows matching `values`, and the total kept for them when there is no date range. */
function merchantListSource<TB extends CountedList>(
  db: Db,
  list: MerchantList<TB, string>,
  values: MerchantListValues,
): { query: SelectQueryBuilder<Database, TB, object>; keptTotal: Expression<bigint> | undefined } {
  // One table of two: Kysely's types cannot follow a table name that is a type parameter.
  const table = db.selectFrom(list.table as CountedList) as SelectQueryBuilder<Database, TB, object>;
  let query = table.where(sql.ref("merchant_id"), "=", values.merchantId);
  if (values.status !== undefined) query = query.where(sql.ref("status"), "=", values.status);
  if (values.variant !== undefined) query = query.where(sql.ref(list.variantColumn), "=", values.variant);
  // Without a date range the total is the count the database keeps (db/list-counts.ts).
  const keptTotal =
    values.dateFrom === undefined && values.dateTo === undefined
      ? countedTotal({
          resource: list.table,
          merchantId: values.merchantId,
          status: values.status,
          variant: values.variant,
        })
      : undefined;
  return { query: createdWithin(query, values), keptTotal };
}

/**
 * Pages whose offset is at most this are read with their limit and offset written into the
 * statement's text; deeper pages send them as parameters.
 */
export const LITERAL_OFFSET_MAX = 500;

/**
 * Page statements with a window of their own a merchant list keeps at most; past that a page
 * goes in its shape's statement with parameters. The two lists' windows then take at most 400
 * of the 1,000 statement texts a process names (db/prepared.ts), leaving the rest to the other
 * statements.
 */
export const MERCHANT_PAGE_STATEMENTS_MAX = 200;

/**
 * The most list requests in one group, and the most groups of a list in flight at once per
 * store (each holds a pool connection for its one round trip): the bounds of grouped retrieves.
 */
export const LIST_READ_GROUP_ITEMS_MAX = 64;
export const LIST_READ_GROUPS_IN_FLIGHT_MAX = 4;

/**
 * Reads pages of a merchant list, each page statement built and compiled once per shape and
 * reused (db/compiled.ts). A shape is the order, which values are given (a filter, a date
 * bound) and, for the first pages, the window. The statement is built from markers of the given
 * values only, so a filter or bound not given is left out of it as it is from a statement built
 * from the values themselves.
 *
 * The limit and offset of a page up to LITERAL_OFFSET_MAX are written into the text, not sent
 * as parameters. PostgreSQL keeps using a named statement's custom plans, planning it again on
 * every call, when its generic plan looks costlier; and a generic plan costs `LIMIT $n` as a
 * tenth of the merchant's rows, so a list with parameters for its window was planned again on
 * every call (0.1 ms and more of PostgreSQL's CPU, most of a list's cost there; PERFORMANCE.md).
 * With the window in the text, the generic plan is the custom one and is kept after five calls.
 * At most MERCHANT_PAGE_STATEMENTS_MAX statements are kept; past that a shape's window goes as
 * parameters again, in the shape's one statement.
 */
export function merchantListPages<
  TB extends CountedList,
  S extends string,
  C extends keyof Selectable<Database[TB]> & string = keyof Selectable<Database[TB]> & string,
>(list: MerchantList<TB, S, C>) {
  const statements = new Map<string, CachedStatement<MerchantListValues, object>>();
  let windowed = 0;
  const statementOf = (
    keys: (keyof MerchantListValues)[],
    order: Ordering,
    window: { limit: number; offset: number } | undefined,
  ) =>
    cachedStatement<MerchantListValues, object>(
      window ? keys.filter((key) => key !== "limit" && key !== "offset") : keys,
      (db, markers) => {
        merchantPagesBuilt += 1;
        const { query, keptTotal } = merchantListSource(db, list, markers);
        const written = window && { limit: sql.lit(window.limit), offset: sql.lit(window.offset) };
        return pageStatement(query, written ?? markers, order, keptTotal, list.columns);
      },
    );
  const statementFor = (keys: (keyof MerchantListValues)[], order: Ordering, values: MerchantListValues) => {
    const shape = `${order.column} ${order.direction} ${keys.join(" ")}`;
    // Written into the text only as whole numbers (they come from the validated query).
    const { limit, offset } = values;
    if (
      Number.isSafeInteger(limit) &&
      Number.isSafeInteger(offset) &&
      offset >= 0 &&
      offset <= LITERAL_OFFSET_MAX
    ) {
      const key = `${shape} window ${limit} ${offset}`;
      const kept = statements.get(key);
      if (kept) return kept;
      if (windowed < MERCHANT_PAGE_STATEMENTS_MAX) {
        windowed += 1;
        const statement = statementOf(keys, order, { limit, offset });
        statements.set(key, statement);
        return statement;
      }
    }
    let statement = statements.get(shape);
    if (statement === undefined) {
      statement = statementOf(keys, order, undefined);
      statements.set(shape, statement);
    }
    return statement;
  };
  /** A page asked, and how it is told apart from the other pages asked with it. */
  interface PageAsk {
    statement: CachedStatement<MerchantListValues, object>;
    values: MerchantListValues;
    /** Equal for two asks of the same statement with the same values: they share one reading. */
    key: string;
  }
  type Page = { rows: Pick<Selectable<Database[TB]>, C>[]; total: number };
  const readOne = async (db: Db, ask: PageAsk, found: readonly object[]): Promise<Page> =>
    pageOf(found, ask.values.offset, () => {
      const { query, keptTotal } = merchantListSource(db, list, ask.values);
      return totalAlone(query, keptTotal);
    });
  /**
   * The pages of a group: each distinct page once, all of them in one round trip (db/pg-driver.ts
   * `runTogether`), each answer handed to every request that asked for it. The group is sent
   * only once every request in it was asked, so each page's snapshot is taken after every one
   * of its requests arrived, as it would have been for each alone.
   */
  const readGroup = async (db: Db, asks: readonly PageAsk[]): Promise<Page[]> => {
    const distinct = new Map<string, PageAsk>();
    for (const ask of asks) if (!distinct.has(ask.key)) distinct.set(ask.key, ask);
    const asked = [...distinct.values()];
    const found = await runTogether(
      db,
      ...asked.map((ask) => ({
        query: ask.statement.compile(db, ask.values),
        decode: (result: { rows: unknown[] }) => result.rows as object[],
      })),
    );
    const pages = new Map<string, Page>();
    await Promise.all(
      asked.map(async (ask, i) => pages.set(ask.key, await readOne(db, ask, found[i] as object[]))),
    );
    return asks.map((ask) => pages.get(ask.key)!);
  };
  const groups = new WeakMap<Db, StatementGroup<PageAsk, Page>>();
  const groupOf = (db: Db): StatementGroup<PageAsk, Page> => {
    let group = groups.get(db);
    if (!group) {
      group = new StatementGroup<PageAsk, Page>({
        runGroup: (asks) => readGroup(db, asks),
        runOne: async (ask) => readOne(db, ask, (await ask.statement.execute(db, ask.values)).rows),
        maxItems: LIST_READ_GROUP_ITEMS_MAX,
        maxInFlight: LIST_READ_GROUPS_IN_FLIGHT_MAX,
        ...poolQueueBound(db),
      });
      groups.set(db, group);
    }
    return group;
  };
  return async (
    db: Db,
    filters: Pick<MerchantListValues, "merchantId" | "status" | "variant">,
    params: Pick<MerchantListValues, "dateFrom" | "dateTo" | "limit" | "offset"> & {
      sortBy: S;
      sortOrder: SortDirection;
    },
  ): Promise<Page> => {
    const { dateFrom, dateTo, limit, offset } = params;
    const values: MerchantListValues = { ...filters, dateFrom, dateTo, limit, offset };
    const keys = MERCHANT_LIST_KEYS.filter((key) => values[key] !== undefined);
    const ordering = orderingOf(list.sort, params);
    const statement = statementFor(keys, ordering, values);
    const ask: PageAsk = {
      statement,
      values,
      key: `${ordering.column} ${ordering.direction} ${JSON.stringify(values)}`,
    };
    // Inside a transaction the page is read there, in its snapshot; outside, with the others.
    if (db.isTransaction) return readOne(db, ask, (await statement.execute(db, values)).rows);
    return groupOf(db).submit(ask);
  };
}
