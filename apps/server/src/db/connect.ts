/**
 * Opens the store: PostgreSQL when a URL is given (the production store), otherwise embedded
 * PostgreSQL (PGlite) persisted in a directory. Both speak the same SQL through Kysely.
 */
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { PGlitePool } from "./pglite-pool.ts";
import type { Database } from "./types.ts";

const INT8_OID = 20;

export type DatabaseKind = "postgres" | "embedded";

export interface Store {
  db: Kysely<Database>;
  kind: DatabaseKind;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string | undefined;
  dataDir?: string;
  /** A PGlite snapshot (`dumpDataDir()`) to start from: tests load one migrated snapshot. */
  loadDataDir?: Blob;
  /** In-memory embedded database (tests). */
  memory?: boolean;
  poolSize?: number;
}

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8_OID
            ? (value: string) => BigInt(value)
            : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
      },
    });
    // An idle connection that the server ends (a restart, a failover, DROP DATABASE ... FORCE)
    // makes the pool emit "error"; unheard, that event would crash the process. The pool has
    // already discarded the connection and the next query opens a new one, so there is
    // nothing else to do here.
    pool.on("error", () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: "postgres", close: () => db.destroy() };
  }
  const dataDir = options.memory ? undefined : (options.dataDir ?? "./data");
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const lite = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    parsers: { [INT8_OID]: (value: string) => BigInt(value) },
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PGlitePool(lite) }) });
  return { db, kind: "embedded", close: () => db.destroy() };
}
