/**
 * A server for the benchmarks, run as a child process so the load generator does not share
 * its event loop. Mode `baseline`: a bare Fastify with one INSERT endpoint on the same store;
 * mode `satang`: the real service with one merchant. Prints one JSON line with the port and
 * the credentials, then serves until killed.
 */
import Fastify from "fastify";
import { sql } from "kysely";
import { buildApp } from "../apps/server/src/app.ts";
import { loadConfig } from "../apps/server/src/config.ts";
import { openStore } from "../apps/server/src/db/connect.ts";
import { migrateToLatest } from "../apps/server/src/db/migrate.ts";
import { buildDeps } from "../apps/server/src/deps.ts";
import { createIntegration } from "../apps/server/src/integrations/service.ts";
import { SecretBox } from "../apps/server/src/lib/crypto.ts";
import { createMerchant } from "../apps/server/src/merchants/service.ts";

const mode = process.argv[2] ?? "satang";
const databaseUrl = process.env.BENCH_DATABASE_URL;
const store = await openStore(databaseUrl ? { databaseUrl, poolSize: 10 } : { memory: true });
await migrateToLatest(store.db);

if (mode === "baseline") {
  await sql`CREATE TABLE IF NOT EXISTS bench_rows (id uuid PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL)`.execute(
    store.db,
  );
  const app = Fastify({ logger: false });
  app.post("/rows", async (request, reply) => {
    const row = await sql<{ id: string }>`INSERT INTO bench_rows (id, body, created_at)
      VALUES (gen_random_uuid(), ${JSON.stringify(request.body)}::jsonb, ${new Date()}) RETURNING id`.execute(
      store.db,
    );
    return reply.code(201).send({ success: true, data: row.rows[0] });
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  console.log(JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 }));
} else {
  const config = loadConfig({ RATE_LIMIT_PER_MINUTE: "10000000", ADMIN_TOKEN: "bench-admin-token-000000" });
  const deps = buildDeps({
    config,
    db: store.db,
    storeKind: store.kind,
    secrets: new SecretBox(Buffer.alloc(32, 3)),
  });
  const merchant = await createMerchant(deps, {
    name: "Bench Shop",
    promptpayId: "0812345678",
    collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Bench Shop" },
    promptpayReuse: false,
  });
  const integration = await createIntegration(deps, merchant.id);
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  console.log(
    JSON.stringify({
      port: typeof address === "object" && address ? address.port : 0,
      apiKey: integration.apiKey,
      apiSecret: integration.apiSecret,
    }),
  );
}

// Exit cleanly on a signal, so a profiler started with --cpu-prof writes its profile.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0));
