/**
 * The bench's own PostgreSQL database: a fresh one per run, created on the server that
 * BENCH_DATABASE_URL names (default the local one) and dropped afterwards (BENCH_KEEP=1 keeps
 * it), so a run never shares rows with tests or with an earlier run.
 */
import pg from "pg";

export const DEFAULT_BENCH_URL = "postgres://postgres@127.0.0.1:5432/postgres";

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function admin(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export interface BenchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createBenchDatabase(serverUrl: string, label: string): Promise<BenchDatabase> {
  const name = `satang_bench_${label}_${process.pid}`;
  await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  // BENCH_PG_LOG=1: PostgreSQL logs every statement of this database with its duration (parse,
  // bind and execute apart), for a look at where its time goes; the server's log, not ours.
  if (process.env.BENCH_PG_LOG) {
    await admin(serverUrl, `ALTER DATABASE ${name} SET log_min_duration_statement = 0`);
  }
  return {
    url: withDatabase(serverUrl, name),
    name,
    drop: async () => {
      if (process.env.BENCH_KEEP) return;
      await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Runs `text` on `url` on a connection of its own; the rows it returns. */
export async function query<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/**
 * Lets the database settle between two scenarios: vacuums and analyzes what the last one
 * wrote and writes its dirty pages out, so autovacuum and the checkpointer do not start on
 * the last scenario's rows in the middle of the next one's measurement (both run in
 * PostgreSQL's own processes on the two cores the loads share).
 */
export async function settle(url: string): Promise<void> {
  await query(url, "VACUUM (ANALYZE)");
  await query(url, "CHECKPOINT");
}
