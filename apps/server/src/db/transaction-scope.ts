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

/** How many watched units of work are running (`watchTransactions`). */
let watching = 0;

/**
 * Runs `work` with `watcher` told of every transaction it opens (and anything it starts while it
 * runs). The scope's tracking is turned off again once no watched work is running: while it is
 * on, Node.js runs a hook at every promise of the process (on Node.js 20 that made each await
 * about three times dearer, a few percent of every merchant request's CPU), and watched work is
 * rare (an operator's action). What such work leaves running after it ends is not its own (the
 * audit scope is closed by then) and is not watched.
 */
export function watchTransactions<T>(watcher: TransactionWatcher, work: () => T): T {
  watching += 1;
  let result: T;
  try {
    result = scope.run(watcher, work);
  } catch (error) {
    stopWatching();
    throw error;
  }
  if (result instanceof Promise) return result.finally(stopWatching) as T;
  stopWatching();
  return result;
}

function stopWatching(): void {
  watching -= 1;
  if (watching === 0) scope.disable();
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
