/**
 * A few at a time per key, in this process: work queued under a key starts when fewer than
 * `slots` works of that key are running, in the order it arrived. Used in front of a row lock
 * that every request of a key takes (a merchant's wallet lock, withdraws/admission.ts), so that a
 * burst of one hot key's requests waits here, holding nothing, instead of each holding a pool
 * connection while it waits on the row lock in the database: the pool stays free for other keys
 * (CONTRACT 14). Two slots by default: one transaction holds the row lock while the next has
 * already begun and waits at the lock, so the database hands the lock over at once. The row
 * lock stays the guarantee between processes; this queue only bounds how many of one process's
 * requests wait on it.
 *
 * A wait is bounded like a lock wait (DB_LOCK_TIMEOUT_MS): past it the work is not started and
 * the call fails with LockWaitTimeoutError, which answers 503 like the database's own lock
 * timeout (db/faults.ts: SQLSTATE 55P03). The wait here and the wait at the row lock share that
 * one bound: work that waited its turn gets a `Turn`, and `boundLockWait` lowers its
 * transaction's lock_timeout to what is left. Without that, a request that came to its turn
 * just before its bound ran out could wait a whole bound again at the lock (a burst against a
 * held wallet answered 503 after up to twice the bound, and more when the pool was also
 * contended).
 */
import { performance } from "node:perf_hooks";
import { boundsOf } from "./bounds.ts";
import type { Db, Trx } from "./handles.ts";
import { runStatement, type Statement, transactionSettings } from "./pg-driver.ts";

/** A queued wait longer than the lock bound; classified like PostgreSQL's lock_not_available. */
export class LockWaitTimeoutError extends Error {
  readonly code = "55P03";
  constructor(timeoutMs: number) {
    super(`the key's queue did not come free within ${timeoutMs} ms`);
    this.name = "LockWaitTimeoutError";
  }
}

interface Waiter {
  start: () => void;
  timer: NodeJS.Timeout;
}

interface KeyState {
  running: number;
  waiting: Waiter[];
}

/** When a work began waiting for its key, and the bound on its whole wait (queue and lock). */
export interface Turn {
  /** performance.now() when the work was queued. */
  readonly since: number;
  readonly boundMs: number;
  /** Set once its first transaction has bounded its lock wait (`boundLockWait`). */
  bounded?: boolean;
}

/**
 * A wait of at most this long before the transaction began is not worth a statement: the lock
 * wait then keeps the transaction's own bound, which overruns the shared one by this much at most.
 */
export const TURN_WAIT_SLACK_MS = 50;

/** How much work of one key runs at once by default: one holding the row lock, one at its door. */
export const KEY_QUEUE_SLOTS = 2;

export class KeyQueue {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly slots = KEY_QUEUE_SLOTS) {}

  /** How many keys have work queued or running (for tests: an idle queue holds nothing). */
  get size(): number {
    return this.keys.size;
  }

  async run<T>(key: string, timeoutMs: number, work: (turn: Turn) => Promise<T>): Promise<T> {
    const turn: Turn = { since: performance.now(), boundMs: timeoutMs };
    let state = this.keys.get(key);
    if (!state) {
      state = { running: 0, waiting: [] };
      this.keys.set(key, state);
    }
    if (state.running < this.slots) state.running += 1;
    else await this.turn(state, timeoutMs);
    try {
      return await work(turn);
    } finally {
      this.release(key, state);
    }
  }

  /** Waits until a finishing work hands its slot over, or gives up after `timeoutMs`. */
  private turn(state: KeyState, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: resolve,
        timer: setTimeout(() => {
          state.waiting.splice(state.waiting.indexOf(waiter), 1);
          reject(new LockWaitTimeoutError(timeoutMs));
        }, timeoutMs),
      };
      state.waiting.push(waiter);
    });
  }

  /** Hands the slot to the longest waiter, or frees it. */
  private release(key: string, state: KeyState): void {
    const next = state.waiting.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
      return;
    }
    state.running -= 1;
    if (state.running === 0) this.keys.delete(key);
  }
}

const queues = new WeakMap<object, KeyQueue>();

/**
 * Runs `work` in turn with the other work of `key` on this store, waiting at most the store's
 * lock bound. Inside a transaction (`db` is one) it runs at once: the caller that opened the
 * transaction decided its order.
 */
export function inTurn<T>(db: Db, key: string, work: (turn: Turn | undefined) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(undefined);
  let queue = queues.get(db);
  if (!queue) {
    queue = new KeyQueue();
    queues.set(db, queue);
  }
  return queue.run(key, boundsOf(db).lockTimeoutMs, work);
}

/**
 * Called first in the transaction of a work that waited its turn: the statement that lowers the
 * transaction's lock_timeout to what is left of the turn's bound after the wait in the queue,
 * for a pool connection and for BEGIN, to be sent with the transaction's first statements
 * (db/pg-driver.ts `runTogether`); fails at once with LockWaitTimeoutError when nothing is
 * left. A turn that came within TURN_WAIT_SLACK_MS needs none: undefined. Only the turn's
 * first transaction is bounded so: a transaction run again after a serialization failure or a
 * deadlock (db/handles.ts) waits at the lock with its own bound, as any new transaction does,
 * instead of being refused for the time the first one worked.
 */
export function lockWaitBound(
  trx: Trx,
  turn: Turn | undefined,
  now = performance.now(),
): Statement<void> | undefined {
  if (!turn || turn.bounded) return undefined;
  turn.bounded = true;
  const waited = now - turn.since;
  if (waited <= TURN_WAIT_SLACK_MS) return undefined;
  const left = Math.floor(turn.boundMs - waited);
  if (left <= 0) throw new LockWaitTimeoutError(turn.boundMs);
  // Sent first in the transaction, it rides in the BEGIN (db/pg-driver.ts).
  return transactionSettings(trx, { lock_timeout: `${left}ms` });
}

/** `lockWaitBound`, sent on its own. */
export async function boundLockWait(
  trx: Trx,
  turn: Turn | undefined,
  now = performance.now(),
): Promise<void> {
  const bound = lockWaitBound(trx, turn, now);
  if (bound) await runStatement(trx, bound);
}
