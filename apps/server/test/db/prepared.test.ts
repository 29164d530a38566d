import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type pg from "pg";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { openStore, type Store } from "../../src/db/connect.ts";
import { databaseFault } from "../../src/db/faults.ts";
import { withTransaction } from "../../src/db/handles.ts";
import { nameStatements, PLANNED_PER_CALL, StatementNames, statementName } from "../../src/db/prepared.ts";
import { openTestStore, type TestStore } from "../helpers/store.ts";

describe("statement names", () => {
  it("gives the same SQL the same name and different SQL different names", () => {
    const text = "select * from payments where id = $1";
    assert.equal(statementName(text), statementName(text));
    assert.notEqual(statementName(text), statementName(`${text} `));
    assert.match(statementName(text), /^s[0-9a-f]{30}$/);
    const names = new StatementNames();
    assert.equal(names.nameOf(text, ["a"]), statementName(text));
    assert.equal(names.nameOf(text, ["b"]), statementName(text));
  });

  it("leaves a statement without parameters unnamed (it may hold several statements)", () => {
    const names = new StatementNames();
    assert.equal(names.nameOf("begin; set local lock_timeout = '2000ms'", []), undefined);
    assert.equal(names.nameOf("select 1", undefined), undefined);
    assert.equal(names.size, 0);
  });

  it("leaves a statement marked to be planned per call unnamed", () => {
    const names = new StatementNames();
    assert.equal(
      names.nameOf(`${PLANNED_PER_CALL} select * from withdraws where merchant_id = $1`, ["a"]),
      undefined,
    );
    assert.equal(names.size, 0);
  });

  it("names at most `max` distinct texts; the ones already named keep their names", () => {
    const names = new StatementNames(2);
    assert.ok(names.nameOf("select $1::int", [1]));
    assert.ok(names.nameOf("select $1::text", ["a"]));
    assert.equal(names.nameOf("select $1::bigint", [1]), undefined);
    assert.equal(names.nameOf("select $1::int", [2]), statementName("select $1::int"));
    assert.equal(names.size, 2);
  });

  it("turns query(text, values) into a named query and passes every other call through", () => {
    const calls: unknown[][] = [];
    const client = { query: (...args: unknown[]) => calls.push(args) } as unknown as pg.ClientBase;
    nameStatements(client, new StatementNames());
    const cursor = { submit() {} };
    client.query("select $1::int", [1]);
    client.query("select 1", []);
    (client.query as unknown as (c: unknown) => void)(cursor);
    assert.deepEqual(calls[0], [
      { name: statementName("select $1::int"), text: "select $1::int", values: [1] },
    ]);
    assert.deepEqual(calls[1], ["select 1", []]);
    assert.equal(calls[2]![0], cursor);
  });
});

describe("DATABASE_PREPARED_STATEMENTS", () => {
  it("is on by default, off by default behind a pooler (DATABASE_DIRECT_URL set), and can be set", () => {
    const direct = "postgres://satang@primary:5432/satang";
    assert.equal(loadConfig({}).databasePreparedStatements, true);
    assert.equal(loadConfig({ DATABASE_DIRECT_URL: direct }).databasePreparedStatements, false);
    assert.equal(loadConfig({ DATABASE_PREPARED_STATEMENTS: "off" }).databasePreparedStatements, false);
    assert.equal(
      loadConfig({ DATABASE_DIRECT_URL: direct, DATABASE_PREPARED_STATEMENTS: "on" })
        .databasePreparedStatements,
      true,
    );
    assert.throws(
      () => loadConfig({ DATABASE_PREPARED_STATEMENTS: "yes" }),
      (error: unknown) => error instanceof ConfigError && /DATABASE_PREPARED_STATEMENTS/.test(error.message),
    );
  });
});

describe("prepared statements on the store", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore({ poolSize: 2 });
  });
  after(async () => {
    await store.close();
  });

  /** The statement names prepared on one connection after running `text` twice on it. */
  async function preparedAfterTwoRuns(target: Store, value: number): Promise<string[]> {
    return target.db.connection().execute(async (db) => {
      await sql`select ${value}::int + 1 as n`.execute(db);
      const again = await sql<{ n: number }>`select ${value}::int + 1 as n`.execute(db);
      assert.equal(again.rows[0]!.n, value + 1);
      const found = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db);
      return found.rows.map((row) => row.name);
    });
  }

  it("prepares a parameterised statement once, under its name, on PostgreSQL only", async () => {
    const names = await preparedAfterTwoRuns(store, 41);
    const expected = statementName("select $1::int + 1 as n");
    // The embedded store runs every statement unnamed, whatever the setting.
    assert.deepEqual(names.includes(expected), store.kind === "postgres");
  });

  it("outlives a migration that changes what a prepared statement answers: the transaction runs again, a lone statement is a conflict once", async () => {
    // A process of one release holds `select *` prepared while another release adds a column
    // (a rolling deploy): PostgreSQL then refuses the prepared statement.
    const one = store.databaseUrl ? await openStore({ databaseUrl: store.databaseUrl, poolSize: 1 }) : store;
    const table = `stale_plan_${process.pid}`;
    try {
      await sql.raw(`create table ${table} (id int primary key, a int)`).execute(one.db);
      await sql.raw(`insert into ${table} values (1, 10)`).execute(one.db);
      const read = (db: typeof one.db) =>
        db
          .selectFrom(table as "payments")
          .selectAll()
          .where("id", "=", 1 as never);
      for (let i = 0; i < 2; i += 1) assert.equal(((await read(one.db).executeTakeFirst()) as any).a, 10);
      await sql.raw(`alter table ${table} add column b int default 7`).execute(one.db);
      // In a transaction: run again on a new connection, which prepares the statement anew.
      const row = await withTransaction(one.db, (trx) => read(trx).executeTakeFirst());
      assert.deepEqual(row, { id: 1, a: 10, b: 7 });
      await sql.raw(`alter table ${table} add column c int default 8`).execute(one.db);
      // Alone: answered as a conflict (503 with Retry-After), and the next call reads the new shape.
      const alone = await read(one.db)
        .executeTakeFirst()
        .then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        );
      if (one.kind === "postgres") {
        assert.ok("error" in alone, "the stale statement was refused");
        assert.equal(databaseFault(alone.error), "conflict");
      }
      assert.deepEqual(await read(one.db).executeTakeFirst(), { id: 1, a: 10, b: 7, c: 8 });
    } finally {
      await sql.raw(`drop table if exists ${table}`).execute(one.db);
      if (one !== store) await one.close();
    }
  });

  it("prepares nothing by name when switched off", async () => {
    const off = store.databaseUrl
      ? await openStore({ databaseUrl: store.databaseUrl, poolSize: 1, preparedStatements: false })
      : store;
    try {
      assert.deepEqual(await preparedAfterTwoRuns(off, 1), []);
    } finally {
      if (off !== store) await off.close();
    }
  });
});
