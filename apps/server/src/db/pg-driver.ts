/**
 * Kysely's driver for PostgreSQL, over pg's pool, with two savings in round trips:
 *
 * - **BEGIN travels with the transaction's first statement.** Every transaction opens with
 *   `BEGIN` and its bounds (db/bounds.ts `beginStatement`); the driver holds them back and
 *   sends them in the same write as the first statement, so a transaction costs no round trip
 *   of its own. A transaction that ran no statement sends nothing, not even its COMMIT.
 * - **Statements sent together** (`runTogether`): statements whose values do not depend on each
 *   other's results go out in one write and are answered in order. Each keeps its own snapshot
 *   and its own error, as if sent one after another; inside a transaction a failed statement
 *   leaves the transaction aborted, so the ones behind it fail too and nothing is kept.
 * - **The last statements with the COMMIT** (`runTogetherAndCommit`): a transaction's final
 *   statements and its COMMIT in one write. PostgreSQL ends a transaction
 *   whose statement failed with a rollback even when the COMMIT follows it, so a failed
 *   statement still leaves nothing behind. The transaction is over once they are answered:
 *   Kysely's own COMMIT afterwards sends nothing.
 *
 * - **Settings for the rest of a transaction travel in its BEGIN** (`transactionSettings`): sent
 *   as a transaction's first statements, they are written into the held-back BEGIN as
 *   `SET LOCAL`s instead of going as statements of their own (a lock bound after a wait in the
 *   queue, db/key-queue.ts; withdraw admission's plan mode).
 *
 * All use pg's pipeline mode, switched on only while statements are in flight together (pg
 * answers them from its queue of sent queries), and off again once all of them are answered,
 * so every other query runs exactly as pg runs it by default. The embedded store (PGlite) runs
 * in this process: there `runTogether` runs the statements one after another.
 */
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type PostgresDialectConfig,
  type QueryResult,
  sql,
  type TransactionSettings,
} from "kysely";
import type pg from "pg";
import { beginStatement, type DatabaseBounds } from "./bounds.ts";
import { stalePlan } from "./faults.ts";
import type { Db, Trx } from "./handles.ts";

type PipelineClient = pg.PoolClient & {
  pipeline: boolean;
  connection?: { stream?: { cork?: () => void; uncork?: () => void } };
};

function resultOf<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  const affects = command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE";
  return {
    numAffectedRows: affects ? BigInt(rowCount ?? 0) : undefined,
    rows: (rows ?? []) as R[],
  };
}

interface SettingsSent {
  settings: Readonly<Record<string, string>>;
  /** Only worth sending in the BEGIN: elsewhere left out (`transactionSettings`). */
  onlyInBegin: boolean;
}

/** The settings of `transactionSettings` statements, by their compiled query. */
const SETTINGS_OF = new WeakMap<CompiledQuery, SettingsSent>();

/** What a setting's name and value may be to be written into a BEGIN's text. */
const SETTING_NAME = /^[a-z_]+$/;
const SETTING_VALUE = /^[A-Za-z0-9_]+$/;

/**
 * A statement that sets `settings` for the rest of the transaction it is sent in (`SET LOCAL`).
 * Sent first in a transaction on PostgreSQL, it costs no statement: the driver writes the
 * settings into the transaction's held-back BEGIN (a later `SET LOCAL` of a name wins over the
 * bounds'). Anywhere else it runs as `select set_config(...)`, with the same effect; or, with
 * `onlyInBegin` (a setting that only saves work, never one a rule needs), it is left out.
 */
export function transactionSettings(
  db: Db,
  settings: Readonly<Record<string, string>>,
  options: { onlyInBegin?: boolean } = {},
): Statement<void> {
  const entries = Object.entries(settings);
  for (const [name, value] of entries) {
    if (!SETTING_NAME.test(name) || !SETTING_VALUE.test(value)) {
      throw new Error(`setting ${name} = ${value} cannot be sent`);
    }
  }
  const calls = sql.join(entries.map(([name, value]) => sql`set_config(${name}, ${value}, true)`));
  const query = sql`select ${calls}`.compile(db);
  SETTINGS_OF.set(query, { settings, onlyInBegin: options.onlyInBegin ?? false });
  return { query, decode: () => {} };
}

/**
 * How each of `queries` goes: written into the held-back BEGIN (`begin`, when there is one;
 * the settings statements that open the queries), left out (an `onlyInBegin` one that cannot
 * be), or sent.
 */
function routeSettings(
  begin: string | undefined,
  queries: readonly CompiledQuery[],
): { begin: string | undefined; sent: boolean[] } {
  let text = begin;
  let opening = begin !== undefined;
  const sent = queries.map((query) => {
    const found = SETTINGS_OF.get(query);
    if (!found) {
      opening = false;
      return true;
    }
    if (opening) {
      for (const [name, value] of Object.entries(found.settings)) text += `; set local ${name} = '${value}'`;
      return false;
    }
    return !found.onlyInBegin;
  });
  return { begin: text, sent };
}

/**
 * A write refused because the server is read-only (SQLSTATE 25006, read_only_sql_transaction):
 * the connection reached a standby, such as a former primary a failover demoted while it kept
 * running, or one an HA engine set read-only while it drains. Every later write on the same
 * connection would be refused too.
 */
function readOnlyNode(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "25006";
}

/** One pooled pg connection as Kysely sees it. */
export class PgConnection implements DatabaseConnection {
  /** The BEGIN (with its bounds) this connection owes the server, sent with the next statement. */
  private pendingBegin: string | undefined;
  /** The transaction committed with its last statements (`executeTogether` with `commit`). */
  private committed = false;
  /**
   * The server refused a write as read-only (`readOnlyNode`): this connection reached a node
   * that is (or has become) a standby, so it is closed when released instead of pooled.
   */
  private onReadOnlyNode = false;
  /**
   * A statement this connection prepared by name no longer fits the schema (`stalePlan`): the
   * connection is closed when released, so its named statements go with it and the next one
   * prepares them again against the schema as it is now.
   */
  private preparedStale = false;

  constructor(readonly client: PipelineClient) {}

  /** Why the connection must be closed rather than pooled, if it must; clears the mark. */
  takeDiscard(): "read-only node" | "stale prepared statements" | undefined {
    const discard = this.onReadOnlyNode
      ? "read-only node"
      : this.preparedStale
        ? "stale prepared statements"
        : undefined;
    this.onReadOnlyNode = false;
    this.preparedStale = false;
    return discard;
  }

  private noteFailure(error: unknown): never {
    if (readOnlyNode(error)) this.onReadOnlyNode = true;
    if (stalePlan(error)) this.preparedStale = true;
    throw error;
  }

  deferBegin(text: string): void {
    this.pendingBegin = text;
  }

  /**
   * Whether the transaction's end is already settled: it sent nothing yet (its BEGIN is still
   * held back), or it committed with its last statements. Clears both.
   */
  takeSettledEnd(): boolean {
    const settled = this.pendingBegin !== undefined || this.committed;
    this.pendingBegin = undefined;
    this.committed = false;
    return settled;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.pendingBegin !== undefined) return (await this.executeTogether([compiled]))[0] as QueryResult<R>;
    return resultOf<R>(
      await this.client
        .query(compiled.sql, [...compiled.parameters])
        .catch((error: unknown) => this.noteFailure(error)),
    );
  }

  // biome-ignore lint/correctness/useYield: the service never streams; Kysely's interface asks for it.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported by this driver");
  }

  /**
   * Sends `queries` (after the held-back BEGIN, if any, and before the COMMIT when `commit`) in
   * one write and waits for every answer; their results in order, or the first error in order
   * once all are answered, so the connection is idle again whichever way this ends.
   */
  async executeTogether(
    queries: readonly CompiledQuery[],
    options: { commit?: boolean } = {},
  ): Promise<QueryResult<unknown>[]> {
    // Settings sent first in the transaction go in its BEGIN: answered with no rows, as are
    // those left out.
    const { begin, sent: sending } = routeSettings(this.pendingBegin, queries);
    this.pendingBegin = undefined;
    const client = this.client;
    const sent: Promise<pg.QueryResult>[] = [];
    const stream = client.connection?.stream;
    client.pipeline = true;
    stream?.cork?.();
    try {
      if (begin !== undefined) sent.push(client.query(begin));
      for (const [i, query] of queries.entries()) {
        if (sending[i]) sent.push(client.query(query.sql, [...query.parameters]));
      }
      if (options.commit) sent.push(client.query("commit"));
    } catch (error) {
      sent.push(Promise.reject(error));
    } finally {
      stream?.uncork?.();
    }
    let settled: PromiseSettledResult<pg.QueryResult>[];
    try {
      settled = await Promise.allSettled(sent);
    } finally {
      client.pipeline = false;
    }
    const failed = settled.find((outcome) => outcome.status === "rejected");
    if (failed) this.noteFailure(failed.reason);
    const answers = settled.map((outcome) => (outcome as PromiseFulfilledResult<pg.QueryResult>).value);
    if (options.commit) {
      // A COMMIT of a transaction that failed earlier answers ROLLBACK, not an error.
      const end = answers.pop()!;
      if (end.command !== "COMMIT") throw new Error(`the transaction ended with ${end.command}, not COMMIT`);
      this.committed = true;
    }
    const results = answers.map((answer) => resultOf(answer));
    if (begin !== undefined) results.shift();
    return sending.map((wasSent) => (wasSent ? results.shift()! : { rows: [] }));
  }
}

class PgDriver implements Driver {
  private pool: pg.Pool | undefined;
  private readonly connections = new WeakMap<pg.PoolClient, PgConnection>();

  constructor(
    private readonly config: PostgresDialectConfig,
    private readonly bounds: DatabaseBounds,
  ) {}

  async init(): Promise<void> {
    const pool = this.config.pool;
    this.pool = (typeof pool === "function" ? await pool() : pool) as unknown as pg.Pool;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (!this.pool) throw new Error("driver has already been destroyed");
    const client = await this.pool.connect();
    let connection = this.connections.get(client);
    if (!connection) {
      connection = new PgConnection(client as PipelineClient);
      this.connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    (connection as PgConnection).deferBegin(beginStatement(this.bounds, settings));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    if ((connection as PgConnection).takeSettledEnd()) return;
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A transaction that committed with its last statements has nothing left to roll back.
    if ((connection as PgConnection).takeSettledEnd()) return;
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const pg = connection as PgConnection;
    // A connection goes back to the pool with nothing held back for its next user; one that
    // reached a read-only node is closed (pg's pool drops a client released with an error), and
    // the primary it was found as forgotten (db/primary.ts), so the next connection is made
    // anew, to the node that is primary now.
    pg.takeSettledEnd();
    const discard = pg.takeDiscard();
    if (discard === undefined) {
      pg.client.release();
      return;
    }
    if (discard === "read-only node") {
      (pg.client as { readOnlyNodeSeen?: () => void }).readOnlyNodeSeen?.();
    }
    pg.client.release(new Error(`connection closed: ${discard}`));
  }

  async destroy(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}

/** Kysely's PostgresDialect with this file's driver: every transaction opens with its bounds. */
export class BoundedPostgresDialect extends PostgresDialect {
  constructor(
    private readonly config: PostgresDialectConfig,
    private readonly bounds: DatabaseBounds,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new PgDriver(this.config, this.bounds);
  }
}

/** A statement ready to send, and how to read its answer. */
export interface Statement<T> {
  query: CompiledQuery;
  decode(result: QueryResult<unknown>): T;
}

/**
 * Runs statements whose values do not depend on each other in one round trip on PostgreSQL
 * (one after another on the embedded store), each with its own snapshot, in order; the decoded
 * answers, or the first statement's error in order. On a transaction they run in it.
 */
export function runTogether<T extends unknown[]>(
  db: Db,
  ...statements: { [K in keyof T]: Statement<T[K]> }
): Promise<T> {
  return sendTogether<T>(db, statements, false);
}

/**
 * `runTogether` for a transaction's last statements, with its COMMIT in the same round trip on
 * PostgreSQL: the transaction has committed when this resolves (on the embedded store it commits
 * when its work returns, as any transaction does). Only the code that opened the transaction may
 * call it, as the last thing its work does: a transaction it joined would commit with it, and
 * an error thrown afterwards could no longer roll anything back.
 */
export function runTogetherAndCommit<T extends unknown[]>(
  trx: Trx,
  ...statements: { [K in keyof T]: Statement<T[K]> }
): Promise<T> {
  return sendTogether<T>(trx, statements, true);
}

async function sendTogether<T extends unknown[]>(
  db: Db,
  statements: readonly Statement<unknown>[],
  commit: boolean,
): Promise<T> {
  const queries = statements.map((statement) => statement.query);
  const results = await db.getExecutor().provideConnection(async (connection) => {
    if (connection instanceof PgConnection) return connection.executeTogether(queries, { commit });
    const answers: QueryResult<unknown>[] = [];
    for (const query of queries) {
      const skipped = SETTINGS_OF.get(query)?.onlyInBegin === true;
      answers.push(skipped ? { rows: [] } : await connection.executeQuery(query));
    }
    return answers;
  });
  return statements.map((statement, i) => statement.decode(results[i]!)) as T;
}

/** Runs one statement. */
export async function runStatement<T>(db: Db, statement: Statement<T>): Promise<T> {
  const [answer] = await runTogether<[T]>(db, statement);
  return answer;
}
