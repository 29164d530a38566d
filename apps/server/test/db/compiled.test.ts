/**
 * Cached statements (db/compiled.ts): built and compiled once, executed with each call's
 * parameters. Each call must answer what the builder would have answered with those values.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { cachedStatement } from "../../src/db/compiled.ts";
import { openTestStore, type TestStore } from "../helpers/store.ts";

describe("cached statements", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
    await sql`create table compiled_probe (id int primary key, label text not null, kind text not null)`.execute(
      store.db,
    );
  });
  after(async () => {
    await store?.close();
  });

  it("inserts and reads with each call's values, the builder called once", async () => {
    let builds = 0;
    const insert = cachedStatement<{ id: number; label: string }, { id: number; label: string }>(
      ["id", "label"],
      (db, params) => {
        builds += 1;
        return (db as any)
          .insertInto("compiled_probe")
          .values({ id: params.id, label: params.label, kind: "fixed" })
          .returning(["id", "label"]);
      },
    );
    const read = cachedStatement<{ id: number }, { id: number; label: string; kind: string }>(
      ["id"],
      (db, params) => (db as any).selectFrom("compiled_probe").selectAll().where("id", "=", params.id),
    );
    for (let id = 1; id <= 5; id += 1) {
      assert.deepEqual(await insert.takeFirst(store.db, { id, label: `row ${id}` }), {
        id,
        label: `row ${id}`,
      });
    }
    assert.equal(builds, 1);
    for (let id = 1; id <= 5; id += 1) {
      // The constant the builder was given ("fixed") stays in every execution.
      assert.deepEqual(await read.takeFirst(store.db, { id }), { id, label: `row ${id}`, kind: "fixed" });
    }
    assert.equal(await read.takeFirst(store.db, { id: 99 }), undefined);
  });

  it("runs inside a transaction on the transaction's connection", async () => {
    const insert = cachedStatement<{ id: number }, { id: number }>(["id"], (db, params) =>
      (db as any)
        .insertInto("compiled_probe")
        .values({ id: params.id, label: "tx", kind: "tx" })
        .returning("id"),
    );
    await assert.rejects(
      store.db.transaction().execute(async (trx) => {
        await insert.execute(trx, { id: 100 });
        throw new Error("roll back");
      }),
      /roll back/,
    );
    const rows = await sql<{
      n: number;
    }>`select count(*)::int as n from compiled_probe where id = 100`.execute(store.db);
    assert.equal(rows.rows[0]!.n, 0, "the insert rolled back with its transaction");
  });

  it("refuses an UPDATE (the change feed must see those) and a parameter the statement never uses", async () => {
    const update = cachedStatement<{ id: number }, never>(["id"], (db, params) =>
      (db as any).updateTable("compiled_probe").set({ label: "x" }).where("id", "=", params.id),
    );
    await assert.rejects(update.execute(store.db, { id: 1 }), /only SELECT and INSERT/);
    const unused = cachedStatement<{ id: number; other: string }, never>(["id", "other"], (db, params) =>
      (db as any).selectFrom("compiled_probe").selectAll().where("id", "=", params.id),
    );
    await assert.rejects(unused.execute(store.db, { id: 1, other: "x" }), /never used: other/);
  });

  it("caches a raw SELECT, and refuses a raw statement that names a writing command", async () => {
    const rawRead = cachedStatement<{ id: number }, { label: string }>(["id"], (db, params) => {
      const query = sql<{
        label: string;
      }>`/* a comment */ SELECT label FROM compiled_probe WHERE id = ${params.id}`;
      return { compile: () => query.compile(db) };
    });
    assert.deepEqual(await rawRead.takeFirst(store.db, { id: 1 }), { label: "row 1" });
    assert.equal(await rawRead.takeFirst(store.db, { id: 999 }), undefined);
    for (const text of [
      "UPDATE compiled_probe SET label = 'x' WHERE id = ",
      "WITH gone AS (DELETE FROM compiled_probe WHERE id = 0) SELECT 1 WHERE 1 = ",
      "SELECT 1 FROM compiled_probe WHERE id = (SELECT 1) AND 1 = 1 AND true; DELETE FROM compiled_probe WHERE id = ",
    ]) {
      const rawWrite = cachedStatement<{ id: number }, never>(["id"], (db, params) => {
        const query = sql<never>`${sql.raw(text)}${params.id}`;
        return { compile: () => query.compile(db) };
      });
      await assert.rejects(rawWrite.execute(store.db, { id: 1 }), /only SELECT and INSERT/, text);
    }
  });
});
