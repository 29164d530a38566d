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
import { statements as listCounts } from "./migrations/0050_list_counts.ts";
import { statements as scbExchangeLookup } from "./migrations/0060_scb_exchange_lookup.ts";
import { statements as withdrawDayTotals } from "./migrations/0070_withdraw_day_totals.ts";
import { statements as payoutDeskRecords } from "./migrations/0081_payout_desk_records.ts";
import { statements as webhookEndpointDisabled } from "./migrations/0083_webhook_endpoint_disabled.ts";
import { statements as payoutUndecided } from "./migrations/0084_payout_undecided.ts";
import { statements as scbCollection } from "./migrations/0085_scb_collection.ts";
import { statements as refunds } from "./migrations/0086_refunds.ts";
import { statements as audit } from "./migrations/0090_audit.ts";
import { statements as promptpayReuseIndex } from "./migrations/0095_promptpay_reuse_index.ts";
import { statements as refundPayouts } from "./migrations/0096_refund_payouts.ts";
import { statements as opnRecipients } from "./migrations/0097_opn_recipients.ts";
import { statements as opnTransfers } from "./migrations/0098_opn_transfers.ts";
import { statements as paymentConnector } from "./migrations/0100_payment_connector.ts";
import { statements as providerConfirmations } from "./migrations/0101_provider_confirmations.ts";
import { statements as routing } from "./migrations/0105_routing.ts";
import type { Database } from "./types.ts";

/** Every migration by name, applied in name order. */
export const MIGRATIONS: Record<string, string[]> = {
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
  "0050_list_counts": listCounts,
  "0060_scb_exchange_lookup": scbExchangeLookup,
  "0070_withdraw_day_totals": withdrawDayTotals,
  "0081_payout_desk_records": payoutDeskRecords,
  "0083_webhook_endpoint_disabled": webhookEndpointDisabled,
  "0085_scb_collection": scbCollection,
  "0084_payout_undecided": payoutUndecided,
  "0090_audit": audit,
  "0095_promptpay_reuse_index": promptpayReuseIndex,
  "0086_refunds": refunds,
  "0096_refund_payouts": refundPayouts,
  "0097_opn_recipients": opnRecipients,
  "0098_opn_transfers": opnTransfers,
  "0100_payment_connector": paymentConnector,
  "0101_provider_confirmations": providerConfirmations,
  "0105_routing": routing,
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

/**
 * The advisory lock key of a migration run: Kysely's migrator's, so a process of an earlier
 * release (which migrated through Kysely's migrator) and this one exclude each other.
 */
const MIGRATION_LOCK_KEY = 3853314791062309107n;

/** The table that records applied migrations: Kysely's migrator's, so earlier stores read on. */
const MIGRATION_TABLE = "kysely_migration";

/** Applied names must be a prefix of MIGRATIONS' order: anything else is a store of another build. */
function pending(applied: string[]): [string, string[]][] {
  const names = Object.keys(MIGRATIONS).sort();
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
