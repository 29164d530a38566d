/**
 * Test databases. PGlite by default: one migrated snapshot is built per run (scripts/test.mjs)
 * and each test file loads it, which is far quicker than initdb per file. With
 * TEST_DATABASE_URL set, each test file gets its own PostgreSQL database copied from a
 * migrated template.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { describe } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { DatabaseBounds } from "../../src/db/bounds.ts";
import { openStore, type Store } from "../../src/db/connect.ts";
import { migrateToLatest } from "../../src/db/migrate.ts";
import { PGlitePool } from "../../src/db/pglite-pool.ts";
import type { Database } from "../../src/db/types.ts";
import { giveBack, takeDatabase } from "./embedded-reuse.ts";

/**
 * The migrated template each test file's database is copied from. Each run of the suite names
 * its own (scripts/test.mjs), so two runs on one PostgreSQL server never drop each other's.
 */
export const TEMPLATE_DATABASE = process.env.SATANG_TEST_TEMPLATE ?? "satang_test_template";

export function usingPostgres(): boolean {
  return Boolean(process.env.TEST_DATABASE_URL);
}

/**
 * A suite that proves something only PostgreSQL can show (several processes on one database).
 * The PostgreSQL run (TEST_DATABASE_URL) registers it; the embedded-store run leaves it out
 * rather than reporting it skipped. Whole files of such suites are named `*-pg.test.ts`, and
 * scripts/test.mjs runs them on PostgreSQL only.
 */
export const describeOnPostgres: (name: string, fn: () => void) => void = usingPostgres()
  ? describe // itself, so the suite's location (and the per-file times) name the test file
  : () => {};

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function adminQuery(sqlText: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sqlText);
  } finally {
    await client.end();
  }
}

export interface TestStore extends Store {
  databaseUrl: string | undefined;
}

/**
 * Tests race many requests on one row or pool on purpose, on a machine that may be busy: lock
 * and pool waits are bounded far above a request's usual 2 s. The tests of those bounds
 * (test/faults) pass their own.
 */
const TEST_WAIT_BOUNDS: Partial<DatabaseBounds> = { lockTimeoutMs: 120_000, poolAcquireTimeoutMs: 120_000 };

export async function openTestStore(
  options: { poolSize?: number; bounds?: Partial<DatabaseBounds> } = {},
): Promise<TestStore> {
  const bounds = { ...TEST_WAIT_BOUNDS, ...options.bounds };
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const name = `satang_t_${process.pid}_${randomBytes(4).toString("hex")}`;
    if (process.env.SATANG_TEST_TEMPLATE_READY) {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
    } else {
      await adminQuery(`CREATE DATABASE ${name}`);
    }
    const databaseUrl = withDatabase(url, name);
    const store = await openStore({ databaseUrl, poolSize: options.poolSize ?? 20, bounds });
    if (!process.env.SATANG_TEST_TEMPLATE_READY) await migrateToLatest(store.db);
    return {
      ...store,
      databaseUrl,
      close: async () => {
        await store.close();
        await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      },
    };
  }
  const snapshot = process.env.SATANG_TEST_SNAPSHOT;
  if (snapshot) {
    // A database of this process reset to the snapshot, when one is idle (embedded-reuse.ts).
    const database = await takeDatabase(snapshot);
    const store = await openStore({ memory: true, embedded: database.lite, bounds });
    return {
      ...store,
      databaseUrl: undefined,
      close: async () => {
        await store.close();
        await giveBack(database);
      },
    };
  }
  const store = await openStore({ memory: true, bounds });
  await migrateToLatest(store.db);
  return { ...store, databaseUrl: undefined };
}

/** Builds what openTestStore loads: run once per test run. */
/** Drops this run's template database (PostgreSQL only). */
export async function dropTemplateDatabase(): Promise<void> {
  if (process.env.TEST_DATABASE_URL)
    await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
}

export async function prepareTestDatabases(snapshotPath: string): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await adminQuery(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
    const store = await openStore({ databaseUrl: withDatabase(url, TEMPLATE_DATABASE) });
    await migrateToLatest(store.db);
    await store.close();
  }
  // The embedded snapshot is made on both runs: servers that tests start on a new DATA_DIR use
  // the embedded store whatever TEST_DATABASE_URL says, and begin from it (EMBEDDED_TEMPLATE).
  const lite = await PGlite.create();
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PGlitePool(lite) }) });
  await migrateToLatest(db);
  const dump = await lite.dumpDataDir("none");
  await writeFile(snapshotPath, Buffer.from(await dump.arrayBuffer()));
  await lite.close();
  // The same database as a closed store's directory: a server's new DATA_DIR copies it.
  const template = await PGlite.create({ dataDir: templateDirOf(snapshotPath), loadDataDir: dump });
  await template.close();
}

/** Where prepareTestDatabases puts the directory beside the snapshot `snapshotPath`. */
export function templateDirOf(snapshotPath: string): string {
  return `${snapshotPath}.d`;
}

/**
 * Settings that let a server started by a test on a new, empty DATA_DIR begin from a copy of the
 * run's migrated template directory instead of running PGlite's initdb (config
 * EMBEDDED_TEMPLATE): seconds of CPU saved per start. Empty outside the suite's runner.
 */
export const EMBEDDED_TEMPLATE_ENV: Record<string, string> = process.env.SATANG_TEST_SNAPSHOT
  ? { EMBEDDED_TEMPLATE: templateDirOf(process.env.SATANG_TEST_SNAPSHOT) }
  : {};
