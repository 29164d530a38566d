/**
 * Database handles. Services and stores take a `Db`: the store's Kysely instance or a
 * transaction on it, so one service can run inside another's transaction. `withTransaction`
 * joins the caller's transaction when it is handed one and opens its own otherwise.
 */
import type { Kysely, Transaction } from "kysely";
import { isRetryableConflict } from "./faults.ts";
import { currentTransactionWatcher } from "./transaction-scope.ts";
import type { Database } from "./types.ts";

/** The store itself or a transaction on it. */
export type Db = Kysely<Database> | Transaction<Database>;

/** A handle that is inside a transaction: what row locks and ledger postings need. */
export type Trx = Transaction<Database>;

/**
 * How many times a transaction runs at most when PostgreSQL ends it with a serialization
 * failure (40001) or picks it as a deadlock victim (40P01); the last failure answers 503.
 */
export const TRANSACTION_ATTEMPTS_MAX = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` in the caller's transaction when `db` is one, otherwise in a new transaction on
 * `db` that commits when `work` resolves and rolls back when it throws. Only `trx` may be used
 * inside: on the embedded store a second connection would wait for the one it holds.
 *
 * A transaction of its own that fails with a serialization failure or a deadlock is run again
 * as a whole (everything it did was rolled back), up to TRANSACTION_ATTEMPTS_MAX times, after a
 * short random pause so two victims do not meet again. Joined transactions are retried by the
 * caller that opened them. So `work` must do nothing outside the database that cannot repeat.
 *
 * A transaction of its own is shown to the transaction watcher in scope (transaction-scope.ts)
 * before it commits, so what must commit with it (an audit entry) is written in it.
 */
export async function withTransaction<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Trx);
  const watcher = currentTransactionWatcher();
  for (let attempt = 1; ; attempt++) {
    let settled: ((committed: boolean) => void) | undefined;
    try {
      const result = await db.transaction().execute(async (trx) => {
        const done = await work(trx);
        settled = await watcher?.beforeCommit(trx, done);
        return done;
      });
      settled?.(true);
      return result;
    } catch (error) {
      settled?.(false);
      if (attempt >= TRANSACTION_ATTEMPTS_MAX || !isRetryableConflict(error)) throw error;
      await sleep(Math.floor(Math.random() * 20 * attempt) + 5);
    }
  }
}
