/**
 * Kysely's PostgresDialect over one embedded PGlite instance. PGlite is a single connection in
 * one process, so this "pool" hands that connection to one holder at a time: transactions run
 * one after another, in the order they asked (a FIFO queue).
 *
 * Inside a transaction, use only the transaction handle: asking for another connection there
 * would wait for the one the transaction itself holds.
 *
 * The wait for the connection is bounded (`acquireTimeoutMs`, DB_POOL_ACQUIRE_TIMEOUT_MS): a
 * caller still queued then gets PoolAcquireTimeoutError (503). With a `commitSync`, a commit
 * that wrote is on disk before the caller hears of it (db/embedded-sync.ts).
 */
import type { PGlite } from "@electric-sql/pglite";
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import type { CommitSync } from "./embedded-sync.ts";
import { PoolAcquireTimeoutError } from "./faults.ts";

function commandOf(sqlText: string): PostgresQueryResult<unknown>["command"] {
  const match = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge|select)\b/i.exec(sqlText);
  const word = (match?.[1] ?? "SELECT").toUpperCase();
  return word as PostgresQueryResult<unknown>["command"];
}

export interface PGlitePoolOptions {
  /** Longest wait for the connection; unbounded when absent. */
  acquireTimeoutMs?: number;
  /** Makes each commit that wrote durable before it is answered. */
  commitSync?: CommitSync;
  /** Leaves the database open when the pool ends: its owner closes it (tests reuse one). */
  keepOpen?: boolean;
}

/** Statements that end a transaction, and those that open one. */
const ENDS = /^\s*(commit|end|abort|rollback(?!\s+to\b))\b/i;
const BEGINS = /^\s*(begin|start\s+transaction)\b/i;

export class PGlitePool implements PostgresPool {
  readonly options = {};
  private readonly queue: Array<() => void> = [];
  private busy = false;
  private readonly client: PostgresPoolClient;
  private inTransaction = false;
  private syncedLsn: string | undefined;

  constructor(
    private readonly pg: PGlite,
    private readonly settings: PGlitePoolOptions = {},
  ) {
    this.client = {
      processID: 1,
      query: async (sqlText: string, parameters: readonly unknown[]) => {
        const result = await pg.query(sqlText, parameters as unknown[]);
        await this.afterStatement(sqlText);
        return {
          command: commandOf(sqlText),
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        };
      },
      release: () => this.releaseConnection(),
    } as unknown as PostgresPoolClient;
  }

  async connect(): Promise<PostgresPoolClient> {
    await this.acquire(true);
    return this.client;
  }

  async end(): Promise<void> {
    await this.acquire(false);
    try {
      if (!this.pg.closed && !this.settings.keepOpen) await this.pg.close();
    } finally {
      this.releaseConnection();
    }
  }

  /**
   * After a commit, or a statement outside a transaction, syncs when the write-ahead log moved
   * since the last sync: whatever wrote (an INSERT, DDL, a function), the log shows it. A failed
   * statement throws before this runs; a rollback writes nothing that needs keeping.
   */
  private async afterStatement(sqlText: string): Promise<void> {
    const sync = this.settings.commitSync;
    if (!sync) return;
    if (BEGINS.test(sqlText)) {
      this.inTransaction = true;
      return;
    }
    if (ENDS.test(sqlText)) this.inTransaction = false;
    else if (this.inTransaction) return;
    const { rows } = await this.pg.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn");
    const lsn = rows[0]?.lsn;
    if (lsn === this.syncedLsn) return;
    sync.sync();
    this.syncedLsn = lsn;
  }

  /** Takes the connection; `bounded` waits at most acquireTimeoutMs (closing waits for it). */
  private acquire(bounded: boolean): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    const timeoutMs = bounded ? this.settings.acquireTimeoutMs : undefined;
    return new Promise((resolve, reject) => {
      if (timeoutMs === undefined) {
        this.queue.push(resolve);
        return;
      }
      const waiter = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(new PoolAcquireTimeoutError(timeoutMs));
      }, timeoutMs);
      this.queue.push(waiter);
    });
  }

  private releaseConnection(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy = false;
  }
}
