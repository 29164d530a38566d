/**
 * Expected database conditions are 503 SERVICE_UNAVAILABLE with Retry-After, never 500
 * (CONTRACT 14): how errors are classified, the bounded settings and their validation, the
 * retry of serialization failures and deadlocks inside withTransaction, and the embedded
 * store's bounded pool and commit sync. These run on either store.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import Fastify from "fastify";
import { Kysely, PostgresDialect, sql } from "kysely";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { beginStatement, DEFAULT_DATABASE_BOUNDS } from "../../src/db/bounds.ts";
import { databaseFault, PoolAcquireTimeoutError } from "../../src/db/faults.ts";
import { TRANSACTION_ATTEMPTS_MAX, withTransaction } from "../../src/db/handles.ts";
import { PGlitePool } from "../../src/db/pglite-pool.ts";
import type { Database } from "../../src/db/types.ts";
import { installErrorHandling } from "../../src/http/errors.ts";
import { openTestStore } from "../helpers/store.ts";

/** A PGlite of its own, from the run's migrated snapshot when there is one (initdb is slow). */
async function newLite(): Promise<PGlite> {
  const snapshot = process.env.SATANG_TEST_SNAPSHOT;
  if (!snapshot || !existsSync(snapshot)) return PGlite.create();
  return PGlite.create({ loadDataDir: new Blob([await readFile(snapshot)]) });
}

function pgError(code: string, message = `database error ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe("database faults are classified", () => {
  it("maps serialization failures and deadlocks to conflict, bounds to busy, lost connections to unavailable", () => {
    assert.equal(databaseFault(pgError("40001")), "conflict");
    assert.equal(databaseFault(pgError("40P01")), "conflict");
    assert.equal(databaseFault(pgError("55P03", "canceling statement due to lock timeout")), "busy");
    assert.equal(databaseFault(pgError("57014", "canceling statement due to statement timeout")), "busy");
    assert.equal(databaseFault(pgError("25P03")), "busy");
    assert.equal(databaseFault(new PoolAcquireTimeoutError(10)), "busy");
    assert.equal(databaseFault(new Error("timeout exceeded when trying to connect")), "busy");
    assert.equal(databaseFault(pgError("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1")), "unavailable");
    assert.equal(databaseFault(new AggregateError([pgError("ECONNREFUSED")], "")), "unavailable");
    assert.equal(databaseFault(new Error("Connection terminated unexpectedly")), "unavailable");
    assert.equal(
      databaseFault(pgError("57P01", "terminating connection due to administrator command")),
      "unavailable",
    );
    assert.equal(databaseFault(pgError("08006")), "unavailable");
    assert.equal(
      databaseFault(pgError("55000", 'database "shop" is not currently accepting connections')),
      "unavailable",
    );
    // A primary whose data directory became unreadable (the failover harness's second fault).
    assert.equal(
      databaseFault(pgError("42501", 'could not open file "base/16384/2619": Permission denied')),
      "unavailable",
    );
    assert.equal(databaseFault(pgError("58030", "could not read block 0 in file")), "unavailable");
    assert.equal(
      databaseFault(pgError("58P01", 'could not open file "base/1/2": No such file')),
      "unavailable",
    );
    assert.equal(databaseFault(new Error("wrapped", { cause: pgError("40P01") })), "conflict");
  });

  it("leaves every other error unexpected", () => {
    assert.equal(databaseFault(pgError("23505", "duplicate key")), undefined);
    assert.equal(databaseFault(pgError("22P02")), undefined);
    // The same SQLSTATE for a statement's own mistake is not the database going away.
    assert.equal(
      databaseFault(pgError("55000", 'currval of sequence "s" is not yet defined in this session')),
      undefined,
    );
    // A missing grant is a deployment fault, not the database going away.
    assert.equal(databaseFault(pgError("42501", "permission denied for table payments")), undefined);
    assert.equal(databaseFault(new Error("boom")), undefined);
    assert.equal(databaseFault(undefined), undefined);
    assert.equal(databaseFault("text"), undefined);
  });
});

describe("the error handler answers expected database conditions with 503 and Retry-After", () => {
  const appThrowing = async (error: unknown) => {
    const app = Fastify();
    installErrorHandling(app);
    app.get("/x", async () => {
      throw error;
    });
    await app.ready();
    return app;
  };

  for (const [name, error, reason] of [
    ["a deadlock after its retries", pgError("40P01"), "conflict"],
    ["a serialization failure after its retries", pgError("40001"), "conflict"],
    ["a lock wait over DB_LOCK_TIMEOUT_MS", pgError("55P03"), "busy"],
    ["a pool wait over DB_POOL_ACQUIRE_TIMEOUT_MS", new PoolAcquireTimeoutError(5), "busy"],
    [
      "a database that refuses connections",
      pgError("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.1:5432"),
      "unavailable",
    ],
    ["a connection lost mid-request", new Error("Connection terminated unexpectedly"), "unavailable"],
  ] as const) {
    it(`answers ${name} with 503 SERVICE_UNAVAILABLE`, async () => {
      const app = await appThrowing(error);
      const res = await app.inject({ method: "GET", url: "/x" });
      await app.close();
      assert.equal(res.statusCode, 503);
      const retryAfter = Number(res.headers["retry-after"]);
      assert.ok(retryAfter >= 1, `Retry-After ${res.headers["retry-after"]}`);
      const body = res.json();
      assert.equal(body.success, false);
      assert.equal(body.error.code, "SERVICE_UNAVAILABLE");
      assert.deepEqual(body.error.metadata, { reason, retryAfter });
      assert.doesNotMatch(res.body, /10\.0\.0\.1|ECONNREFUSED|40P01/);
    });
  }

  it("keeps 500 INTERNAL_ERROR for an unexpected database error", async () => {
    const app = await appThrowing(pgError("42703", "column does not exist"));
    const res = await app.inject({ method: "GET", url: "/x" });
    await app.close();
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error.code, "INTERNAL_ERROR");
    assert.equal(res.headers["retry-after"], undefined);
  });
});

describe("database settings", () => {
  it("default to 2 s lock and pool waits and are set per transaction with SET LOCAL", () => {
    const config = loadConfig({});
    assert.deepEqual(config.databaseBounds, DEFAULT_DATABASE_BOUNDS);
    assert.equal(config.databaseBounds.lockTimeoutMs, 2000);
    assert.equal(config.databaseBounds.poolAcquireTimeoutMs, 2000);
    assert.equal(config.embeddedSync, "commit");
    const begin = beginStatement(config.databaseBounds);
    assert.match(begin, /^begin; set local lock_timeout = '2000ms'; /);
    assert.match(begin, /set local statement_timeout = '30000ms'/);
    assert.match(begin, /set local idle_in_transaction_session_timeout = '60000ms'/);
    assert.match(
      beginStatement(config.databaseBounds, { isolationLevel: "serializable" }),
      /^start transaction isolation level serializable; set local/,
    );
  });

  it("are read from the environment and refused at start when out of range", () => {
    const config = loadConfig({
      DB_LOCK_TIMEOUT_MS: "750",
      DB_POOL_ACQUIRE_TIMEOUT_MS: "1500",
      DB_STATEMENT_TIMEOUT_MS: "10000",
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: "5000",
      EMBEDDED_SYNC: "off",
    });
    assert.deepEqual(config.databaseBounds, {
      lockTimeoutMs: 750,
      poolAcquireTimeoutMs: 1500,
      statementTimeoutMs: 10000,
      idleInTransactionTimeoutMs: 5000,
    });
    assert.equal(config.embeddedSync, "off");
    const refused: Array<[string, string]> = [
      ["DB_LOCK_TIMEOUT_MS", "0"],
      ["DB_LOCK_TIMEOUT_MS", "2s"],
      ["DB_LOCK_TIMEOUT_MS", "600001"],
      ["DB_POOL_ACQUIRE_TIMEOUT_MS", "-1"],
      ["DB_POOL_ACQUIRE_TIMEOUT_MS", "9"],
      ["DB_STATEMENT_TIMEOUT_MS", "99"],
      ["DB_IDLE_IN_TRANSACTION_TIMEOUT_MS", "abc"],
      ["EMBEDDED_SYNC", "always"],
    ];
    for (const [name, value] of refused) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, new RegExp(name));
          return true;
        },
      );
    }
  });
});

describe("withTransaction retries serialization failures and deadlocks", () => {
  it("runs the whole transaction again and commits what the last attempt did", async () => {
    const store = await openTestStore();
    try {
      await sql`create table retry_probe (attempt int)`.execute(store.db);
      let attempts = 0;
      const result = await withTransaction(store.db, async (trx) => {
        attempts += 1;
        await sql`insert into retry_probe values (${attempts})`.execute(trx);
        if (attempts < 3) throw pgError(attempts === 1 ? "40001" : "40P01");
        return "done";
      });
      assert.equal(result, "done");
      assert.equal(attempts, 3);
      const rows = await sql<{ attempt: number }>`select attempt from retry_probe`.execute(store.db);
      assert.deepEqual(
        rows.rows.map((r) => r.attempt),
        [3],
        "the failed attempts were rolled back",
      );
    } finally {
      await store.close();
    }
  });

  it("gives up after TRANSACTION_ATTEMPTS_MAX attempts with the database's error", async () => {
    const store = await openTestStore();
    try {
      let attempts = 0;
      await assert.rejects(
        withTransaction(store.db, async () => {
          attempts += 1;
          throw pgError("40P01");
        }),
        (error: unknown) => databaseFault(error) === "conflict",
      );
      assert.equal(attempts, TRANSACTION_ATTEMPTS_MAX);
    } finally {
      await store.close();
    }
  });

  it("does not retry other errors, nor a transaction it only joined", async () => {
    const store = await openTestStore();
    try {
      let attempts = 0;
      await assert.rejects(
        withTransaction(store.db, async () => {
          attempts += 1;
          throw pgError("23505");
        }),
      );
      assert.equal(attempts, 1);
      let inner = 0;
      await assert.rejects(
        store.db.transaction().execute((trx) =>
          withTransaction(trx, async () => {
            inner += 1;
            throw pgError("40001");
          }),
        ),
      );
      assert.equal(inner, 1, "the caller that opened the transaction decides");
    } finally {
      await store.close();
    }
  });
});

describe("the embedded store's one connection", () => {
  // One PGlite for the three tests (a fresh initdb is slow); each wraps it in its own pool.
  let lite: PGlite;
  before(async () => {
    lite = await newLite();
  });
  after(async () => {
    await lite.close();
  });

  it("bounds the wait for it and hands it on to the next waiter afterwards", async () => {
    const pool = new PGlitePool(lite, { acquireTimeoutMs: 100 });
    // The pool is left open: the shared PGlite closes after the suite.
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const holder = db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      await assert.rejects(sql`select 1`.execute(db), PoolAcquireTimeoutError);
      const waiting = sql<{ n: number }>`select 2 as n`.execute(db);
      release();
      await holder;
      assert.equal((await waiting).rows[0]?.n, 2, "a waiter within the bound gets the connection");
      assert.equal((await sql<{ n: number }>`select 3 as n`.execute(db)).rows[0]?.n, 3);
    }
  });

  it("syncs after a commit that wrote and after a write outside a transaction, not after reads", async () => {
    let syncs = 0;
    const pool = new PGlitePool(lite, {
      commitSync: {
        sync: () => {
          syncs += 1;
        },
      },
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    {
      await sql`create table durable_probe (n int)`.execute(db);
      assert.ok(syncs >= 1, "DDL outside a transaction is synced");
      // The first read after the migrations may write to the log (hint bits, or the pruning
      // of catalog rows they changed), and the sync follows the log; a read after it writes
      // nothing.
      await sql`select count(*) from durable_probe`.execute(db);
      const afterCreate = syncs;
      await sql`select count(*) from durable_probe`.execute(db);
      await db.transaction().execute(async (trx) => {
        await sql`select * from durable_probe for update`.execute(trx);
      });
      assert.equal(syncs, afterCreate, "reads and read-only transactions are not synced");
      await db.transaction().execute(async (trx) => {
        await sql`insert into durable_probe values (1)`.execute(trx);
        assert.equal(syncs, afterCreate, "nothing is synced before the commit");
      });
      assert.equal(syncs, afterCreate + 1, "the commit was synced before it returned");
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await sql`insert into durable_probe values (2)`.execute(trx);
          throw new Error("roll back");
        }),
      );
      await sql`insert into durable_probe values (3)`.execute(db);
      assert.ok(syncs >= afterCreate + 2, "a write outside a transaction is synced");
    }
  });

  it("calls no sync at all with EMBEDDED_SYNC=off (no commitSync)", async () => {
    const pool = new PGlitePool(lite);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const queries: string[] = [];
    const query = lite.query.bind(lite);
    lite.query = ((text: string, params?: unknown[]) => {
      queries.push(text);
      return query(text, params);
    }) as typeof lite.query;
    try {
      await sql`create table quick_probe (n int)`.execute(db);
      await sql`insert into quick_probe values (1)`.execute(db);
      assert.ok(!queries.some((q) => q.includes("pg_current_wal_insert_lsn")));
    } finally {
      lite.query = query;
    }
  });
});
