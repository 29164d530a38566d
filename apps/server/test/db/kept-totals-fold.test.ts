/**
 * A fold's cost is linear in the changes it takes, whatever the changes table's statistics say
 * (db/kept-totals.ts `foldStatement`). The fold and its vacuums keep a changes table nearly
 * empty, so its statistics count it so; a backlog (the workers stopped for a while, a burst of
 * writes) then meets a plan made for a handful of rows. As a join of the taken ids with the
 * table, that plan was a nested loop comparing every change with every taken id (2,000 changes:
 * 4,000,000 comparisons, 637 ms). On both stores.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Db } from "../../src/db/handles.ts";
import { withTransaction } from "../../src/db/handles.ts";
import { foldKeptTotals, foldStatements, type KeptTotals } from "../../src/db/kept-totals.ts";
import { LIST_COUNTS } from "../../src/db/list-counts.ts";
import { runTogether } from "../../src/db/pg-driver.ts";
import { newId } from "../../src/lib/ids.ts";
import { WITHDRAW_DAY_TOTALS } from "../../src/withdraws/store.ts";
import { startService, type TestService } from "../helpers/harness.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

const CHANGES = 2_000;
const KEYS = 1_000;

/** Appends CHANGES changes over KEYS totals of `kept`, each of +1. */
async function appendBacklog(db: Db, kept: KeptTotals, merchantIds: string[]): Promise<void> {
  const ids = sql`unnest(${merchantIds}::uuid[])`;
  const rows =
    kept === LIST_COUNTS
      ? sql`INSERT INTO list_count_changes (merchant_id, resource, status, variant, delta)
          SELECT m, 'payments', 'requires_action', 'promptpay', 1 FROM ${ids} AS m, generate_series(1, 2)`
      : sql`INSERT INTO withdraw_day_changes (merchant_id, day, amount_satang)
          SELECT m, DATE '2026-12-01', 1 FROM ${ids} AS m, generate_series(1, 2)`;
  await rows.execute(db);
}

/** The fold's plan as it ran (EXPLAIN ANALYZE runs it), with its settings, one line per node. */
async function foldPlan(db: Db, kept: KeptTotals): Promise<string[]> {
  return withTransaction(db, async (trx) => {
    const [settings, fold] = foldStatements(trx, kept);
    const explain = { ...fold.query, sql: `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${fold.query.sql}` };
    const [, lines] = await runTogether(trx, settings, {
      query: explain,
      decode: (result) => (result.rows as Record<string, string>[]).map((row) => Object.values(row)[0]!),
    });
    return lines;
  });
}

/** Leaves `kept`'s changes table as the fold's own vacuums leave it, then appends a backlog. */
async function backlogAfterVacuum(db: Db, kept: KeptTotals, merchantIds: string[]): Promise<void> {
  // Pages kept (vacuum_truncate = false), no live change in them: the statistics count none.
  await appendBacklog(db, kept, merchantIds);
  await sql`DELETE FROM ${sql.table(kept.changes)}`.execute(db);
  await sql`VACUUM ANALYZE ${sql.table(kept.changes)}`.execute(db);
  await appendBacklog(db, kept, merchantIds);
}

async function totalsOf(db: Db, kept: KeptTotals, merchantIds: string[]): Promise<number[]> {
  const table = sql.table(kept.totals);
  const column = sql.ref(kept.total);
  const result = await sql<{ n: string }>`SELECT ${column}::text AS n FROM ${table}
    WHERE merchant_id = ANY (${merchantIds}::uuid[]) ORDER BY merchant_id`.execute(db);
  return result.rows.map((row) => Number(row.n));
}

describe("folding a backlog of changes", () => {
  for (const kept of [LIST_COUNTS, WITHDRAW_DAY_TOTALS]) {
    it(`${kept.changes}: takes each change by its address, however few rows the statistics count`, async () => {
      const db = svc.deps.db;
      const merchantIds = Array.from({ length: KEYS }, () => newId()).sort();
      await backlogAfterVacuum(db, kept, merchantIds);

      const plan = await foldPlan(db, kept);
      const text = plan.join("\n");
      assert.match(text, /Tid Scan on \w+ c\b/, text);
      assert.doesNotMatch(text, /Join Filter/, text);
      assert.doesNotMatch(text, /Nested Loop/, text);
      // It folded the whole backlog, each total once per change.
      const removed = /Delete on \w+ c \(actual rows=(\d+)/.exec(text);
      assert.equal(Number(removed?.[1]), CHANGES, text);
      assert.deepEqual(
        await totalsOf(db, kept, merchantIds),
        merchantIds.map(() => CHANGES / KEYS),
      );
      const left = await sql<{
        n: string;
      }>`SELECT count(*)::text AS n FROM ${sql.table(kept.changes)}`.execute(db);
      assert.equal(Number(left.rows[0]!.n), 0);
    });

    it(`${kept.changes}: the fold moves a backlog whole, each change to its total once`, async () => {
      const db = svc.deps.db;
      const merchantIds = Array.from({ length: KEYS }, () => newId()).sort();
      await backlogAfterVacuum(db, kept, merchantIds);
      assert.equal(await foldKeptTotals(db, kept, 1_500), 1_500);
      assert.equal(await foldKeptTotals(db, kept, 1_500), CHANGES - 1_500);
      assert.equal(await foldKeptTotals(db, kept, 1_500), 0);
      assert.deepEqual(
        await totalsOf(db, kept, merchantIds),
        merchantIds.map(() => CHANGES / KEYS),
      );
    });
  }
});
