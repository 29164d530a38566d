/**
 * R9: webhook delivery to one endpoint whose receiver answers in 5 ms.
 *
 *   npm run bench:webhooks                                   # PostgreSQL on 127.0.0.1:5432
 *   BENCH_DATABASE_URL=postgres://user@host:5432/postgres npm run bench:webhooks
 *   BENCH_WEBHOOK_EVENTS=2000 npm run bench:webhooks          # a smaller backlog
 *
 * On a private database (created and dropped here), with real `satang worker` processes:
 *
 * 1. drain: 10,000 events are written first (one endpoint subscribes), then one worker starts;
 *    deliveries/s from the first delivery to the last, and the whole drain time;
 * 2. stream: events written at 250/s for 10 s while the worker runs: deliveries/s and the lag
 *    from commit to arrival (p50, p99);
 * 3. resume: a second worker joins, a backlog is written, and the first worker is killed with
 *    SIGKILL halfway; the time from the kill until every delivery leased at that moment has
 *    arrived (the dead worker's ones wait for their leases to run out).
 *
 * The receiver counts every `webhook-id`: each event must arrive at least once; repeats (a
 * delivery the dead worker had sent but not recorded) are reported.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import pg from "pg";
import { loadConfig } from "../apps/server/src/config.ts";
import { openStore } from "../apps/server/src/db/connect.ts";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { buildDeps } from "../apps/server/src/deps.ts";
import { createEndpoint } from "../apps/server/src/events/endpoints.ts";
import { recordEvent } from "../apps/server/src/events/outbox.ts";
import { SecretBox } from "../apps/server/src/lib/crypto.ts";
import { newId } from "../apps/server/src/lib/ids.ts";
import { createMerchant } from "../apps/server/src/merchants/service.ts";

const BACKLOG = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
const STREAM_RATE = 250;
const STREAM_SECONDS = 10;
const RESUME_BACKLOG = Math.min(4_000, BACKLOG);
const RECEIVER_DELAY_MS = 5;
const RECEIVER_PORT = Number(process.env.BENCH_WEBHOOK_PORT ?? 7201);
const SECRET_KEY = Buffer.alloc(32, 7);
const serverRoot = fileURLToPath(new URL("../apps/server/", import.meta.url));

const adminUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const databaseName = `webhooks_bench_${process.pid}`;
const databaseUrl = (() => {
  const url = new URL(adminUrl);
  url.pathname = `/${databaseName}`;
  return url.toString();
})();

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

// The receiver: answers 200 after 5 ms and remembers when each webhook-id arrived.
const arrivals = new Map<string, number[]>();
let arrived = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    const id = String(request.headers["webhook-id"]);
    const times = arrivals.get(id) ?? [];
    times.push(performance.now());
    arrivals.set(id, times);
    arrived += 1;
    setTimeout(() => response.end("ok"), RECEIVER_DELAY_MS);
  });
});
receiver.keepAliveTimeout = 5_000;
await new Promise<void>((resolve) => receiver.listen(RECEIVER_PORT, "127.0.0.1", resolve));

await admin(`CREATE DATABASE ${databaseName}`);
const store = await openStore({ databaseUrl, poolSize: 5 });
const dataDir = mkdtempSync(join(tmpdir(), "webhooks-bench-"));
const workers: ChildProcess[] = [];

function spawnWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "worker"], {
    cwd: serverRoot,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATABASE_URL: databaseUrl,
      SATANG_ENV: "sandbox",
      SECRET_KEY: SECRET_KEY.toString("hex"),
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  workers.push(child);
  child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      output += chunk;
      if (output.length > 100_000) output = output.slice(-10_000);
      if (output.includes("worker started")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited (${code}) before it started: ${output}`)));
  });
}

async function until(done: () => boolean | Promise<boolean>, what: string, limitMs = 600_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 0 elsewhere). */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

try {
  await migrateToLatest(store.db);
  const deps = buildDeps({
    config: loadConfig({ ADMIN_TOKEN: "bench-admin-token-000000" }),
    db: store.db,
    storeKind: store.kind,
    secrets: new SecretBox(SECRET_KEY),
  });
  const merchant = await createMerchant(deps, {
    name: "Webhook Bench",
    promptpayId: "0812345678",
    collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Webhook Bench" },
    promptpayReuse: false,
  });
  await createEndpoint(deps, merchant, { url: `http://127.0.0.1:${RECEIVER_PORT}/hooks`, events: ["*"] });

  /** Writes `count` events through the outbox, `perTransaction` per commit; returns their ids. */
  const writeEvents = async (count: number, perTransaction = 500): Promise<string[]> => {
    const ids: string[] = [];
    for (let done = 0; done < count; done += perTransaction) {
      await store.db.transaction().execute(async (trx) => {
        for (let i = done; i < Math.min(count, done + perTransaction); i++) {
          const at = new Date();
          const object = { id: newId(), status: "succeeded", amount: "1000.00", updatedAt: at.toISOString() };
          const event = await recordEvent(trx, {
            merchantId: merchant.id,
            type: "payment.received",
            objectType: "payment",
            object,
            occurredAt: at,
          });
          ids.push(event.id);
        }
      });
    }
    return ids;
  };
  const allArrived = (ids: string[]) => ids.every((id) => arrivals.has(id));

  // 1. Drain a backlog with one worker.
  const backlog = await writeEvents(BACKLOG);
  const spawnedAt = performance.now();
  const first = await spawnWorker();
  const cpuAtStart = cpuMs(first.pid);
  await until(() => allArrived(backlog), "the backlog to drain");
  const workerCpuMs = cpuMs(first.pid) - cpuAtStart;
  const firstArrival = Math.min(...backlog.map((id) => arrivals.get(id)![0]!));
  const lastArrival = Math.max(...backlog.map((id) => arrivals.get(id)![0]!));
  const drainSeconds = (lastArrival - firstArrival) / 1000;
  const drain = {
    events: BACKLOG,
    deliveriesPerSecond: Math.round((BACKLOG - 1) / drainSeconds),
    drainSeconds: round(drainSeconds, 2),
    fromWorkerSpawnSeconds: round((lastArrival - spawnedAt) / 1000, 2),
    workerCpuMsPerDelivery: round(workerCpuMs / BACKLOG, 2),
    goal: ">= 200/s",
  };
  console.log(JSON.stringify({ r9: "drain", ...drain }));

  // 2. A steady stream while the worker runs.
  const streamed: Array<{ id: string; committedAt: number }> = [];
  const streamStart = performance.now();
  const perTick = STREAM_RATE / 50;
  for (let tick = 0; tick < STREAM_SECONDS * 50; tick++) {
    const ids = await writeEvents(perTick, perTick);
    const committedAt = performance.now();
    for (const id of ids) streamed.push({ id, committedAt });
    const next = streamStart + (tick + 1) * 20;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  await until(() => allArrived(streamed.map((s) => s.id)), "the stream to arrive");
  const lags = streamed.map((s) => arrivals.get(s.id)![0]! - s.committedAt);
  const streamEnd = Math.max(...streamed.map((s) => arrivals.get(s.id)![0]!));
  const lastCommit = Math.max(...streamed.map((s) => s.committedAt));
  const stream = {
    offeredPerSecond: Math.round(streamed.length / ((lastCommit - streamStart) / 1000)),
    deliveriesPerSecond: Math.round(streamed.length / ((streamEnd - streamStart) / 1000)),
    lagP50Ms: Math.round(percentile(lags, 50)),
    lagP99Ms: Math.round(percentile(lags, 99)),
  };
  console.log(JSON.stringify({ r9: "stream", ...stream }));

  // 3. SIGKILL one of two workers in the middle of a backlog.
  await spawnWorker();
  const before = arrived;
  // One commit, so the whole backlog is due at once and the kill finds work in flight.
  const resumeBacklog = await writeEvents(RESUME_BACKLOG, RESUME_BACKLOG);
  await until(() => arrived - before >= RESUME_BACKLOG / 4, "the resume backlog to start");
  first.kill("SIGKILL");
  const killedAt = performance.now();
  const leased = await sql<{ event_id: string }>`
    select event_id from webhook_deliveries
    where status = 'pending' and lease_id is not null and leased_until > now()
  `.execute(store.db);
  const heldIds = leased.rows.map((row) => row.event_id);
  const arrivalAfterKill = (id: string) => (arrivals.get(id) ?? []).find((t) => t >= killedAt);
  await until(async () => {
    const left = await sql<{ n: string }>`
      select count(*) as n from webhook_deliveries where status = 'pending'
    `.execute(store.db);
    return Number(left.rows[0]!.n) === 0;
  }, "every delivery to be recorded");
  await until(() => allArrived(resumeBacklog), "the resume backlog to arrive");
  const resumedAt = Math.max(killedAt, ...heldIds.map((id) => arrivalAfterKill(id) ?? killedAt));
  const repeats = [...arrivals.values()].filter((times) => times.length > 1).length;
  const missing = [...backlog, ...streamed.map((s) => s.id), ...resumeBacklog].filter(
    (id) => !arrivals.has(id),
  );
  const resume = {
    leasedAtKill: heldIds.length,
    resumeSeconds: round((resumedAt - killedAt) / 1000, 2),
    goal: "<= 5 s",
    repeatedDeliveries: repeats,
    missingEvents: missing.length,
  };
  console.log(JSON.stringify({ r9: "resume", ...resume }));
} finally {
  for (const worker of workers) if (worker.exitCode === null) worker.kill("SIGKILL");
  await store.close();
  await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
  receiver.closeAllConnections();
  receiver.close();
}
