/**
 * Kysely's PostgresDialect over one embedded PGlite instance. PGlite is a single connection in
 * one process, so this "pool" hands that connection to one holder at a time: transactions run
 * one after another, in the order they asked (a FIFO queue).
 *
 * Inside a transaction, use only the transaction handle: asking for another connection there
 * would wait for the one the transaction itself holds.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";

function commandOf(sqlText: string): PostgresQueryResult<unknown>["command"] {
  const match = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge|select)\b/i.exec(sqlText);
  const word = (match?.[1] ?? "SELECT").toUpperCase();
  return word as PostgresQueryResult<unknown>["command"];
}

export class PGlitePool implements PostgresPool {
  readonly options = {};
  private readonly queue: Array<() => void> = [];
  private busy = false;
  private readonly client: PostgresPoolClient;

  constructor(private readonly pg: PGlite) {
    this.client = {
      processID: 1,
      query: async (sqlText: string, parameters: readonly unknown[]) => {
        const result = await pg.query(sqlText, parameters as unknown[]);
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
    await this.acquire();
    return this.client;
  }

  async end(): Promise<void> {
    await this.acquire();
    try {
      if (!this.pg.closed) await this.pg.close();
    } finally {
      this.releaseConnection();
    }
  }

  private acquire(): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private releaseConnection(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.busy = false;
  }
}
