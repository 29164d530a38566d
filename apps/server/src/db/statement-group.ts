/**
 * Statement groups: statements of one process that arrive together are sent as one, instead of
 * one each. PostgreSQL's cost of a statement and of a commit, and the driver's and the event
 * loop's cost of a query, are mostly per statement, not per row (docs/PERFORMANCE.md, "Group
 * commit"), so under load most of what a create or a retrieve costs is saved.
 *
 * - **Writes (group commit).** Payment creates (payments/store.ts `insertPaymentGrouped`): one
 *   multi-row INSERT, sent outside a transaction, so the group commits together.
 * - **Reads.** Retrieves by id (payments/store.ts `findPaymentGrouped`): one SELECT, one snapshot
 *   taken after every read of the group was asked, so each still sees every write answered
 *   before it was asked.
 *
 * An item is queued, and the queue is sent once the event loop has run everything that was
 * ready (`setImmediate`): requests whose handlers ran in the same turn go together, and a
 * request alone on a quiet service waits for nothing. At most `maxInFlight` groups are in
 * flight; items that arrive meanwhile wait for one to end and go in the next group, so the
 * groups grow with the load. With `busyHoldMs`, items that arrive while a group is in flight
 * wait for it to end (or for their hold to pass) before a second goes beside it: fewer, larger
 * groups while the database answers promptly. A group of one runs the item's own statement.
 *
 * One item's failure does not touch another's. A group's statement can fail because of one
 * item's own data (a constraint, a value, a deadlock between groups, a row waiting past the lock
 * bound for another write of its key): then each item of the group runs again on its own, and
 * answers as it would have alone. Any other failure (the database unreachable, the pool's wait,
 * a timeout) is the same for every item of the group, as it would have been for each alone, and
 * each item fails with it.
 *
 * Waits stay bounded (CONTRACT 14): an item waits in the queue at most `maxQueueWaitMs` (the
 * pool's bound on a connection wait, which it would have waited alone) and then fails as a
 * pool wait does (503).
 */

import { performance } from "node:perf_hooks";
import { setImmediate } from "node:timers";
import { boundsOf } from "./bounds.ts";
import { PoolAcquireTimeoutError } from "./faults.ts";
import type { Db } from "./handles.ts";

/**
 * A group's queue bound on `db`: an item waits at most what a request waits alone for a pool
 * connection (DB_POOL_ACQUIRE_TIMEOUT_MS), then fails as that wait does (503).
 */
export function poolQueueBound(
  db: Db,
): Pick<StatementGroupOptions<unknown, unknown>, "maxQueueWaitMs" | "queueTimeout"> {
  const { poolAcquireTimeoutMs } = boundsOf(db);
  return {
    maxQueueWaitMs: poolAcquireTimeoutMs,
    queueTimeout: () => new PoolAcquireTimeoutError(poolAcquireTimeoutMs),
  };
}

export interface StatementGroupOptions<I, O> {
  /** One statement for every item, in one commit: each item's outcome, in the items' order. */
  runGroup(items: readonly I[]): Promise<O[]>;
  /** One item alone, as it runs without grouping. */
  runOne(item: I): Promise<O>;
  /**
   * One item run alone again after its group failed for one item's data (default `runOne`).
   * Every item of the failed group runs so at once, so a burst of one key's items (a merchant
   * whose row another transaction holds) could take every pool connection, each waiting out the
   * lock bound: given, it can queue them per key first (db/key-queue.ts), holding nothing.
   */
  runAgainAlone?(item: I): Promise<O>;
  /** The most items in one statement. */
  maxItems: number;
  /** The most groups in flight at once (each holds a database connection). */
  maxInFlight: number;
  /**
   * The longest an item waits in the queue for its group to be sent (the pool's own bound on a
   * connection wait, DB_POOL_ACQUIRE_TIMEOUT_MS): past it, it fails with `queueTimeout()`.
   */
  maxQueueWaitMs: number;
  queueTimeout(): Error;
  /**
   * When given, a group holds at most one item of each key, and no item of a key that a group
   * in flight holds: a later item of the key stays queued, in its place, until that group has
   * ended (withdraw admissions of one wallet, whose second must see what the first wrote, and
   * would otherwise wait for it at the wallet's lock, holding a connection and its group).
   */
  keyOf?(item: I): string;
  /**
   * When given, a group is not sent beside one in flight until its first item has waited this
   * long (ms) or a whole group (`maxItems`) is queued: while the database answers promptly, the
   * items that come during a group go together once it ends, in fewer and larger groups, and
   * only a group that is slow to answer lets the next ones go beside it (up to `maxInFlight`).
   * With no group in flight an item is sent at once, as without it.
   */
  busyHoldMs?: number;
}

interface Waiting<I, O> {
  item: I;
  /** performance.now() when it was queued. */
  since: number;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

/**
 * SQLSTATE classes of failures that come from a statement's data, not from the database's
 * state: 22 (data exception), 23 (integrity constraint violation), 40 (transaction rollback:
 * a deadlock or serialization failure between two groups).
 */
const PER_ITEM_CLASSES = new Set(["22", "23", "40"]);
/** lock_not_available: a group's row waited past the lock bound, for another write of its key. */
const PER_ITEM_STATES = new Set(["55P03"]);

/** True when a group's failure may belong to one of its items: each then runs alone. */
export function isPerItemFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || code.length !== 5) return false;
  return PER_ITEM_CLASSES.has(code.slice(0, 2)) || PER_ITEM_STATES.has(code);
}

export class StatementGroup<I, O> {
  readonly #options: StatementGroupOptions<I, O>;
  #queue: Waiting<I, O>[] = [];
  #inFlight = 0;
  /** The keys of the items of the groups in flight (with `keyOf`). */
  #keysInFlight = new Set<string>();
  #scheduled = false;
  #expiry: NodeJS.Timeout | undefined;
  /** The timer that sends a group held beside one in flight once its hold is over. */
  #holdTimer: NodeJS.Timeout | undefined;

  constructor(options: StatementGroupOptions<I, O>) {
    if (options.maxItems < 1 || options.maxInFlight < 1)
      throw new Error("group commit needs room for one item");
    this.#options = options;
  }

  /** Queues `item`; settles with its outcome once its group has run. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, since: performance.now(), resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#send();
      });
    });
  }

  #send(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#options.maxInFlight) {
      if (this.#held()) break;
      const group = this.#take();
      // Every queued item's key is in a group in flight: they wait for one to end.
      if (group.length === 0) break;
      const keys = this.#hold(group);
      this.#inFlight += 1;
      void this.#run(group).finally(() => {
        this.#inFlight -= 1;
        for (const key of keys) this.#keysInFlight.delete(key);
        this.#send();
      });
    }
    if (this.#queue.length === 0 && this.#holdTimer) {
      clearTimeout(this.#holdTimer);
      this.#holdTimer = undefined;
    }
    this.#watchQueue();
  }

  /**
   * Whether the queue is held back beside a group in flight (`busyHoldMs`); when it is, a
   * timer sends it once its first item's hold is over, unless a group ends first.
   */
  #held(): boolean {
    const holdMs = this.#options.busyHoldMs;
    if (holdMs === undefined || this.#inFlight === 0 || this.#queue.length >= this.#options.maxItems) {
      return false;
    }
    const due = this.#queue[0]!.since + holdMs - performance.now();
    if (due <= 0) return false;
    if (!this.#holdTimer) {
      this.#holdTimer = setTimeout(() => {
        this.#holdTimer = undefined;
        this.#send();
      }, due);
    }
    return true;
  }

  /** The keys of a group sent now, marked in flight until it ends. */
  #hold(group: Waiting<I, O>[]): string[] {
    const { keyOf } = this.#options;
    if (!keyOf) return [];
    const keys = group.map((waiting) => keyOf(waiting.item));
    for (const key of keys) this.#keysInFlight.add(key);
    return keys;
  }

  /**
   * The next group: the queue's first items, and when items have keys at most one of each key
   * and none of a key a group in flight holds (it would wait there for that group's end).
   */
  #take(): Waiting<I, O>[] {
    const { maxItems, keyOf } = this.#options;
    if (!keyOf) return this.#queue.splice(0, maxItems);
    const keys = new Set<string>();
    const group: Waiting<I, O>[] = [];
    const left: Waiting<I, O>[] = [];
    for (const waiting of this.#queue) {
      const key = keyOf(waiting.item);
      if (group.length < maxItems && !keys.has(key) && !this.#keysInFlight.has(key)) {
        keys.add(key);
        group.push(waiting);
      } else {
        left.push(waiting);
      }
    }
    this.#queue = left;
    return group;
  }

  /** While items wait for a free slot, one timer fails those that waited past the bound. */
  #watchQueue(): void {
    const oldest = this.#queue[0];
    if (!oldest) {
      clearTimeout(this.#expiry);
      this.#expiry = undefined;
      return;
    }
    if (this.#expiry) return;
    const due = oldest.since + this.#options.maxQueueWaitMs - performance.now();
    this.#expiry = setTimeout(
      () => {
        this.#expiry = undefined;
        const deadline = performance.now() - this.#options.maxQueueWaitMs;
        // The queue is in arrival order: the expired ones are at its front.
        let expired = 0;
        while (expired < this.#queue.length && this.#queue[expired]!.since <= deadline) expired += 1;
        for (const waiting of this.#queue.splice(0, expired)) waiting.reject(this.#options.queueTimeout());
        this.#watchQueue();
      },
      Math.max(0, due),
    );
  }

  async #run(group: Waiting<I, O>[]): Promise<void> {
    if (group.length === 1) return this.#runAlone(group[0]!);
    let outcomes: O[];
    try {
      outcomes = await this.#options.runGroup(group.map((waiting) => waiting.item));
    } catch (error) {
      if (!isPerItemFailure(error)) {
        for (const waiting of group) waiting.reject(error);
        return;
      }
      await Promise.all(group.map((waiting) => this.#runAlone(waiting, this.#options.runAgainAlone)));
      return;
    }
    for (const [i, waiting] of group.entries()) waiting.resolve(outcomes[i] as O);
  }

  async #runAlone(waiting: Waiting<I, O>, run = this.#options.runOne): Promise<void> {
    try {
      waiting.resolve(await run(waiting.item));
    } catch (error) {
      waiting.reject(error);
    }
  }
}
