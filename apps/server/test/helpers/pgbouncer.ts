/**
 * Debian's PgBouncer for tests, started by the test itself: transaction pooling in front of
 * the PostgreSQL server of TEST_DATABASE_URL, on a free port, with a generated ini and
 * `auth_type = any` (every client logs in as the server user of that URL). The binary is
 * PGBOUNCER_PATH, else /usr/sbin/pgbouncer; a PostgreSQL run without it fails, never skips.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, chmodSync, constants, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { temporaryDir, waitFor } from "./processes.ts";

export const DEFAULT_PGBOUNCER_PATH = "/usr/sbin/pgbouncer";

/** The PgBouncer binary, or an error saying how to get one. */
export function pgbouncerPath(): string {
  const path = process.env.PGBOUNCER_PATH || DEFAULT_PGBOUNCER_PATH;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `PgBouncer not found at ${path}: install Debian's pgbouncer (apt-get install pgbouncer; .ci/run does) ` +
        "or set PGBOUNCER_PATH",
    );
  }
  return path;
}

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface PgBouncer {
  port: number;
  /** The URL of `database` through PgBouncer. */
  url(database: string): string;
  /** What PgBouncer logged. */
  output(): string;
  close(): Promise<void>;
}

function iniText(server: URL, port: number, poolSize: number): string {
  const password = server.password ? ` password=${decodeURIComponent(server.password)}` : "";
  return [
    "[databases]",
    `* = host=${server.hostname} port=${server.port || 5432} user=${decodeURIComponent(server.username || "postgres")}${password}`,
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    "unix_socket_dir =",
    "auth_type = any",
    "pool_mode = transaction",
    `default_pool_size = ${poolSize}`,
    "max_client_conn = 500",
    // PgBouncer refuses to run as root: it drops to the PostgreSQL user after reading this file.
    ...(userInfo().uid === 0 ? ["user = postgres"] : []),
    "",
  ].join("\n");
}

/** Starts PgBouncer in transaction-pooling mode in front of `serverUrl`'s PostgreSQL. */
export async function startPgBouncer(serverUrl: string, poolSize: number): Promise<PgBouncer> {
  const binary = pgbouncerPath();
  const dir = temporaryDir("satang-pgbouncer-");
  chmodSync(dir, 0o755);
  const port = await freePort();
  const ini = join(dir, "pgbouncer.ini");
  writeFileSync(ini, iniText(new URL(serverUrl), port, poolSize), { mode: 0o644 });
  const child: ChildProcess = spawn(binary, [ini], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = (database: string) => `postgres://satang@127.0.0.1:${port}/${database}`;
  await waitFor(
    "PgBouncer to accept connections",
    async () => {
      if (child.exitCode !== null) throw new Error(`PgBouncer exited with ${child.exitCode}:\n${output}`);
      const client = new pg.Client({ connectionString: url("postgres") });
      client.on("error", () => {});
      try {
        await client.connect();
        await client.query("select 1");
        return true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => {});
      }
    },
    30_000,
  );
  return {
    port,
    url,
    output: () => output,
    close: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
