/**
 * `npm run chaos`: the fault harness (docs/RELIABILITY.md). For each store it spawns the real
 * server, runs a mixed workload, SIGKILLs the server N times and starts it again, runs the
 * database scenarios (PostgreSQL: the database cut off, a wallet lock held from outside, a
 * deadlock), then checks every money invariant in the database and prints the figures.
 *
 *   npm run chaos                       full run: 100 kills on PostgreSQL, 30 on PGlite
 *   npm run chaos -- --short            5 kills on each store (CI)
 *   npm run chaos -- --store pglite --kills-pglite 10
 *   npm run chaos -- --failover         the failover test (20 failovers; --short: 2; --failovers N)
 *
 * Flags: --short, --store postgres|pglite|both, --kills-postgres N, --kills-pglite N,
 * --workers N, --port N (first of the ports it uses), --out FILE (the figures as JSON).
 * PostgreSQL: CHAOS_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names
 * the server; the harness creates and drops its own database there.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { EMBEDDED_DATABASE_DIR } from "../apps/server/src/data-dir.ts";
import { openStore, type Store } from "../apps/server/src/db/connect.ts";
import { TcpProxy } from "../apps/server/test/helpers/tcp-proxy.ts";
import { checkInvariants, type InvariantResult } from "./chaos-check.ts";
import { databaseStopped, deadlock, lockHeld } from "./chaos-scenarios.ts";
import { ADMIN_TOKEN, ChaosServer, SECRET_KEY } from "./chaos-server.ts";
import { Client, createMerchants, runWorkload, Tally } from "./chaos-workload.ts";
import { type FailoverRun, reportFailover, runFailover } from "./failover.ts";

const { values: flags } = parseArgs({
  options: {
    short: { type: "boolean", default: false },
    store: { type: "string", default: "both" },
    "kills-postgres": { type: "string" },
    "kills-pglite": { type: "string" },
    workers: { type: "string", default: "6" },
    port: { type: "string", default: "7400" },
    out: { type: "string" },
    failover: { type: "boolean", default: false },
    failovers: { type: "string" },
  },
});

const short = flags.short ?? false;
const killsFor = {
  postgres: Number(flags["kills-postgres"] ?? (short ? 5 : 100)),
  pglite: Number(flags["kills-pglite"] ?? (short ? 5 : 30)),
};
const workers = Number(flags.workers);
const basePort = Number(flags.port);
const adminUrl = process.env.CHAOS_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** A local webhook receiver: counts deliveries, answers 200. */
async function webhookReceiver(port: number) {
  let deliveries = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      deliveries += 1;
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}/hook`, count: () => deliveries, close: () => server.close() };
}

/**
 * Secrets of the run found in the server's log (an account number counts only as a whole
 * number, not as digits inside a longer one such as a timestamp).
 */
function secretsInLog(logFile: string, secrets: Iterable<string>): { checked: number; found: string[] } {
  const log = readFileSync(logFile, "utf8");
  const found: string[] = [];
  let checked = 0;
  for (const secret of [ADMIN_TOKEN, SECRET_KEY, ...secrets]) {
    checked += 1;
    const hit = /^\d+$/.test(secret)
      ? new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(log)
      : log.includes(secret);
    if (hit) found.push(`${secret.slice(0, 4)}... (${secret.length} characters)`);
  }
  return { checked, found };
}

interface StoreRun {
  store: "postgres" | "pglite";
  kills: number;
  restartMs: { mean: number; max: number };
  requests: number;
  byStatus: Record<string, number>;
  noAnswer: number;
  unexpected5xx: string[];
  acknowledgedWrites: number;
  webhookDeliveries: number;
  scenarios: Record<string, unknown>;
  invariants: InvariantResult[];
  logBytes: number;
  durationS: number;
}

async function killLoop(server: ChaosServer, kills: number, restarts: number[]): Promise<void> {
  for (let i = 0; i < kills; i++) {
    await sleep(300 + Math.random() * 1200);
    await server.kill();
    restarts.push(await server.start());
    process.stdout.write(`\r  kills ${i + 1}/${kills}`);
  }
  process.stdout.write("\n");
}

async function runStore(kind: "postgres" | "pglite", port: number): Promise<StoreRun> {
  const started = Date.now();
  const temp = mkdtempSync(join(tmpdir(), `satang-chaos-${kind}-`));
  const dbName = `faults_chaos_${process.pid}`;
  let proxy: TcpProxy | undefined;
  let directUrl: string | undefined;
  if (kind === "postgres") {
    await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await adminQuery(`CREATE DATABASE ${dbName}`);
    directUrl = withDatabase(adminUrl, dbName);
    const target = new URL(directUrl);
    proxy = await TcpProxy.open({ host: target.hostname, port: Number(target.port || 5432) });
  }
  const server = new ChaosServer({
    port,
    databaseUrl: directUrl && proxy ? TcpProxy.urlThrough(directUrl, proxy.port) : undefined,
    dataDir: join(temp, "data"),
    logFile: join(temp, "server.log"),
  });
  console.log(`${kind}: server log ${join(temp, "server.log")}`);
  const receiver = await webhookReceiver(port + 1);
  const tally = new Tally();
  const client = new Client(() => server.url, tally);
  const restarts: number[] = [];
  const scenarios: Record<string, unknown> = {};
  let store: Store | undefined;
  try {
    await server.start();
    const merchants = await createMerchants(client, 4, receiver.url);
    let done = false;
    const workload = runWorkload(client, merchants, workers, () => done);
    await killLoop(server, killsFor[kind], restarts);
    if (kind === "postgres" && proxy && directUrl) {
      const [a, b] = merchants as [(typeof merchants)[0], (typeof merchants)[0]];
      scenarios.databaseStopped = await databaseStopped(proxy, client, a, short ? 2_000 : 5_000);
      scenarios.lockHeld = await lockHeld(directUrl, client, a, b, short ? 3_000 : 6_000);
      scenarios.deadlock = await deadlock(directUrl, client, a);
    }
    await sleep(1_000);
    done = true;
    await workload;
    // Let the payout worker and the webhook sender catch up before the orderly stop.
    await sleep(3_000);
    await server.stop();
    store = await openStore(
      directUrl ? { databaseUrl: directUrl } : { dataDir: join(temp, "data", EMBEDDED_DATABASE_DIR) },
    );
    const invariants = await checkInvariants(store.db, merchants, tally);
    const leaks = secretsInLog(join(temp, "server.log"), tally.secrets);
    invariants.push({
      name: "no secret of the run in the server's log",
      ok: leaks.found.length === 0,
      checked: leaks.checked,
      problems: leaks.found.slice(0, 20),
    });
    return {
      store: kind,
      kills: server.kills,
      restartMs: {
        mean: Math.round(restarts.reduce((s, x) => s + x, 0) / Math.max(1, restarts.length)),
        max: Math.max(0, ...restarts),
      },
      requests: tally.requests,
      byStatus: tally.byStatus,
      noAnswer: tally.noAnswer,
      unexpected5xx: tally.serverErrors,
      acknowledgedWrites: tally.acknowledged.length,
      webhookDeliveries: receiver.count(),
      scenarios,
      invariants,
      logBytes: readFileSync(join(temp, "server.log")).length,
      durationS: Math.round((Date.now() - started) / 1000),
    };
  } finally {
    await server.kill().catch(() => {});
    server.close();
    receiver.close();
    await store?.close().catch(() => {});
    await proxy?.close();
    if (kind === "postgres")
      await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    rmSync(temp, { recursive: true, force: true });
  }
}

function report(run: StoreRun): boolean {
  const five = Object.entries(run.byStatus)
    .filter(([s]) => Number(s) >= 500)
    .map(([s, n]) => `${s}: ${n}`)
    .join(", ");
  console.log(`\n== ${run.store}: ${run.kills} SIGKILLs survived in ${run.durationS} s`);
  console.log(
    `  requests answered ${run.requests}, unanswered (cut by a kill) ${run.noAnswer}; 5xx ${five || "none"}`,
  );
  console.log(`  by status ${JSON.stringify(run.byStatus)}`);
  console.log(`  restart to ready: mean ${run.restartMs.mean} ms, max ${run.restartMs.max} ms`);
  console.log(
    `  acknowledged writes checked ${run.acknowledgedWrites}; webhook deliveries ${run.webhookDeliveries}`,
  );
  for (const [name, figures] of Object.entries(run.scenarios))
    console.log(`  ${name}: ${JSON.stringify(figures)}`);
  for (const inv of run.invariants) {
    console.log(`  ${inv.ok ? "ok  " : "FAIL"} ${inv.name} (${inv.checked} checked)`);
    for (const problem of inv.problems) console.log(`       ${problem}`);
  }
  for (const line of run.unexpected5xx.slice(0, 10)) console.log(`  unexpected: ${line}`);
  return run.invariants.every((i) => i.ok) && run.unexpected5xx.length === 0;
}

if (flags.failover) {
  const receiver = await webhookReceiver(basePort + 50);
  let run: FailoverRun;
  try {
    run = await runFailover({
      rounds: Number(flags.failovers ?? (short ? 2 : 20)),
      workers,
      basePort,
      webhookUrl: receiver.url,
    });
  } finally {
    receiver.close();
  }
  const passed = reportFailover(run);
  if (flags.out) writeFileSync(flags.out, `${JSON.stringify(run, null, 2)}\n`);
  console.log(passed ? "\nfailover: every invariant held, nothing acknowledged lost" : "\nfailover: FAILED");
  process.exit(passed ? 0 : 1);
}

const stores =
  flags.store === "both" ? (["postgres", "pglite"] as const) : [flags.store as "postgres" | "pglite"];
const runs: StoreRun[] = [];
for (const [i, kind] of stores.entries()) runs.push(await runStore(kind, basePort + i * 10));
const passed = runs.map(report).every(Boolean);
if (flags.out) writeFileSync(flags.out, `${JSON.stringify(runs, null, 2)}\n`);
console.log(passed ? "\nchaos: every invariant held, no unexpected 5xx" : "\nchaos: FAILED");
process.exit(passed ? 0 : 1);
