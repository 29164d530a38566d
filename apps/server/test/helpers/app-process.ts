/**
 * One server process for the multi-process tests (cluster.ts forks it): the real app
 * (buildApp over openStore) on a random port against the PostgreSQL database named in
 * SATANG_CHILD_DATABASE_URL. It reports its port over IPC and closes when told to or when its
 * parent goes away.
 *
 * The business clock is fixed at SATANG_CHILD_CLOCK_MS, so every process of a test agrees on
 * the day and month windows however long the test takes.
 */
import type { AddressInfo } from "node:net";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { openStore } from "../../src/db/connect.ts";
import { buildDeps } from "../../src/deps.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { SecretBox } from "../../src/lib/crypto.ts";
import { ADMIN_TOKEN, TEST_SECRET_KEY } from "./cluster-config.ts";

const databaseUrl = process.env.SATANG_CHILD_DATABASE_URL;
if (!databaseUrl) throw new Error("SATANG_CHILD_DATABASE_URL is required");
const clockMs = Number(process.env.SATANG_CHILD_CLOCK_MS ?? Date.now());

// Tests of rules across processes queue many requests on one lock on purpose: waits are bounded
// far above a request's usual 2 s (test/faults covers that bound).
const store = await openStore({
  databaseUrl,
  poolSize: 10,
  bounds: { lockTimeoutMs: 300_000, poolAcquireTimeoutMs: 300_000 },
});
const deps = buildDeps({
  // Every request of a test comes from 127.0.0.1: the per-address connection cap is lifted.
  config: loadConfig({
    ADMIN_TOKEN,
    PUBLIC_BASE_URL: "http://pay.test",
    RATE_LIMIT_PER_MINUTE: "10000000",
    HTTP_CONNECTIONS_PER_ADDRESS_MAX: "100000",
    // A client may reuse a keep-alive connection just as the server closes it for idleness; on
    // a busy machine that race cuts requests off, so tests keep idle connections for a minute.
    HTTP_KEEP_ALIVE_TIMEOUT_MS: "60000",
  }),
  db: store.db,
  storeKind: store.kind,
  clock: new ManualClock(clockMs),
  secrets: new SecretBox(TEST_SECRET_KEY),
});
const app = await buildApp(deps);
await app.listen({ port: 0, host: "127.0.0.1" });

let closing = false;
async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  await app.close();
  await store.close();
  process.exit(0);
}
process.on("message", (message) => {
  if (message === "stop") void shutdown();
});
process.on("disconnect", () => void shutdown());
process.send?.({ port: (app.server.address() as AddressInfo).port });
