/**
 * A server for the benchmarks, run as a child process so the load generator does not share
 * its event loop. Prints one JSON line (port, credentials), then serves until killed.
 *
 * - `baseline` (PostgreSQL): a bare Fastify whose endpoints each run one named prepared
 *   statement: `POST /rows` INSERTs a payment-sized row, `GET /rows/:id` SELECTs one by key.
 * - `satang` (lab): the service's app built here, not through `satang serve` (bench/lib/servers.ts
 *   starts that one), with one funded merchant with the defaults, folding the kept totals in the
 *   background as `serve` does. R8 uses it (the embedded store, a pool of one). On the
 *   database of BENCH_DATABASE_URL, or embedded in memory when it is unset or
 *   BENCH_STORE=embedded. BENCH_POOL_SIZE sets the pool (default 10). Started with an IPC
 *   channel, it answers `tx-times` with the BEGIN-to-COMMIT times (ms) since the last ask, and
 *   `statements` with the number of statements it sent to PostgreSQL since the last ask.
 */
import Fastify from "fastify";
import pg from "pg";
import { buildApp } from "../apps/server/src/app.ts";
import { loadConfig } from "../apps/server/src/config.ts";
import { openStore, POOL_IDLE_MS } from "../apps/server/src/db/connect.ts";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { buildDeps } from "../apps/server/src/deps.ts";
import { createIntegration } from "../apps/server/src/integrations/service.ts";
import { keptTotalsFoldJob } from "../apps/server/src/jobs/kept-totals.ts";
import { startWorkers } from "../apps/server/src/jobs/runner.ts";
import { adjustWallet } from "../apps/server/src/ledger/adjustments.ts";
import { SecretBox } from "../apps/server/src/lib/crypto.ts";
import { createMerchant } from "../apps/server/src/merchants/service.ts";
import { countStatements } from "./lib/instrument.ts";
import { BENCH_SECRET_KEY } from "./lib/setup.ts";

const mode = process.argv[2] ?? "satang";
const databaseUrl = process.env.BENCH_STORE === "embedded" ? undefined : process.env.BENCH_DATABASE_URL;
const poolSize = Number(process.env.BENCH_POOL_SIZE ?? 10);

function portOf(server: { address(): unknown }): number {
  const address = server.address();
  return typeof address === "object" && address ? (address as { port: number }).port : 0;
}

async function serveBaseline(url: string): Promise<void> {
  // Idle connections kept as long as the service's pool keeps them (db/connect.ts), so neither
  // side reconnects after the other's load.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, idleTimeoutMillis: POOL_IDLE_MS });
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_rows (id uuid PRIMARY KEY, merchant_id uuid NOT NULL,
    amount_satang bigint NOT NULL, reference_id text NOT NULL, body jsonb NOT NULL, created_at timestamptz NOT NULL)`);
  const insert = {
    name: "bench_insert",
    text: `INSERT INTO bench_rows (id, merchant_id, amount_satang, reference_id, body, created_at)
      VALUES (gen_random_uuid(), $1, $2, $3, $4, $5) RETURNING id, created_at`,
  };
  const select = { name: "bench_select", text: "SELECT * FROM bench_rows WHERE id = $1" };
  const merchantId = "00000000-0000-4000-8000-000000000001";
  const app = Fastify({ logger: false });
  app.post("/rows", async (request, reply) => {
    const body = request.body as { referenceId?: string };
    const values = [merchantId, 1_000_000, body.referenceId ?? "x", JSON.stringify(body), new Date()];
    const row = await pool.query({ ...insert, values });
    return reply.code(201).send({ success: true, data: row.rows[0] });
  });
  app.get("/rows/:id", async (request, reply) => {
    const row = await pool.query({ ...select, values: [(request.params as { id: string }).id] });
    if (row.rows.length === 0) return reply.code(404).send({ success: false });
    return { success: true, data: row.rows[0] };
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const seeded = await pool.query({ ...insert, values: [merchantId, 1, "seed", "{}", new Date()] });
  console.log(JSON.stringify({ port: portOf(app.server), rowId: seeded.rows[0].id }));
}

async function serveSatang(): Promise<void> {
  if (process.send) countStatements();
  const store = await openStore(
    databaseUrl
      ? { databaseUrl, poolSize, preparedStatements: process.env.DATABASE_PREPARED_STATEMENTS !== "off" }
      : { memory: true },
  );
  await migrateToLatest(store.db);
  const config = loadConfig({ RATE_LIMIT_PER_MINUTE: "10000000", ADMIN_TOKEN: "bench-admin-token-000000" });
  const deps = buildDeps({
    config,
    db: store.db,
    storeKind: store.kind,
    secrets: new SecretBox(BENCH_SECRET_KEY),
  });
  const merchant = await createMerchant(deps, {
    name: "Bench Shop",
    promptpayId: "0812345678",
    collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Bench Shop" },
  });
  await adjustWallet(deps, merchant.id, { amountSatang: 10_000_000_000n, reason: "bench funding" });
  const integration = await createIntegration(deps, merchant.id);
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: "127.0.0.1" });
  // As `serve` does, fold the changes the creates append to the kept totals (list counts,
  // withdraw day totals); the other jobs have nothing to do here.
  startWorkers(deps, [keptTotalsFoldJob], { error: (details, message) => console.error(message, details) });
  const { apiKey, apiSecret } = integration;
  console.log(JSON.stringify({ port: portOf(app.server), apiKey, apiSecret, merchantId: merchant.id }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (mode === "baseline") {
    if (!databaseUrl) throw new Error("the baseline server runs on PostgreSQL: set BENCH_DATABASE_URL");
    await serveBaseline(databaseUrl);
  } else await serveSatang();
  // Exit cleanly on a signal, so a profiler started with --cpu-prof writes its profile.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
}
