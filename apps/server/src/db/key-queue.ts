/**
 * One at a time per key, in this process: work queued under a key starts when the work queued
 * before it under that key has finished. Used in front of a row lock that every request of a
 * key takes (a merchant's wallet lock, withdraws/service.ts), so that the requests of one hot
 * key wait here, holding nothing, instead of each holding a pool connection while it waits on
 * the row lock in the database: the pool stays free for other keys (CONTRACT 14), and the
 * database hands its lock from one transaction to the next without a crowd of waiters. The row
 * lock stays the guarantee between processes; this queue only orders the requests of one.
 *
 * A wait is bounded like a lock wait (DB_LOCK_TIMEOUT_MS): past it the work is not started and
 * the call fails with LockWaitTimeoutError, which answers 503 like the database's own lock
 * timeout (db/faults.ts: SQLSTATE 55P03). A caller that gave up still keeps its place until the
 * work before it has finished, so the work after it never overtakes that.
 */
import { boundsOf } from "./bounds.ts";
import type { Db } from "./handles.ts";

/** A queued wait longer than the lock bound; classified like PostgreSQL's lock_not_available. */
export class LockWaitTimeoutError extends Error {
  readonly code = "55P03";
  constructor(timeoutMs: number) {
    super(`the key's queue did not come free within ${timeoutMs} ms`);
    this.name = "LockWaitTimeoutError";
  }
}

export class KeyQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** How many keys have work queued or running (for tests: an idle queue holds nothing). */
  get size(): number {
    return this.tails.size;
  }

  async run<T>(key: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    // A caller that gives up leaves its place until the work before it has finished.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LockWaitTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      await Promise.race([previous, late]);
    } catch (error) {
      release();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    try {
      return await work();
    } finally {
      release();
      // Nothing queued after this work: the key is idle now.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

const queues = new WeakMap<object, KeyQueue>();

/**
 * Runs `work` in turn with the other work of `key` on this store, waiting at most the store's
 * lock bound. Inside a transaction (`db` is one) it runs at once: the caller that opened the
 * transaction decided its order.
 */
export function inTurn<T>(db: Db, key: string, work: () => Promise<T>): Promise<T> {
  if (db.isTransaction) return work();
  let queue = queues.get(db);
  if (!queue) {
    queue = new KeyQueue();
    queues.set(db, queue);
  }
  return queue.run(key, boundsOf(db).lockTimeoutMs, work);
}
