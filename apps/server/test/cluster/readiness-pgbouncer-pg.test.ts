/**
 * Readiness behind a transaction-pooling PgBouncer (DATABASE_DIRECT_URL set): a pool whose every
 * server connection is held by a long transaction does not make the node unready while
 * PostgreSQL answers; a PgBouncer that is gone does. PostgreSQL only; a missing PgBouncer fails
 * the suite, it never skips it.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import pg from "pg";
import { openStore, type Store } from "../../src/db/connect.ts";
import { type PgBouncer, startPgBouncer } from "../helpers/pgbouncer.ts";
import { describeOnPostgres, openTestStore, type TestStore } from "../helpers/store.ts";

describeOnPostgres("/readyz's database check behind PgBouncer", () => {
  let direct: TestStore;
  let bouncer: PgBouncer;
  let pooled: Store;
  before(async () => {
    direct = await openTestStore({ poolSize: 2 });
    const database = new URL(direct.databaseUrl!).pathname.slice(1);
    // One server connection in all: a single long transaction fills the pool.
    bouncer = await startPgBouncer(direct.databaseUrl!, 1);
    pooled = await openStore({
      databaseUrl: bouncer.url(database),
      listenUrl: direct.databaseUrl!,
      poolSize: 2,
    });
  });
  after(async () => {
    await pooled?.close();
    await bouncer?.close();
    await direct?.close();
  });

  it("stays ready while PgBouncer's pool is full, and is unready once PgBouncer is gone", async () => {
    assert.equal(await pooled.reachable(1000), true);
    const database = new URL(direct.databaseUrl!).pathname.slice(1);
    const holder = new pg.Client({ connectionString: bouncer.url(database) });
    holder.on("error", () => {});
    await holder.connect();
    try {
      await holder.query("begin");
      const held = holder.query("select pg_sleep(4)");
      // The pool's one server connection is taken: a statement through PgBouncer now waits.
      const waiting = new pg.Client({ connectionString: bouncer.url(database) });
      waiting.on("error", () => {});
      await waiting.connect();
      const queued = await Promise.race([
        waiting.query("select 1").then(() => "answered"),
        new Promise((resolve) => setTimeout(() => resolve("queued"), 1500)),
      ]);
      assert.equal(queued, "queued", "the pool is full");
      assert.equal(await pooled.reachable(1000), true, "a full pool is busy, not down");
      await held;
      await holder.query("commit");
      await waiting.end();
    } finally {
      await holder.end().catch(() => {});
    }
    await bouncer.close();
    assert.equal(await pooled.reachable(1000), false, "no PgBouncer: nothing can be served");
  });
});
