/**
 * The service's start of a load after a quiet spell, alone (R2's start, docs/PERFORMANCE.md):
 * `satang serve` as R1 to R4 start it (bench/lib/servers.ts `startServe`), warmed up by a 5 s
 * closed loop of v1 creates and a 3 s open loop, then one 3 s open loop of v1 creates at `rate`
 * a second after each quiet spell given, each printed as its p99 and the p99 after its first
 * second. With BENCH_OPEN_TIMELINE=1 each load also prints its half seconds (p50/p99/max).
 * Each load takes its quiet spell and about 3 s more; R2 needs a whole R1 run before it, this
 * needs none.
 *
 *   node --import tsx bench/quiet-start.ts <rate> <quiet seconds> [<quiet seconds>...]
 *   node --import tsx bench/quiet-start.ts 2400 1 15 1 15
 */
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { createBenchDatabase, DEFAULT_BENCH_URL } from "./lib/database.ts";
import { closedLoop, openLoop } from "./lib/load.ts";
import { createPayment } from "./lib/requests.ts";
import { startServe, stopServer } from "./lib/servers.ts";
import { openBench } from "./lib/setup.ts";

const [rateText, ...quietTexts] = process.argv.slice(2);
const rate = Number(rateText);
const quiets = quietTexts.map(Number);
if (!Number.isInteger(rate) || rate < 1 || quiets.length === 0 || quiets.some((q) => !(q >= 0))) {
  console.error("usage: quiet-start.ts <rate> <quiet seconds> [<quiet seconds>...]");
  process.exit(2);
}

const database = await createBenchDatabase(process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL, "quiet");
process.env.BENCH_DATABASE_URL = database.url;
const bench = await openBench(database.url);
await migrateToLatest(bench.store.db);
const satang = await startServe(database.url);
const create = () => createPayment(satang.info, "v1");
try {
  await closedLoop(satang.url, create, { connections: 32, seconds: 5 });
  await openLoop(satang.url, create, { rate, seconds: 3 });
  for (const quiet of quiets) {
    await new Promise((resolve) => setTimeout(resolve, quiet * 1000));
    const load = await openLoop(satang.url, create, { rate, seconds: 3, startSeconds: 1 });
    console.log(
      `after ${quiet} s of quiet, ${rate} creates a second for 3 s: p99 ${load.p99} ms, after the first second ${load.afterStart?.p99} ms; p50 ${load.p50} ms; failed ${load.failed}`,
    );
  }
} finally {
  await stopServer(satang);
  await bench.store.close();
  await database.drop();
}
