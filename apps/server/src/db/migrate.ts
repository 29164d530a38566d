/**
 * One ordered set of migrations for both stores. Each migration is a list of statements. A run
 * is one transaction that first takes a transaction-level advisory lock, then reads what is
 * applied (Kysely's `kysely_migration` table, which earlier releases wrote through Kysely's
 * migrator) and applies the rest: several processes starting at once apply each migration
 * once, and nothing outlives the transaction, so the run is as safe through a
 * transaction-pooling PgBouncer as straight to PostgreSQL. (Kysely's migrator takes a
 * session-level advisory lock outside its transaction; through such a pooler it lands on one
 * server connection and its unlock on another, so it neither excludes nor is released.)
 */
import { type Kysely, sql } from "kysely";
import { databaseFault } from "./faults.ts";
import { MIGRATIONS } from "./migrations/index.ts";

export { MIGRATIONS };

import type { Database } from "./types.ts";

interface MigrationReport {
  applied: string[];
}

/**
 * How long a starting process waits for another one's migrations. The migrator's lock wait is
 * bounded like every transaction's (DB_LOCK_TIMEOUT_MS), which suits requests, not a start-up
 * behind another process applying migrations: a wait that hits the bound is tried again until
 * this deadline, and then finds the migrations applied.
 */
const MIGRATION_LOCK_WAIT_MS = 300_000;

/**
 * The advisory lock key of a migration run: Kysely's migrator's, so a process of an earlier
 * release (which migrated through Kysely's migrator) and this one exclude each other.
 */
const MIGRATION_LOCK_KEY = 3853314791062309107n;

/** The table that records applied migrations: Kysely's migrator's, so earlier stores read on. */
const MIGRATION_TABLE = "kysely_migration";

/**
 * Applied names must be a prefix of MIGRATIONS' order: anything else is a store of another build.
 * A migration this release does not know is a later release's: the database was upgraded, and
 * this release must not run on it (docs/operations.md, "Upgrades").
 */
function pending(applied: string[]): [string, string[]][] {
  const names = Object.keys(MIGRATIONS).sort();
  const unknown = applied.find((name) => !(name in MIGRATIONS));
  if (unknown !== undefined) {
    throw new Error(
      `this database was migrated by a later release of Satang (its migration ${unknown} is not one ` +
        "this release has), so this release does not run on it: start that release again, or restore " +
        "the backup taken before the upgrade (docs/operations.md, Upgrades). Nothing was changed.",
    );
  }
  applied.forEach((name, i) => {
    if (names[i] !== name) {
      throw new Error(
        `migrations out of order: ${name} is applied, ${names[i] ?? "nothing"} expected in its place`,
      );
    }
  });
  return names.slice(applied.length).map((name) => [name, MIGRATIONS[name] ?? []]);
}

/** One run: the lock, then the record of what is applied and the rest, in one transaction. */
async function migrateOnce(db: Kysely<Database>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(trx);
    await sql
      .raw(
        `create table if not exists ${MIGRATION_TABLE} (name varchar(255) not null primary key, ` +
          `timestamp varchar(255) not null)`,
      )
      .execute(trx);
    const rows = await sql<{
      name: string;
    }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(trx);
    const todo = pending(rows.rows.map((row) => row.name));
    for (const [name, statements] of todo) {
      for (const statement of statements) await sql.raw(statement).execute(trx);
      await sql`insert into ${sql.table(MIGRATION_TABLE)} (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(
        trx,
      );
    }
    return todo.map(([name]) => name);
  });
}

export async function migrateToLatest(db: Kysely<Database>): Promise<MigrationReport> {
  const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
  for (;;) {
    try {
      return { applied: await migrateOnce(db) };
    } catch (error) {
      if (databaseFault(error) !== "busy" || Date.now() > deadline) throw error;
    }
  }
}
