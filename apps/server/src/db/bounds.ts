/**
 * Bounded waits (CONTRACT 14): no request waits without limit for a row lock, a statement or a
 * pool connection, so one merchant's held lock cannot stall another merchant's requests.
 *
 * On PostgreSQL every transaction opens with `SET LOCAL lock_timeout, statement_timeout,
 * idle_in_transaction_session_timeout`, sent in the same round trip as `BEGIN` (and that with the
 * transaction's first statement: db/pg-driver.ts). SET LOCAL ends
 * with the transaction, so the bounds hold behind a transaction-pooling PgBouncer too (a
 * session SET or a startup option would land on whichever server connection PgBouncer picked).
 * The wait for a pool connection is the pool's own bound (pg's connectionTimeoutMillis; the
 * embedded pool's acquire timeout).
 */
import type { TransactionSettings } from "kysely";

export interface DatabaseBounds {
  /** DB_LOCK_TIMEOUT_MS: longest wait for a row or table lock. */
  lockTimeoutMs: number;
  /** DB_POOL_ACQUIRE_TIMEOUT_MS: longest wait for a pool connection. */
  poolAcquireTimeoutMs: number;
  /** DB_STATEMENT_TIMEOUT_MS: longest run of one statement inside a transaction. */
  statementTimeoutMs: number;
  /** DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: a transaction left idle this long is ended by the server. */
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_DATABASE_BOUNDS: DatabaseBounds = {
  lockTimeoutMs: 2_000,
  poolAcquireTimeoutMs: 2_000,
  statementTimeoutMs: 30_000,
  idleInTransactionTimeoutMs: 60_000,
};

const registered = new WeakMap<object, DatabaseBounds>();

/** Remembers the bounds a store was opened with, for waits the service keeps itself. */
export function registerBounds(db: object, bounds: DatabaseBounds): void {
  registered.set(db, bounds);
}

/** The bounds of the store `db` (DEFAULT_DATABASE_BOUNDS for a handle opened elsewhere). */
export function boundsOf(db: object): DatabaseBounds {
  return registered.get(db) ?? DEFAULT_DATABASE_BOUNDS;
}

/** The statement that opens every transaction: BEGIN and the transaction's bounds. */
export function beginStatement(bounds: DatabaseBounds, settings: TransactionSettings = {}): string {
  let begin = "begin";
  if (settings.isolationLevel || settings.accessMode) {
    begin = "start transaction";
    if (settings.isolationLevel) begin += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) begin += ` ${settings.accessMode}`;
  }
  const ms = (value: number) => `'${Math.trunc(value)}ms'`;
  return [
    begin,
    `set local lock_timeout = ${ms(bounds.lockTimeoutMs)}`,
    `set local statement_timeout = ${ms(bounds.statementTimeoutMs)}`,
    `set local idle_in_transaction_session_timeout = ${ms(bounds.idleInTransactionTimeoutMs)}`,
  ].join("; ");
}
