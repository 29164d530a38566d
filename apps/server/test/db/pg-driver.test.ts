/**
 * The PostgreSQL driver (db/pg-driver.ts): BEGIN held back until the transaction's first
 * statement, statements sent together in one round trip, a transaction's last statements sent
 * with its COMMIT. Each must answer exactly what the same statements sent one by one would:
 * results in order, the first error in order, nothing kept of a failed transaction. On the
 * embedded store `runTogether` runs the statements one after another, with the same answers.
 * Settings for the rest of a transaction sent first in it ride in its BEGIN on PostgreSQL.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { CompiledQuery, sql } from "kysely";
import {
  runTogether,
  runTogetherAndCommit,
  type Statement,
  transactionSettings,
} from "../../src/db/pg-driver.ts";
import { statementsOf } from "../helpers/statements.ts";
import { describeOnPostgres, openTestStore, type TestStore } from "../helpers/store.ts";

/** A raw statement whose answer is its rows. */
function statement(text: string, parameters: unknown[] = []): Statement<Record<string, unknown>[]> {
  return {
    query: CompiledQuery.raw(text, parameters),
    decode: (result) => result.rows as Record<string, unknown>[],
  };
}

const count = async (store: TestStore) =>
  (await sql<{ n: number }>`select count(*)::int as n from driver_probe`.execute(store.db)).rows[0]!.n;

describe("statements sent together", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
    await sql`create table driver_probe (id int primary key, label text not null)`.execute(store.db);
  });
  after(async () => {
    await store?.close();
  });

  it("answers in order, each statement with its own result", async () => {
    const [one, two, three] = await runTogether(
      store.db,
      statement("select $1::int as n", [1]),
      statement("insert into driver_probe (id, label) values ($1, $2) returning id", [1, "one"]),
      statement("select label from driver_probe where id = $1", [1]),
    );
    assert.deepEqual(one, [{ n: 1 }]);
    assert.deepEqual(two, [{ id: 1 }]);
    // The third statement started after the second ended: it sees the second's row.
    assert.deepEqual(three, [{ label: "one" }]);
  });

  it("fails with the first error in order and leaves the connection usable", async () => {
    await assert.rejects(
      runTogether(
        store.db,
        statement("select 1"),
        statement("insert into driver_probe (id, label) values ($1, $2)", [1, "taken"]),
        statement("select 1 / 0"),
      ),
      (error: { code?: string }) => error.code === "23505",
    );
    for (let i = 0; i < 3; i += 1) {
      assert.deepEqual(await runTogether(store.db, statement("select $1::int as n", [i])), [[{ n: i }]]);
    }
  });

  it("in a transaction, a failed statement keeps nothing of those before it", async () => {
    const before = await count(store);
    await assert.rejects(
      store.db
        .transaction()
        .execute((trx) =>
          runTogether(
            trx,
            statement("insert into driver_probe (id, label) values ($1, $2)", [2, "two"]),
            statement("insert into driver_probe (id, label) values ($1, $2)", [1, "taken"]),
          ),
        ),
      (error: { code?: string }) => error.code === "23505",
    );
    assert.equal(await count(store), before);
  });

  it("commits with the last statements: once, visible at once, and nothing of a failed one", async () => {
    const { result, statements, roundTrips } = await statementsOf(() =>
      store.db.transaction().execute(async (trx) => {
        const [rows] = await runTogetherAndCommit(
          trx,
          statement("insert into driver_probe (id, label) values ($1, $2) returning label", [3, "three"]),
        );
        return rows;
      }),
    );
    assert.deepEqual(result, [{ label: "three" }]);
    assert.equal(statements.filter((text) => /^commit/i.test(text)).length, 1, statements.join("\n"));
    if (store.kind === "postgres") {
      assert.deepEqual(
        roundTrips.map((trip) => trip.length),
        [3],
        "BEGIN, the insert and COMMIT in one round trip",
      );
    }
    assert.equal(
      (await sql<{ n: number }>`select count(*)::int as n from driver_probe where id = 3`.execute(store.db))
        .rows[0]!.n,
      1,
    );
    const before = await count(store);
    await assert.rejects(
      store.db
        .transaction()
        .execute((trx) =>
          runTogetherAndCommit(
            trx,
            statement("insert into driver_probe (id, label) values ($1, $2)", [4, "four"]),
            statement("insert into driver_probe (id, label) values ($1, $2)", [3, "taken"]),
          ),
        ),
      (error: { code?: string }) => error.code === "23505",
    );
    assert.equal(await count(store), before, "the COMMIT behind a failed statement kept nothing");
  });
});

describe("settings for the rest of a transaction (transactionSettings)", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
  });
  after(async () => {
    await store?.close();
  });

  const setting = (name: string) => sql<{ value: string }>`select current_setting(${name}) as value`;

  it("hold for the rest of the transaction and end with it; on PostgreSQL with no statement of their own", async () => {
    const { result, statements } = await statementsOf(() =>
      store.db.transaction().execute(async (trx) => {
        const [, rows] = await runTogether(
          trx,
          transactionSettings(trx, { lock_timeout: "750ms", plan_cache_mode: "force_generic_plan" }),
          statement("select current_setting('lock_timeout') as value"),
        );
        const later = (await setting("plan_cache_mode").execute(trx)).rows[0]!.value;
        return { first: rows, later };
      }),
    );
    assert.deepEqual(result, { first: [{ value: "750ms" }], later: "force_generic_plan" });
    if (store.kind === "postgres") {
      assert.equal(statements.filter((text) => text.includes("set_config")).length, 0, statements.join("\n"));
      assert.match(
        statements[0]!,
        /^begin; .*; set local lock_timeout = '750ms'; set local plan_cache_mode = 'force_generic_plan'$/,
      );
    }
    const after = (await setting("plan_cache_mode").execute(store.db)).rows[0]!.value;
    assert.notEqual(after, "force_generic_plan", "the setting ends with its transaction");
  });

  it("sent after the transaction's first statement, one is a statement; one only for the BEGIN is left out", async () => {
    const { result, statements } = await statementsOf(() =>
      store.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await runTogether(
          trx,
          transactionSettings(trx, { lock_timeout: "750ms" }),
          transactionSettings(trx, { plan_cache_mode: "force_generic_plan" }, { onlyInBegin: true }),
        );
        return {
          lock: (await setting("lock_timeout").execute(trx)).rows[0]!.value,
          plan: (await setting("plan_cache_mode").execute(trx)).rows[0]!.value,
        };
      }),
    );
    assert.equal(result.lock, "750ms");
    assert.notEqual(result.plan, "force_generic_plan");
    assert.equal(statements.filter((text) => text.includes("set_config")).length, 1, statements.join("\n"));
  });

  it("refuses a name or value that cannot be written into a BEGIN", () => {
    assert.throws(() => transactionSettings(store.db, { lock_timeout: "1s'; drop table x; --" }));
    assert.throws(() => transactionSettings(store.db, { "lock_timeout; reset all": "1s" }));
  });
});

// The embedded store runs Kysely's own driver: BEGIN and COMMIT as it sends them.
describeOnPostgres("the PostgreSQL driver's BEGIN and COMMIT", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore();
    await sql`create table driver_probe (id int primary key, label text not null)`.execute(store.db);
  });
  after(async () => {
    await store?.close();
  });

  it("refuses a COMMIT that PostgreSQL answered with a rollback", async () => {
    const before = await count(store);
    await assert.rejects(
      store.db.transaction().execute(async (trx) => {
        // A failure the work caught: the transaction is aborted, and a COMMIT now rolls it back.
        await sql`insert into driver_probe (id, label) values (5, 'five')`.execute(trx);
        await sql`select 1 / 0`.execute(trx).catch(() => undefined);
        await runTogetherAndCommit(trx);
      }),
      /ended with ROLLBACK, not COMMIT/,
    );
    assert.equal(await count(store), before);
  });

  it("sends nothing for a transaction that sent nothing, and BEGIN with the first statement", async () => {
    const empty = await statementsOf(() => store.db.transaction().execute(async () => "nothing"));
    assert.equal(empty.result, "nothing");
    assert.deepEqual(empty.statements, []);
    const one = await statementsOf(() =>
      store.db.transaction().execute((trx) => sql<{ n: number }>`select 7 as n`.execute(trx)),
    );
    assert.deepEqual(one.result.rows, [{ n: 7 }]);
    assert.match(one.statements[0]!, /^begin; set local lock_timeout/);
    assert.deepEqual(
      one.roundTrips.map((trip) => trip.length),
      [2, 1],
    );
  });
});

describeOnPostgres("the pool's idle connections", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore({ poolSize: 1 });
  });
  after(async () => {
    await store?.close();
  });

  it("keeps a connection through a quiet spell longer than pg's default 10 s", async () => {
    const backend = async () =>
      (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(store.db)).rows[0]!.pid;
    const first = await backend();
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    assert.equal(await backend(), first, "the same PostgreSQL backend answers after 11 s idle");
  });
});

describeOnPostgres("a connection that reached a read-only node", () => {
  let store: TestStore;
  before(async () => {
    store = await openTestStore({ poolSize: 1 });
    await sql`create table driver_probe (id int primary key, label text not null)`.execute(store.db);
  });
  after(async () => {
    await store?.close();
  });

  const backend = async () =>
    (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(store.db)).rows[0]!.pid;

  // The node is made read-only for the pooled connection's session, as a node a failover
  // demoted (or an HA engine drains) refuses writes: SQLSTATE 25006.
  for (const [how, write] of [
    [
      "alone",
      (id: number) => sql`insert into driver_probe (id, label) values (${id}, 'w')`.execute(store.db),
    ],
    [
      "in a transaction, sent together with its COMMIT",
      (id: number) =>
        store.db
          .transaction()
          .execute((trx) =>
            runTogetherAndCommit(
              trx,
              statement("insert into driver_probe (id, label) values ($1, 'w')", [id]),
            ),
          ),
    ],
  ] as const) {
    it(`is closed after a write it sent ${how} was refused, and the next request gets a new one`, async () => {
      const first = await backend();
      await sql`set session default_transaction_read_only = on`.execute(store.db);
      assert.equal(await backend(), first, "a read on the read-only node keeps its connection");
      await assert.rejects(write(first), (error: { code?: string }) => error.code === "25006");
      const next = await backend();
      assert.notEqual(next, first, "the refused connection was not pooled again");
      await write(next);
      const rows = await sql<{
        n: number;
      }>`select count(*)::int as n from driver_probe where id = ${next}`.execute(store.db);
      assert.equal(rows.rows[0]!.n, 1, "the write succeeds on the new connection");
    });
  }
});
