/**
 * The server of the export flood probe (export-flood.ts), a child process so the load does not
 * share its event loop: the real service (sandbox, the live rate limit of 1,000 requests a
 * minute) with two merchants, A with FLOOD_ROWS succeeded payments spread over 2025 and B with
 * a few. On the PostgreSQL of FLOOD_DATABASE_URL, or embedded in memory when it is unset.
 * Prints one JSON line (port, both merchants' credentials), then serves until killed; asked
 * "loop" over IPC, it answers its event loop's delays since the last ask.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { sql } from "kysely";
import { buildApp } from "../apps/server/src/app.ts";
import { loadConfig } from "../apps/server/src/config.ts";
import { openStore } from "../apps/server/src/db/connect.ts";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { buildDeps, type Deps } from "../apps/server/src/deps.ts";
import { createIntegration } from "../apps/server/src/integrations/service.ts";
import { SecretBox } from "../apps/server/src/lib/crypto.ts";
import { createMerchant } from "../apps/server/src/merchants/service.ts";

const databaseUrl = process.env.FLOOD_DATABASE_URL || undefined;
const rows = Number(process.env.FLOOD_ROWS ?? 6000);

/** A merchant with an integration, and `count` succeeded payments spread evenly over 2025. */
async function merchantWithPayments(deps: Deps, name: string, count: number) {
  const merchant = await createMerchant(deps, {
    name,
    promptpayId: "0812345678",
    collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: name },
  });
  const integration = await createIntegration(deps, merchant.id);
  const spacingMs = Math.floor((365 * 86_400_000) / Math.max(count, 1));
  await sql`
    INSERT INTO payments (id, merchant_id, integration_id, amount_satang, currency, status, payment_method,
      reference_id, client_secret, customer_bank_account_name, customer_bank_account_number,
      customer_bank_code, description, idempotency_key, request_hash, confirmed_at, captured_at,
      created_at, updated_at)
    SELECT gen_random_uuid(), ${merchant.id}, ${integration.id}, 10000 + g, 'THB', 'succeeded', 'promptpay',
      'flood-' || g, 'secret-' || gen_random_uuid(), 'สมชาย ใจดี ' || g, (7000000000 + g)::text, '014',
      'Order ' || g || ', size L', gen_random_uuid()::text, 'x', t, t, t, t
    FROM generate_series(1, ${count}::int) AS g,
      LATERAL (SELECT '2025-01-01T00:00:00Z'::timestamptz + make_interval(secs => g * ${spacingMs / 1000}::float8) AS t) AS at_`.execute(
    deps.db,
  );
  return { merchantId: merchant.id, apiKey: integration.apiKey, apiSecret: integration.apiSecret };
}

async function serve(): Promise<void> {
  const store = await openStore(databaseUrl ? { databaseUrl, poolSize: 10 } : { memory: true });
  await migrateToLatest(store.db);
  const config = loadConfig({ RATE_LIMIT_PER_MINUTE: "1000", ADMIN_TOKEN: "flood-admin-token-0000000" });
  const deps = buildDeps({
    config,
    db: store.db,
    storeKind: store.kind,
    secrets: new SecretBox(Buffer.alloc(32, 9)),
  });
  // Each run on PostgreSQL starts from its own merchants; earlier runs' rows stay and are not read.
  const a = await merchantWithPayments(deps, "Flood Shop A", rows);
  const b = await merchantWithPayments(deps, "Quiet Shop B", 5);
  const app = await buildApp(deps);
  if (process.env.FLOOD_TRACE) {
    const t0 = performance.now();
    app.server.on("connection", (socket) => {
      if (socket.remoteAddress === "127.0.0.9")
        console.error(`server: probe connection at ${Math.round(performance.now() - t0)}`);
    });
    app.addHook("onRequest", async (request) => {
      if (request.url === "/healthz")
        console.error(`server: healthz request at ${Math.round(performance.now() - t0)}`);
    });
  }
  await app.listen({ port: 0, host: "0.0.0.0" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(JSON.stringify({ port, a, b }));
}

/** Answers "loop" on the IPC channel with the event loop's delays (ms) since the last ask. */
function reportEventLoop(): void {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on("message", (message) => {
    if (message !== "loop") return;
    const ms = (ns: number) => Math.round(ns / 1e6);
    process.send?.({
      loop: { p50Ms: ms(delay.percentile(50)), p99Ms: ms(delay.percentile(99)), maxMs: ms(delay.max) },
    });
    delay.reset();
  });
}

await serve();
reportEventLoop();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
