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
import { type Db, withTransaction } from "./handles.ts";
import { runTogether, runTogetherAndCommit, type Statement, transactionSettings } from "./pg-driver.ts";

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
 * It runs in a transaction of its own, its plan settings and COMMIT sent with it in one round
 * trip on PostgreSQL; on a transaction it runs in that, whose plan settings it then changes.
 */
export async function foldKeptTotals(db: Db, kept: KeptTotals, batch = FOLD_BATCH): Promise<number> {
  if (db.isTransaction) {
    const [, folded] = await runTogether(db, ...foldStatements(db, kept, batch));
    return folded;
  }
  return withTransaction(db, async (trx) => {
    const [, folded] = await runTogetherAndCommit(trx, ...foldStatements(trx, kept, batch));
    return folded;
  });
}

/**
 * The fold's plan settings: no sequential scan, so the changes taken are read by their row
 * addresses (a TID scan of the locked rows' `ctid`s; a locked row cannot move, and changes are
 * never updated), and the fold's cost is linear in the changes it takes whatever the table's
 * statistics say. The fold and its vacuums keep a changes table nearly empty, so the
 * statistics count a handful of rows on pages kept for more (`vacuum_truncate = false`), and
 * the planner, left to itself, matched the taken changes by a search of all of them for each
 * row: as a join of their ids, a nested loop comparing every change with every taken id (637
 * ms for a backlog of 2,000 changes, against 8.5 ms by address; docs/PERFORMANCE.md), and by
 * address without these settings, a sequential scan testing each row against every address.
 */
export const FOLD_PLAN_SETTINGS = { enable_seqscan: "off" } as const;

/** `foldKeptTotals`'s statements: its plan settings, then the fold (how many it folded). */
export function foldStatements(
  db: Db,
  kept: KeptTotals,
  batch = FOLD_BATCH,
): [Statement<void>, Statement<number>] {
  const keys = sql.join(kept.keys.map((key) => sql.ref(key)));
  const movedKeys = sql.join(kept.keys.map((key) => sql.ref(`c.${key}`)));
  const fold = sql<{ folded: string }>`
    WITH moved AS (
      DELETE FROM ${sql.table(kept.changes)} c
      WHERE c.ctid = ANY (ARRAY(
        SELECT ctid FROM ${sql.table(kept.changes)} ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED
      ))
      RETURNING ${movedKeys}, ${sql.ref(`c.${kept.delta}`)} AS delta
    ), folded AS (
      INSERT INTO ${sql.table(kept.totals)} AS totals (${keys}, ${sql.ref(kept.total)})
      SELECT ${keys}, sum(delta) FROM moved GROUP BY ${keys} ORDER BY ${keys}
      ON CONFLICT (${keys}) DO UPDATE
        SET ${sql.ref(kept.total)} = ${sql.ref(`totals.${kept.total}`)} + ${sql.ref(`excluded.${kept.total}`)}
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM moved) AS folded
  `;
  return [
    transactionSettings(db, FOLD_PLAN_SETTINGS),
    {
      query: fold.compile(db),
      decode: (result) => Number((result.rows[0] as { folded: string } | undefined)?.folded ?? 0),
    },
  ];
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
