/**
 * CONTRACT 14: a request that loses its database answers 503 SERVICE_UNAVAILABLE with
 * Retry-After, never 500, also when the database refuses connections on purpose (`ALTER DATABASE
 * ... ALLOW_CONNECTIONS false`, as before a restore or a move), which PostgreSQL reports as
 * SQLSTATE 55000. /readyz says why, and the metrics still render, the database's figure unknown.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import pg from "pg";
import { databaseFault } from "../../src/db/faults.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { describeOnPostgres } from "../helpers/store.ts";

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describeOnPostgres("a database that refuses connections", () => {
  let svc: TestService;
  let merchant: Credentials;
  let name: string;

  before(async () => {
    svc = await startService({ poolSize: 2 });
    merchant = await svc.newMerchant();
    name = new URL(svc.store.databaseUrl!).pathname.slice(1);
  });
  after(async () => {
    await admin(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await svc?.close();
  });

  it("is unavailable: 503 with Retry-After on the API, /readyz says so, the metrics render; all recover", async () => {
    await admin(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);

    // PostgreSQL's own refusal, as a new connection meets it.
    const client = new pg.Client({ connectionString: svc.store.databaseUrl });
    const refusal = await client.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.equal((refusal as { code?: string }).code, "55000", String(refusal));
    assert.equal(databaseFault(refusal), "unavailable");

    const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(balance.status, 503, JSON.stringify(balance.body));
    assert.equal(balance.body.error.code, "SERVICE_UNAVAILABLE");
    assert.equal(balance.body.error.metadata.reason, "unavailable");
    assert.ok(balance.headers["retry-after"]);
    const ready = await svc.app.inject({ method: "GET", url: "/readyz" });
    assert.equal(ready.statusCode, 503);
    assert.deepEqual(ready.json().error.metadata, { reason: "unavailable", retryAfter: 2 });
    const { text } = await svc.app.renderMetrics();
    // prom-client writes NaN as "Nan", which Prometheus reads as NaN (any case).
    assert.match(text, /^satang_payouts_undecided NaN$/m, "unknown while the database does not answer");
    assert.match(text, /^satang_http_requests_total\{/m, "the HTTP metrics are still there");

    await admin(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    const again = await svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.match((await svc.app.renderMetrics()).text, /^satang_payouts_undecided 0$/m);
  });
});
