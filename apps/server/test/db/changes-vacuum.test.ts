/**
 * The fold job vacuums a changes table when it folded changes of it since the last vacuum, at
 * most once every VACUUM_INTERVAL_MS (db/kept-totals.ts `tidyChanges`): a total's read then no
 * longer steps over the index entries of the folded changes. On both stores.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Db } from "../../src/db/handles.ts";
import { tidyChanges, VACUUM_INTERVAL_MS } from "../../src/db/kept-totals.ts";
import { countedTotal, foldListCounts, LIST_COUNTS } from "../../src/db/list-counts.ts";
import { keptTotalsFoldJob } from "../../src/jobs/kept-totals.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { statementsOf } from "../helpers/statements.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.close();
});

/** Appends `count` list-count changes of `merchantId`, as the payments trigger would. */
async function appendChanges(db: Db, merchantId: string, count: number): Promise<void> {
  await sql`INSERT INTO list_count_changes (merchant_id, resource, status, variant, delta)
    SELECT ${merchantId}::uuid, 'payments', 'requires_action', 'promptpay', 1 FROM generate_series(1, ${count})`.execute(
    db,
  );
}

/** Buffers (pages) the read of `merchantId`'s payments total touches, from EXPLAIN. */
async function pagesRead(db: Db, merchantId: string): Promise<number> {
  const total = countedTotal({ resource: "payments", merchantId });
  const plan = await sql<
    Record<string, string>
  >`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT ${total}`.execute(db);
  const lines = plan.rows.map((row) => Object.values(row)[0]!);
  const buffers = lines.find((line) => line.includes("Buffers:")) ?? "";
  return [...buffers.matchAll(/(?:hit|read)=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

async function foldAll(db: Db): Promise<number> {
  let folded = 0;
  for (let n = await foldListCounts(db); n > 0; n = await foldListCounts(db)) folded += n;
  return folded;
}

/**
 * The store's handle under a key of its own: when a changes table was last vacuumed is kept per
 * handle, so each test starts with none.
 */
function freshHandle(): Db {
  return svc.deps.db.withoutPlugins();
}

describe("vacuuming folded changes", () => {
  it("a total read steps over folded changes until the changes table is vacuumed, then not", async () => {
    const db = freshHandle();
    const { merchantId } = await svc.newMerchant();
    await appendChanges(db, merchantId, 6_000);
    assert.equal(await foldAll(db), 6_000);
    const before = await pagesRead(db, merchantId);
    assert.ok(before >= 8, `the folded changes' entries are stepped over: ${before} pages`);
    assert.equal(await tidyChanges(db, LIST_COUNTS, 6_000), true);
    const afterVacuum = await pagesRead(db, merchantId);
    assert.ok(afterVacuum <= 3, `after the vacuum the read touches ${afterVacuum} pages (was ${before})`);
  });

  it("keeps the changes tables' pages: a vacuum frees the folded rows' space but takes no lock to truncate", async () => {
    const db = freshHandle();
    const { merchantId } = await svc.newMerchant();
    const sizeOf = async (table: string) =>
      Number(
        (await sql<{ bytes: string }>`SELECT pg_relation_size(${table})::text AS bytes`.execute(db)).rows[0]!
          .bytes,
      );
    await appendChanges(db, merchantId, 3_000);
    await foldAll(db);
    const folded = await sizeOf("list_count_changes");
    assert.ok(folded > 0);
    assert.equal(await tidyChanges(db, LIST_COUNTS, 3_000), true);
    // A truncating vacuum would leave 0 bytes: its empty pages are kept for the next changes.
    assert.equal(await sizeOf("list_count_changes"), folded);
    await appendChanges(db, merchantId, 3_000);
    await foldAll(db);
    await sql`VACUUM "list_count_changes"`.execute(db);
    assert.equal(await sizeOf("list_count_changes"), folded, "the freed pages were reused, not added to");
    for (const table of ["list_count_changes", "withdraw_day_changes"]) {
      const options = await sql<{ reloptions: string[] | null }>`SELECT reloptions FROM pg_class
        WHERE relname = ${table}`.execute(db);
      assert.deepEqual(options.rows[0]!.reloptions, ["vacuum_truncate=false"], table);
    }
  });

  it("vacuums when changes were folded since the last vacuum, at most once per interval", async () => {
    const db = freshHandle();
    const kept = { changes: "list_count_changes" as const };
    const vacuumsOf = async (folded: number, now: number) => {
      const run = await statementsOf(() => tidyChanges(db, kept, folded, now));
      const sent = run.statements.filter((s) => /vacuum/i.test(s));
      assert.equal(sent.length, run.result ? 1 : 0);
      if (run.result) assert.equal(sent[0], 'VACUUM (SKIP_LOCKED) "list_count_changes"');
      return run.result;
    };
    const t = 1_000_000;
    assert.equal(await vacuumsOf(5, t), true, "folded changes, no vacuum for an interval");
    assert.equal(await vacuumsOf(5, t + VACUUM_INTERVAL_MS - 1), false, "one ms short of the interval");
    assert.equal(await vacuumsOf(0, t + VACUUM_INTERVAL_MS), true, "the changes folded meanwhile");
    assert.equal(await vacuumsOf(0, t + 10 * VACUUM_INTERVAL_MS), false, "nothing folded since");
    assert.equal(await vacuumsOf(1, t + 11 * VACUUM_INTERVAL_MS), true);
  });

  it("never vacuums inside a transaction", async () => {
    const db = freshHandle();
    const inside = await db.transaction().execute((trx) => tidyChanges(trx, LIST_COUNTS, 10));
    assert.equal(inside, false);
  });

  it("the fold job vacuums the changes it folded", async () => {
    const db = freshHandle();
    const { merchantId } = await svc.newMerchant();
    await appendChanges(db, merchantId, 2_000);
    const run = await statementsOf(async () => {
      let folded = 0;
      for (
        let n = await keptTotalsFoldJob.runOnce({ db });
        n > 0;
        n = await keptTotalsFoldJob.runOnce({ db })
      ) {
        folded += n;
      }
      return folded;
    });
    assert.equal(run.result, 2_000);
    assert.deepEqual(
      run.statements.filter((s) => /vacuum/i.test(s)),
      ['VACUUM (SKIP_LOCKED) "list_count_changes"'],
    );
    // The total's index page or two and the changes index's root and leaf, nothing folded.
    const pagesAfter = await pagesRead(db, merchantId);
    assert.ok(pagesAfter <= 4, `${pagesAfter} pages`);
  });
});
