/**
 * A small production-shaped deployment for tests: PgBouncer in transaction-pooling mode in
 * front of a fresh PostgreSQL database, API nodes (`satang serve --no-workers`) and
 * `satang worker` processes whose DATABASE_URL goes through PgBouncer and whose
 * DATABASE_DIRECT_URL (LISTEN) goes straight to PostgreSQL, the rate limit in Redis, and a
 * local webhook receiver. Every process starts at once on the empty database, so the
 * migrations race through the pooler too.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { ADMIN_TOKEN } from "../../../../reliability/chaos-server.ts";
import { openStore, type Store } from "../../src/db/connect.ts";
import { freePort, type PgBouncer, startPgBouncer } from "./pgbouncer.ts";
import { spawnSatang, temporaryDir, type Worker, waitFor } from "./processes.ts";
import { type Receiver, startReceiver } from "./webhooks.ts";

export { ADMIN_TOKEN };

export interface Deployment {
  /** Base URLs of the API nodes. */
  api: string[];
  processes: Worker[];
  bouncer: PgBouncer;
  /** The database straight, for the test's own checks. */
  store: Store;
  receiver: Receiver;
  redisUrl: string;
  close(): Promise<void>;
}

export interface DeploymentOptions {
  apiNodes: number;
  workers: number;
  /** RATE_LIMIT_PER_MINUTE of every node. */
  rateLimitPerMinute: number;
  /** PgBouncer's server connections for the database. */
  poolSize: number;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Waits until every API node answers /readyz and every worker says it started. */
async function waitReady(api: string[], processes: Worker[]): Promise<void> {
  const outputs = () => processes.map((p, i) => `--- process ${i}:\n${p.output().slice(-2000)}`).join("\n");
  await waitFor(
    "every process to start",
    async () => {
      for (const proc of processes) {
        if (proc.child.exitCode !== null)
          throw new Error(`a process exited with ${proc.child.exitCode}:\n${proc.output()}`);
      }
      const ready = await Promise.all(
        api.map((url) =>
          fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
            (res) => res.status === 200,
            () => false,
          ),
        ),
      );
      const workersUp = processes.slice(api.length).every((w) => w.output().includes("worker started"));
      return ready.every(Boolean) && workersUp;
    },
    180_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${outputs()}`);
  });
}

async function stopAll(processes: Worker[]): Promise<void> {
  await Promise.all(
    processes.map(async (proc) => {
      if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGTERM");
      await proc.exited;
    }),
  );
}

export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) throw new Error("TEST_DATABASE_URL is required");
  const name = `satang_pgb_${process.pid}_${randomBytes(4).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const directUrl = databaseUrl(server, name);
  const bouncer = await startPgBouncer(server, options.poolSize);
  const receiver = await startReceiver();
  const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
  const common = {
    SATANG_ENV: "sandbox",
    DATABASE_URL: bouncer.url(name),
    DATABASE_DIRECT_URL: directUrl,
    REDIS_URL: redisUrl,
    RATE_LIMIT_PER_MINUTE: String(options.rateLimitPerMinute),
    ADMIN_TOKEN,
    SECRET_KEY: "7".repeat(64),
    SANDBOX_PAYOUT_PICKUP: "automatic",
    HTTP_CONNECTIONS_PER_ADDRESS_MAX: "100000",
    LOG_LEVEL: "warn",
  };
  const ports = await Promise.all(Array.from({ length: options.apiNodes }, () => freePort()));
  const api = ports.map((port) => `http://127.0.0.1:${port}`);
  const processes = [
    ...ports.map((port) =>
      spawnSatang(["serve", "--no-workers"], {
        ...common,
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: temporaryDir(),
      }),
    ),
    // Workers at info level: "worker started" is how the test knows one is up.
    ...Array.from({ length: options.workers }, () =>
      spawnSatang(["worker"], { ...common, LOG_LEVEL: "info", DATA_DIR: temporaryDir() }),
    ),
  ];
  const store = await openStore({ databaseUrl: directUrl, poolSize: 4 });
  const close = async () => {
    await stopAll(processes);
    await store.close().catch(() => {});
    await receiver.close();
    await bouncer.close();
    await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  try {
    await waitReady(api, processes);
  } catch (error) {
    await close();
    throw error;
  }
  return { api, processes, bouncer, store, receiver, redisUrl, close };
}
