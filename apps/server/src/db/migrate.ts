/**
 * One ordered set of migrations for both stores. Each migration is a list of statements. A run
 * is one transaction that first takes a transaction-level advisory lock, then lets Kysely's
 * migrator create its tables, read what is applied and apply the rest: several processes
 * starting at once apply each migration once, and nothing outlives the transaction, so the
 * run is as safe through a transaction-pooling PgBouncer as straight to PostgreSQL. (Kysely's
 * own lock is a session-level advisory lock taken outside its transaction; through such a
 * pooler it lands on one server connection and its unlock on another, so it neither excludes
 * nor is released. db/migration-lock.ts replaces it.)
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from "kysely";
import { databaseFault } from "./faults.ts";
import { MIGRATION_LOCK_KEY } from "./migration-lock.ts";
import { statements as core } from "./migrations/0001_core.ts";
import { statements as paymentTransferAccount } from "./migrations/0002_payment_transfer_account.ts";
import { statements as ledgerWithdraws } from "./migrations/0003_ledger_withdraws.ts";
import { statements as events } from "./migrations/0004_events.ts";
import { statements as webhooks } from "./migrations/0005_webhooks.ts";
import { statements as lifecycle } from "./migrations/0006_lifecycle.ts";
import { statements as dashboard } from "./migrations/0007_dashboard.ts";
import { statements as changeNotify } from "./migrations/0010_change_notify.ts";
import { statements as webhookThroughput } from "./migrations/0020_webhook_throughput.ts";
import { statements as scb } from "./migrations/0030_scb.ts";
import { statements as payoutDesk } from "./migrations/0035_payout_desk.ts";
import { statements as listSortIndexes } from "./migrations/0040_list_sort_indexes.ts";
import type { Database } from "./types.ts";

const MIGRATIONS: Record<string, string[]> = {
  "0001_core": core,
  "0002_payment_transfer_account": paymentTransferAccount,
  "0003_ledger_withdraws": ledgerWithdraws,
  "0004_events": events,
  "0005_webhooks": webhooks,
  "0006_lifecycle": lifecycle,
  "0007_dashboard": dashboard,
  "0010_change_notify": changeNotify,
  "0020_webhook_throughput": webhookThroughput,
  "0030_scb": scb,
  "0035_payout_desk": payoutDesk,
  "0040_list_sort_indexes": listSortIndexes,
};

function toMigration(statements: string[]): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const statement of statements) await sql.raw(statement).execute(db);
    },
  };
}

const provider: MigrationProvider = {
  async getMigrations() {
    return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, list]) => [name, toMigration(list)]));
  },
};

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

/** One run: the lock, then the migrator inside the same transaction; a failure rolls it all back. */
async function migrateOnce(db: Kysely<Database>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(trx);
    const { error, results } = await new Migrator({ db: trx, provider }).migrateToLatest();
    if (error) throw error instanceof Error ? error : new Error(String(error));
    return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
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
