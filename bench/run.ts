/**
 * `npm run bench`: the performance goals R1-R9 on PostgreSQL, in one run, one table: each
 * measured value, its goal, pass or fail and what it was divided by; the statements and commits
 * of each hot request (counted at the driver, bench/count.ts); the server's peak RSS under R1.
 * The machine is shared and noisy, so every ratio divides by a baseline measured in the same run.
 *
 *   npm run bench                          # full run (about 10 minutes)
 *   npm run bench -- --quick               # short loads, smaller seeds
 *   npm run bench -- --only=r1,r3          # some goals only (r1..r9, sql)
 *   BENCH_DATABASE_URL=postgres://...      # the PostgreSQL server (a fresh database per run)
 *   BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_WALLETS, BENCH_WITHDRAWS_SEED, BENCH_PAYMENTS_SEED
 *   DATABASE_PREPARED_STATEMENTS=off       # the service without named prepared statements
 *   BENCH_WAL=as-is                        # PostgreSQL's WAL as found, not recycled first
 *                                          # (lib/database.ts recycledWal)
 */
import { cpus } from "node:os";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { countRequests } from "./count.ts";
import { type Context, settingsOf } from "./lib/context.ts";
import { createBenchDatabase, DEFAULT_BENCH_URL, recycledWal, settle } from "./lib/database.ts";
import { printRows, type Row } from "./lib/report.ts";
import { serveProcesses, startServe, startServer, stopServer } from "./lib/servers.ts";
import { openBench } from "./lib/setup.ts";
import { runCreate } from "./scenarios/create.ts";
import { runEmbedded } from "./scenarios/embedded.ts";
import { runLists } from "./scenarios/lists.ts";
import { runReads } from "./scenarios/reads.ts";
import { runWebhooks } from "./scenarios/webhooks.ts";
import { runWithdraws } from "./scenarios/withdraws.ts";

const ALL = ["r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "sql"];
const settings = settingsOf(process.argv, process.env);
const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
const which = new Set(only ? only.toLowerCase().split(",") : ALL);
const started = Date.now();
const log = (message: string) => console.error(`[${Math.round((Date.now() - started) / 1000)} s] ${message}`);

async function statementRows(url: string): Promise<Row[]> {
  const counts = await countRequests(url);
  return counts.map((c) => ({
    id: "SQL",
    what: `${c.name}: statements per request`,
    value: c.statements,
    goal: "",
    pass: undefined,
    basis: `${c.statements} statements in ${c.roundTrips} round trips, ${c.commits} commits (HTTP ${c.status})`,
  }));
}

async function scenarios(ctx: Context, url: string, serverUrl: string): Promise<void> {
  const groups: [boolean, () => Promise<void>][] = [
    [which.has("r1") || which.has("r2"), () => runCreate(ctx)],
    [which.has("r3"), () => runReads(ctx)],
    [which.has("r4") || which.has("r5") || which.has("r6"), () => runWithdraws(ctx, which)],
    [which.has("r7"), () => runLists(ctx)],
    [which.has("r8"), () => runEmbedded(ctx)],
    [which.has("r9"), () => runWebhooks(ctx, serverUrl)],
  ];
  for (const [wanted, run] of groups) {
    if (!wanted) continue;
    await settle(url);
    await run();
  }
}

const serverUrl = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const database = await createBenchDatabase(serverUrl, "run");
process.env.BENCH_DATABASE_URL = database.url;
const wal = await recycledWal(database.url);
const bench = await openBench(database.url);
await migrateToLatest(bench.store.db);
const baseline = await startServer("baseline");
const satang = await startServe(database.url);
const ctx: Context = { settings, bench, baseline, satang, rows: [], log };
try {
  await scenarios(ctx, database.url, serverUrl);
  if (which.has("sql")) ctx.rows.push(...(await statementRows(database.url)));
} finally {
  await stopServer(satang);
  await stopServer(baseline);
  await bench.store.close();
  await database.drop();
}
const prepared = process.env.DATABASE_PREPARED_STATEMENTS === "off" ? "off" : "on";
console.log(
  `PostgreSQL; ${cpus().length} cores; ${settings.connections} connections, ${settings.seconds} s per load` +
    `${settings.quick ? " (--quick)" : ""}; named prepared statements ${prepared}; ` +
    `${serveProcesses()} satang serve process${serveProcesses() > 1 ? "es" : ""}; ${wal}; ${Math.round((Date.now() - started) / 1000)} s`,
);
printRows(ctx.rows);
