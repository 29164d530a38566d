/**
 * The migrations' lock, made safe behind a transaction-pooling PgBouncer.
 *
 * Kysely's PostgreSQL adapter takes a session-level advisory lock before its migration
 * transaction and releases it after. Through a transaction pooler those are separate
 * transactions, each on whichever server connection the pooler picks: the lock stays held on
 * a pooled connection after the unlock went elsewhere, and a second process whose lock lands
 * on that same connection "gets" it again (session locks are re-entrant), so two processes
 * migrate at once. migrate.ts therefore runs the migrator inside its own transaction, after
 * `pg_advisory_xact_lock` on the same key, and this adapter makes Kysely's lock calls take
 * that transaction-level lock too (already held, so free) and release nothing: the lock ends
 * with the transaction, on whatever connection it ran.
 *
 * The key is Kysely's own, so a process of an older release, taking Kysely's session lock,
 * still excludes and is excluded by this one during a rolling deploy.
 */
import { type Kysely, PostgresAdapter, sql } from "kysely";

/** Kysely's migration lock id (kysely/dist/dialect/postgres/postgres-adapter.js). */
export const MIGRATION_LOCK_KEY = 3853314791062309107n;

export class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(db);
  }

  override async releaseMigrationLock(): Promise<void> {
    // Released when the migration transaction ends.
  }
}
