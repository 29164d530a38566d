/**
 * Migrations from many processes at once through a transaction-pooling PgBouncer with fewer
 * server connections than processes: each migration is applied once, every process comes
 * back without error, and no advisory lock is left held on a pooled server connection
 * (db/migrate.ts says why Kysely's own session lock failed both ways here).
 *
 * PostgreSQL only (left out of the embedded run); on PostgreSQL a missing PgBouncer fails the
 * suite. Whether the old lock failed was a matter of timing (about one round in three), so
 * several rounds are run.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, it } from "node:test";
import pg from "pg";
import { openStore, type Store } from "../../src/db/connect.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { type PgBouncer, startPgBouncer } from "../helpers/pgbouncer.ts";
import { describeOnPostgres } from "../helpers/store.ts";

const PROCESSES = 8;
const ROUNDS = 8;

async function adminQuery<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describeOnPostgres("migrations through a transaction-pooling PgBouncer", () => {
  let bouncer: PgBouncer;
  before(async () => {
    bouncer = await startPgBouncer(process.env.TEST_DATABASE_URL as string, 2);
  });
  after(async () => {
    await bouncer?.close();
  });

  it(`apply once from ${PROCESSES} processes at once and leave no lock held (${ROUNDS} fresh databases)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const name = `satang_mig_${process.pid}_${randomBytes(4).toString("hex")}`;
      await adminQuery(`CREATE DATABASE ${name}`);
      const stores: Store[] = [];
      try {
        for (let i = 0; i < PROCESSES; i++)
          stores.push(await openStore({ databaseUrl: bouncer.url(name), preparedStatements: false }));
        const results = await Promise.allSettled(stores.map((store) => migrateToLatest(store.db)));
        const failures = results.filter((r) => r.status === "rejected").map((r) => String(r.reason));
        assert.deepEqual(failures, [], `round ${round}: a process failed to migrate`);
        const applied = results.map((r) => (r.status === "fulfilled" ? r.value.applied.length : -1));
        assert.equal(
          applied.filter((n) => n > 0).length,
          1,
          `round ${round}: one process applies, got ${applied}`,
        );
        const held = await adminQuery<{ pid: number }>(
          `select l.pid from pg_locks l join pg_database d on d.oid = l.database
           where l.locktype = 'advisory' and d.datname = $1`,
          [name],
        );
        assert.deepEqual(held, [], `round ${round}: advisory locks left held after every migration finished`);
      } finally {
        await Promise.all(stores.map((store) => store.close()));
        await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    }
  });
});
