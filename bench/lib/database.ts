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

/** WAL files of 16 MB ready ahead of where PostgreSQL writes now (recycled, or made ahead). */
async function walFilesAhead(url: string): Promise<number | undefined> {
  try {
    const [row] = await query<{ ahead: number }>(
      url,
      `SELECT count(*)::int AS ahead FROM pg_ls_waldir()
        WHERE name ~ '^[0-9A-F]{24}$' AND name > pg_walfile_name(pg_current_wal_insert_lsn())`,
    );
    return row?.ahead;
  } catch {
    return undefined; // pg_ls_waldir needs a superuser or pg_monitor: the state is not known
  }
}

/** WAL files a run's loads write at most between two checkpoints (settle), with room. */
const WAL_FILES_WANTED = 40;

/**
 * Brings the PostgreSQL server's WAL to the state of a server that has run a while: its WAL
 * files recycled ahead of where it writes. A new cluster has none, and makes each 16 MB file as
 * it first needs it (zero-filled and synced, while every commit waits), which costs the service,
 * whose create writes about 20 times the baseline INSERT's WAL, a fifth of R1 on this machine
 * (docs/PERFORMANCE.md, "A new cluster's WAL"). A server in production recycles its WAL files at
 * each checkpoint once it has written `max_wal_size` or so; the bench gets there by writing about
 * 700 MB of WAL through a throwaway table and checkpointing, once, when the files are not there.
 * `BENCH_WAL=as-is` measures the server as it is (a new cluster's WAL, say).
 * Answers what it found and did, for the run's header.
 */
export async function recycledWal(url: string): Promise<string> {
  const before = await walFilesAhead(url);
  if (process.env.BENCH_WAL === "as-is") return `WAL as found (${before ?? "unknown"} files ahead)`;
  if (before === undefined) return "WAL files ahead unknown (pg_ls_waldir not allowed)";
  if (before >= WAL_FILES_WANTED) return `${before} WAL files ahead`;
  const rows = Math.round((700 * 1024 * 1024) / 260);
  await query(url, "DROP TABLE IF EXISTS satang_bench_wal");
  await query(
    url,
    `CREATE TABLE satang_bench_wal AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, ${rows}) g`,
  );
  await query(url, "DROP TABLE satang_bench_wal");
  await query(url, "CHECKPOINT");
  return `${(await walFilesAhead(url)) ?? "unknown"} WAL files ahead (recycled by the bench; ${before} before)`;
}
