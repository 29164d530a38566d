/**
 * Opens the store: PostgreSQL when a URL is given (the production store), otherwise embedded
 * PostgreSQL (PGlite) persisted in a directory. Both speak the same SQL through Kysely.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { type DatabaseBounds, DEFAULT_DATABASE_BOUNDS, registerBounds } from "./bounds.ts";
import {
  ChangeFeed,
  ChangeFeedPlugin,
  pgliteListener,
  postgresListener,
  registerChangeFeed,
} from "./changes.ts";
import { DataDirSync, type EmbeddedSyncMode } from "./embedded-sync.ts";
import { PoolAcquireTimeoutError } from "./faults.ts";
import { BoundedPostgresDialect } from "./pg-driver.ts";
import { PGlitePool } from "./pglite-pool.ts";
import { nameStatements, StatementNames } from "./prepared.ts";
import { PrimaryLocator, parseMultiHostUrl, primaryClientClass } from "./primary.ts";
import { parseTimestamptz, TIMESTAMPTZ_OID } from "./timestamps.ts";
import type { Database } from "./types.ts";

const INT8_OID = 20;

/** How the embedded store reads values: bigint columns (money in satang) as bigint. */
export const EMBEDDED_PARSERS = { [INT8_OID]: (value: string) => BigInt(value) };

export type DatabaseKind = "postgres" | "embedded";

export interface Store {
  db: Kysely<Database>;
  kind: DatabaseKind;
  /**
   * Whether the database answers `select 1` within `timeoutMs`, without waiting behind the
   * pool: PostgreSQL is asked on a connection of its own (/readyz).
   */
  reachable(timeoutMs: number): Promise<boolean>;
  /** Changes to cached tables, from this process and every other (db/changes.ts). */
  changes: ChangeFeed;
  /**
   * The embedded store only: a consistent copy of the whole database (a gzipped tar of its
   * directory), taken between transactions while the service runs (`satang backup`).
   */
  dump?: () => Promise<Blob>;
  close(): Promise<void>;
}

interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir?: string;
  /** A PGlite snapshot (`dumpDataDir()`) to start from: tests load one migrated snapshot. */
  loadDataDir?: Blob;
  /** In-memory embedded database (tests). */
  memory?: boolean;
  /**
   * An open embedded database to use instead of opening one, which the caller owns: closing the
   * store leaves it open (tests reuse one database for several stores, db/test helpers).
   */
  embedded?: PGlite;
  poolSize?: number;
  /** Lock, statement and pool waits (DB_* settings); DEFAULT_DATABASE_BOUNDS when absent. */
  bounds?: Partial<DatabaseBounds>;
  /** EMBEDDED_SYNC: whether an embedded commit is on disk before it is answered (default commit). */
  embeddedSync?: EmbeddedSyncMode;
  /**
   * Where the LISTEN connection goes when it must bypass a transaction-pooling PgBouncer
   * (DATABASE_DIRECT_URL); the database URL otherwise.
   */
  listenUrl?: string | undefined;
  /**
   * DATABASE_PREPARED_STATEMENTS: name parameterised statements so PostgreSQL plans them once
   * per connection (db/prepared.ts). PostgreSQL only; on unless set false.
   */
  preparedStatements?: boolean;
}

/** Resolves false when `probe` has not answered true within `timeoutMs`. */
export async function withinTime(probe: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([
      probe.then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `select 1` on a connection of its own, closed afterwards whatever happened; with `query`
 * false, only the connection and its login (a transaction-pooling PgBouncer answers a login
 * without taking a server connection, so its full pool does not make it look down).
 */
async function postgresReachable(target: PostgresTarget, timeoutMs: number, query = true): Promise<boolean> {
  const client = new target.Client({
    connectionString: target.connectionString,
    connectionTimeoutMillis: timeoutMs,
  });
  client.on("error", () => {});
  try {
    return await withinTime(
      client.connect().then(() => (query ? client.query("select 1") : undefined)),
      timeoutMs,
    );
  } finally {
    client.end().catch(() => {});
  }
}

/**
 * Behind a pooler (DATABASE_DIRECT_URL set): the pooler takes a login, and PostgreSQL itself
 * answers `select 1` on a direct connection. A `select 1` through the pooler would wait in its
 * queue behind every process's transactions, so a pool full of busy ones would make every node
 * unready at once while the database is healthy.
 */
async function pooledReachable(
  pooler: PostgresTarget,
  direct: PostgresTarget,
  timeoutMs: number,
): Promise<boolean> {
  const [login, database] = await Promise.all([
    postgresReachable(pooler, timeoutMs, false),
    postgresReachable(direct, timeoutMs),
  ]);
  return login && database;
}

/**
 * The embedded database lives in this process: it is reachable while open and answering. Its
 * one connection being busy for the whole wait (a long transaction) is busy, not down.
 */
async function embeddedReachable(lite: PGlite, db: Kysely<Database>, timeoutMs: number): Promise<boolean> {
  if (lite.closed) return false;
  let timer: NodeJS.Timeout | undefined;
  const busy = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(!lite.closed), timeoutMs);
    timer.unref();
  });
  const answer = sql`select 1`.execute(db).then(
    () => true,
    (error: unknown) => error instanceof PoolAcquireTimeoutError,
  );
  try {
    return await Promise.race([answer, busy]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the rest of the service looks up by store: its change feed and its bounds. */
function registerStore(db: Kysely<Database>, changes: ChangeFeed, bounds: DatabaseBounds): void {
  registerChangeFeed(db, changes);
  registerBounds(db, bounds);
}

/**
 * How to connect to the PostgreSQL a URL names: pg's own Client for one host (exactly as pg
 * reads the URL), or one that finds and follows the primary among several (db/primary.ts).
 */
export interface PostgresTarget {
  connectionString: string;
  Client: typeof pg.Client;
  locator?: PrimaryLocator;
}

export function postgresTarget(url: string, connectTimeoutMs: number): PostgresTarget {
  const multi = parseMultiHostUrl(url);
  if (!multi) return { connectionString: url, Client: pg.Client };
  const locator = new PrimaryLocator(multi, connectTimeoutMs);
  return { connectionString: multi.urlFor(multi.hosts[0]!), Client: primaryClientClass(locator), locator };
}

/** How long the pool keeps a connection nobody uses before closing it. */
export const POOL_IDLE_MS = 300_000;

/** PostgreSQL: a bounded pool, to the one host or to the primary among several (db/primary.ts). */
function openPostgresStore(databaseUrl: string, options: StoreOptions, bounds: DatabaseBounds): Store {
  const target = postgresTarget(databaseUrl, bounds.poolAcquireTimeoutMs);
  const listenTarget = options.listenUrl
    ? postgresTarget(options.listenUrl, bounds.poolAcquireTimeoutMs)
    : target;
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    Client: target.Client,
    max: options.poolSize ?? 10,
    // The wait for a free connection (and for a new one to connect) is bounded: a pool full of
    // transactions blocked on one merchant's lock answers 503, it does not queue forever.
    connectionTimeoutMillis: bounds.poolAcquireTimeoutMs,
    // An idle connection is kept for minutes, not pg's default 10 s: a connection closed after a
    // short lull costs the next burst a new backend (its start, its caches read cold, every named
    // statement prepared again), which held the first second of a load after a 10 s pause at
    // 130 to 180 ms a request (docs/PERFORMANCE.md).
    idleTimeoutMillis: POOL_IDLE_MS,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID
          ? (value: string) => BigInt(value)
          : oid === TIMESTAMPTZ_OID && format !== "binary"
            ? parseTimestamptz
            : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection that the server ends (a restart, a failover, DROP DATABASE ... FORCE)
  // makes the pool emit "error"; unheard, that event would crash the process. The pool has
  // already discarded the connection and the next query opens a new one, so there is
  // nothing else to do here.
  pool.on("error", () => {});
  // A connection that drops while checked out (the database stops, a network cut) fails the
  // query it was running, which the request answers with 503; the client also emits "error",
  // which unheard would crash the process. The pool discards that client when it is released.
  const names = options.preparedStatements === false ? undefined : new StatementNames();
  pool.on("connect", (client) => {
    client.on("error", () => {});
    if (names) nameStatements(client, names);
    // A statement sent outside a transaction (a payment create alone is one INSERT) waits for a
    // lock at most the bound too (CONTRACT 14); transactions set their own with SET LOCAL
    // (db/bounds.ts). Queued before the connection's first query. Behind a transaction-pooling
    // PgBouncer it holds on the server connection it reached, so there SET LOCAL stays the rule.
    client.query(`set lock_timeout = '${Math.trunc(bounds.lockTimeoutMs)}ms'`).catch(() => {});
  });
  const changes = new ChangeFeed(
    postgresListener(() => new listenTarget.Client({ connectionString: listenTarget.connectionString })),
  );
  const db = new Kysely<Database>({
    dialect: new BoundedPostgresDialect({ pool }, bounds),
    plugins: [new ChangeFeedPlugin(changes)],
  });
  registerStore(db, changes, bounds);
  return {
    db,
    kind: "postgres",
    reachable: (timeoutMs) =>
      options.listenUrl
        ? pooledReachable(target, listenTarget, timeoutMs)
        : postgresReachable(target, timeoutMs),
    changes,
    close: () => closeBoth(changes, db),
  };
}

/**
 * The embedded PostgreSQL's start parameters: PGlite's own, with 32 MB of shared buffers instead
 * of PostgreSQL's 128 MB. PGlite touches all of them as it opens, so they were 128 MB of the
 * process's memory from its first second (a fresh `npm start` at about 400 MB); with 32 MB it
 * starts about 100 MB smaller, and reads and writes run as fast on the data a sandbox or a
 * small shop holds (measured in docs/PERFORMANCE.md, "The embedded store's memory"), the
 * operating system caching the files beyond the buffers.
 */
export const EMBEDDED_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams,
  "-c",
  "shared_buffers=32MB",
];

export async function openStore(options: StoreOptions): Promise<Store> {
  const bounds = { ...DEFAULT_DATABASE_BOUNDS, ...options.bounds };
  if (options.databaseUrl) return openPostgresStore(options.databaseUrl, options, bounds);
  const dataDir = options.memory ? undefined : (options.dataDir ?? "./data");
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const lite =
    options.embedded ??
    (await PGlite.create({
      ...(dataDir ? { dataDir } : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      parsers: EMBEDDED_PARSERS,
      startParams: [...EMBEDDED_START_PARAMS],
    }));
  const sync = dataDir && options.embeddedSync !== "off" ? new DataDirSync(dataDir) : undefined;
  const pool = new PGlitePool(lite, {
    acquireTimeoutMs: bounds.poolAcquireTimeoutMs,
    ...(sync ? { commitSync: sync } : {}),
    ...(options.embedded ? { keepOpen: true } : {}),
  });
  const changes = new ChangeFeed(pgliteListener(lite, pool));
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new ChangeFeedPlugin(changes)],
  });
  registerStore(db, changes, bounds);
  return {
    db,
    kind: "embedded",
    reachable: (timeoutMs) => embeddedReachable(lite, db, timeoutMs),
    changes,
    dump: () => dumpEmbedded(lite, pool),
    close: () => closeBoth(changes, db),
  };
}

/**
 * A copy of the embedded database: taken holding its one connection, so between two
 * transactions (nothing half-written is in it), after a CHECKPOINT so that the copy opens
 * without replaying WAL. Every other transaction waits in the queue meanwhile (about a second
 * for a small database; docs/operations.md).
 */
async function dumpEmbedded(lite: PGlite, pool: PGlitePool): Promise<Blob> {
  const connection = await pool.connect();
  try {
    await lite.query("checkpoint");
    return await lite.dumpDataDir("gzip");
  } finally {
    connection.release();
  }
}

/** Whether `dataDir` already holds an embedded database (initdb writes PG_VERSION first). */
export function embeddedStoreExists(dataDir: string): boolean {
  return existsSync(join(dataDir, "PG_VERSION"));
}

async function closeBoth(changes: ChangeFeed, db: Kysely<Database>): Promise<void> {
  await changes.close();
  await db.destroy();
}
