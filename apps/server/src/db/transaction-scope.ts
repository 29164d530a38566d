/**
 * A watcher of the transactions one unit of work opens (a request, say), so something that must
 * commit together with that work can be written in the work's own transaction without every
 * service passing it along: the audit log writes its entry this way (audit/trail.ts).
 *
 * `withTransaction` shows the watcher in scope, if any, each transaction of its own before it
 * commits (`beforeCommit`, inside the transaction, with the work's result); when the watcher
 * wrote something it answers a function that `withTransaction` calls with how the transaction
 * ended. Joined transactions are not shown: the one that opened them is.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Transaction } from "kysely";
import type { Database } from "./types.ts";

export interface TransactionWatcher {
  /**
   * Runs inside the transaction after its work resolved, before the commit; may write with
   * `trx`, and then answers what to call with whether the transaction committed.
   */
  beforeCommit(
    trx: Transaction<Database>,
    result: unknown,
  ): Promise<((committed: boolean) => void) | undefined>;
}

const scope = new AsyncLocalStorage<TransactionWatcher>();

/** Runs `work` with `watcher` told of every transaction it opens (and anything it starts). */
export function watchTransactions<T>(watcher: TransactionWatcher, work: () => T): T {
  return scope.run(watcher, work);
}

/**
 * Runs `work` unwatched: what it writes is not the watched work's own change (a connector
 * recording what the bank answered while an operator's action gathers evidence).
 */
export function unwatched<T>(work: () => T): T {
  return scope.exit(work);
}

export function currentTransactionWatcher(): TransactionWatcher | undefined {
  return scope.getStore();
}
