/**
 * On PostgreSQL (CONTRACT 14): a row lock one merchant's wallet is held under from outside
 * delays no other merchant, and that merchant's own requests answer 503 with Retry-After within
 * the lock bound; a real deadlock is retried inside the service; a database that goes away
 * answers 503 (not 500) and the service recovers without a restart when it comes back.
 */
import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { sql } from "kysely";
import pg from "pg";
import { buildApp } from "../../src/app.ts";
import { openStore, type Store } from "../../src/db/connect.ts";
import { databaseFault } from "../../src/db/faults.ts";
import { withTransaction } from "../../src/db/handles.ts";
import { buildDeps } from "../../src/deps.ts";
import { settlementJob } from "../../src/jobs/lifecycle.ts";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { createPayment, paymentBody, simulatePaymentRequest } from "../helpers/lifecycle.ts";
import { refundReference, succeededPayment } from "../helpers/refunds.ts";
import { describeOnPostgres } from "../helpers/store.ts";
import { TcpProxy } from "../helpers/tcp-proxy.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

/** Above PostgreSQL's deadlock_timeout (1 s), so a deadlock is detected before a lock wait ends. */
const LOCK_TIMEOUT_MS = 1_500;

function assertUnavailable(res: TestResponse, label: string): void {
  assert.equal(res.status, 503, `${label}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body?.error?.code, "SERVICE_UNAVAILABLE", label);
  assert.ok(Number(res.headers["retry-after"]) >= 1, `${label}: Retry-After`);
  assert.ok(Number(res.body?.error?.metadata?.retryAfter) >= 1, `${label}: metadata.retryAfter`);
}

/** A session of its own that holds the merchant's wallet lock until it rolls back. */
async function holdWallet(svc: TestService, merchantId: string): Promise<pg.Client> {
  const outside = new pg.Client({ connectionString: svc.store.databaseUrl });
  await outside.connect();
  await outside.query("begin");
  await outside.query(
    "select id from ledger_accounts where merchant_id = $1 and kind = 'wallet_available' for update",
    [merchantId],
  );
  return outside;
}

/** Whether some session waits for a lock (the outside client's rows, in these tests). */
async function waitingOnLock(client: pg.Client): Promise<boolean> {
  const found = await client.query(
    "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
  );
  return found.rows[0].n > 0;
}

describeOnPostgres("database faults on PostgreSQL", () => {
  let svc: TestService;
  let a: Credentials;
  let b: Credentials;

  before(async () => {
    svc = await startService({
      poolSize: 6,
      bounds: { lockTimeoutMs: LOCK_TIMEOUT_MS, poolAcquireTimeoutMs: 2_000 },
    });
    a = await fundedMerchant(svc);
    b = await fundedMerchant(svc);
  });

  after(async () => {
    await svc?.close();
  });

  it("a wallet lock held from outside stalls only its own merchant, whose writes answer 503 within the bound", async () => {
    const outside = await holdWallet(svc, a.merchantId);
    try {
      const started = Date.now();
      const blocked = Promise.all(
        [0, 1, 2].map(() => svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: a })),
      );
      const others = await Promise.all([
        svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: b }),
        svc.request("GET", "/api/v1/balance", undefined, { credentials: b }),
        svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: b }),
        svc.request("GET", "/api/v1/balance", undefined, { credentials: a }),
        svc.app.inject({ method: "GET", url: "/readyz" }),
      ]);
      const [payment, balanceB, withdrawB, balanceA, ready] = others;
      assert.equal(payment?.status, 201, JSON.stringify(payment?.body));
      assert.equal(balanceB?.status, 200);
      assert.equal(withdrawB?.status, 201, JSON.stringify(withdrawB?.body));
      assert.equal(balanceA?.status, 200, "reading a locked wallet's balance does not wait for the lock");
      assert.equal(ready?.statusCode, 200);
      const outcomes = await blocked;
      const elapsed = Date.now() - started;
      for (const [i, res] of outcomes.entries()) assertUnavailable(res, `A's withdraw ${i}`);
      assert.match(String(outcomes[0]?.body?.error?.metadata?.reason), /busy/);
      // Each blocked transaction gave up at the lock bound; the three waited side by side.
      assert.ok(elapsed < 10 * LOCK_TIMEOUT_MS, `A's requests took ${elapsed} ms`);
    } finally {
      await outside.query("rollback").catch(() => {});
      await outside.end();
    }
    const afterwards = await svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: a });
    assert.equal(afterwards.status, 201, "the merchant is served again once the lock is gone");
    const withdraws = await svc.deps.db
      .selectFrom("withdraws")
      .select("id")
      .where("merchant_id", "=", a.merchantId)
      .execute();
    assert.equal(withdraws.length, 1, "no refused withdraw left anything behind");
  });

  it("a merchant row locked from outside bounds that merchant's payment creates: 503 within the bound, others served", async () => {
    const outside = new pg.Client({ connectionString: svc.store.databaseUrl });
    await outside.connect();
    await outside.query("begin");
    // A payment's foreign key shares its merchant's row: this lock holds every INSERT of a's payments.
    await outside.query("select id from merchants where id = $1 for update", [a.merchantId]);
    try {
      const started = Date.now();
      const alone = await svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: a });
      const elapsed = Date.now() - started;
      assertUnavailable(alone, "a's payment create, sent alone");
      assert.ok(elapsed < 4 * LOCK_TIMEOUT_MS, `a's create took ${elapsed} ms`);
      const together = await Promise.all([
        ...[0, 1, 2].map(() => svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: a })),
        svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: b }),
      ]);
      for (const [i, res] of together.slice(0, 3).entries())
        assertUnavailable(res, `a's payment create ${i}`);
      assert.equal(together[3]?.status, 201, JSON.stringify(together[3]?.body));
    } finally {
      await outside.query("rollback").catch(() => {});
      await outside.end();
    }
    const afterwards = await svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: a });
    assert.equal(afterwards.status, 201, "the merchant is served again once the lock is gone");
    const payments = await svc.deps.db
      .selectFrom("payments")
      .select("id")
      .where("merchant_id", "=", a.merchantId)
      .execute();
    assert.equal(payments.length, 1, "no refused create left anything behind");
  });

  /**
   * Holds `table`'s row `id` from outside, sends forty of a's requests that wait on it (far more
   * than the pool of 6: each would wait out the lock bound holding a connection), and checks that
   * b's create and list are served within the lock bound while a's answer 503.
   */
  async function burstLeavesThePool(
    table: "merchants" | "payments",
    id: string,
    send: () => Promise<TestResponse>,
    list: string,
  ) {
    const outside = new pg.Client({ connectionString: svc.store.databaseUrl });
    await outside.connect();
    await outside.query("begin");
    await outside.query(`select id from ${table} where id = $1 for update`, [id]);
    try {
      const burst = Promise.all(Array.from({ length: 40 }, send));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = Date.now();
      const [created, listed] = await Promise.all([
        svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: b }),
        svc.request("GET", list, undefined, { credentials: b }),
      ]);
      const elapsed = Date.now() - started;
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      // Served without waiting for a connection a's requests hold: within the lock bound, not after it.
      assert.ok(elapsed < LOCK_TIMEOUT_MS, `b waited ${elapsed} ms`);
      for (const [i, res] of (await burst).entries()) assertUnavailable(res, `a's request ${i}`);
    } finally {
      await outside.query("rollback").catch(() => {});
      await outside.end();
    }
  }

  it("a burst of one merchant's creates against its held row leaves the pool to the others", async () => {
    await burstLeavesThePool(
      "merchants",
      a.merchantId,
      () => svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: a }),
      "/api/v1/payments?limit=1",
    );
  });

  it("a burst of one merchant's refunds against its held payment leaves the pool to the others", async () => {
    const payment = await succeededPayment(svc, a, "100000.00");
    await burstLeavesThePool(
      "payments",
      payment.id,
      () =>
        svc.request(
          "POST",
          `/api/v1/payments/${payment.id}/refunds`,
          { amount: "100.00", referenceId: refundReference() },
          { credentials: a },
        ),
      "/api/v1/refunds?limit=1",
    );
  });

  it("a settlement job held up by one merchant's locked wallet holds no row of another merchant", async () => {
    const pair = [await fundedMerchant(svc), await fundedMerchant(svc)];
    // `first` comes before `second` in merchant order; `second`'s wallet is locked from outside.
    const [first, second] = pair.sort((x, y) => x.merchantId.localeCompare(y.merchantId)) as [
      Credentials,
      Credentials,
    ];
    for (const merchant of [first, second]) {
      const payment = await createPayment(svc, merchant);
      const paid = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
    }
    svc.clock.advance(72 * 3_600_000);
    const outside = new pg.Client({ connectionString: svc.store.databaseUrl });
    await outside.connect();
    let settling: Promise<unknown> = Promise.resolve();
    try {
      await outside.query("begin");
      await outside.query(
        "select id from ledger_accounts where merchant_id = $1 and kind = 'wallet_available' for update",
        [second.merchantId],
      );
      settling = settlementJob.runOnce(svc.deps).catch((error: unknown) => error);
      // Until the job waits for `second`'s wallet, having done `first`'s settlement.
      for (let waited = 0; !(await waitingOnLock(outside)); waited += 20) {
        assert.ok(waited < 10_000, "the settlement job never reached the locked wallet");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // `first`'s settlement is committed while the job waits: nothing of `first` stays locked.
      const firstSettled = await outside.query(
        "select count(*)::int as n from payments where merchant_id = $1 and settled_at is not null",
        [first.merchantId],
      );
      assert.equal(firstSettled.rows[0].n, 1, "the other merchant's settlement committed on its own");
      const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: first });
      assert.equal(res.status, 201, `the other merchant's withdraw: ${JSON.stringify(res.body)}`);
    } finally {
      await outside.query("rollback").catch(() => {});
      await outside.end();
      await settling;
    }
    while ((await settlementJob.runOnce(svc.deps)) > 0) {}
    const unsettled = await svc.deps.db
      .selectFrom("payments")
      .select("id")
      .where("merchant_id", "in", [first.merchantId, second.merchantId])
      .where("settled_at", "is", null)
      .execute();
    assert.equal(unsettled.length, 0, "both merchants' payments settle once the lock is gone");
  });

  it("many writes of a merchant whose wallet is held take at most two pool connections, so others are not kept waiting", async () => {
    // More of A's withdraws than the pool has connections: they wait their turn in the
    // process (db/key-queue.ts, two at a time) instead of each holding a connection on the
    // locked row.
    const outside = await holdWallet(svc, a.merchantId);
    try {
      const blocked = Promise.all(
        Array.from({ length: 12 }, () =>
          svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: a }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const [payment, withdrawB] = await Promise.all([
        svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: b }),
        svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: b }),
      ]);
      const waited = Date.now() - started;
      assert.equal(payment?.status, 201, JSON.stringify(payment?.body));
      assert.equal(withdrawB?.status, 201, JSON.stringify(withdrawB?.body));
      assert.ok(waited < LOCK_TIMEOUT_MS, `B waited ${waited} ms behind A's held wallet`);
      const held = await outside.query(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()",
      );
      assert.ok(held.rows[0].n <= 2, `${held.rows[0].n} connections wait on A's wallet`);
      for (const [i, res] of (await blocked).entries()) assertUnavailable(res, `A's withdraw ${i}`);
    } finally {
      await outside.query("rollback").catch(() => {});
      await outside.end();
    }
  });

  it("a withdraw that waited its turn in the queue gets only what is left of its bound at the lock", async () => {
    // Two of A's withdraws take the queue's two slots and wait at the held wallet; a third
    // waits in the process's queue (db/key-queue.ts). When the first gives up, the third comes
    // to its turn with almost none of its bound left, and must not wait a whole bound again at
    // the lock. (The second may wait up to twice the bound: PostgreSQL bounds each lock wait,
    // and a session queued behind another at a row waits twice, for its place and then for the
    // holder; docs/operations.md.)
    const outside = await holdWallet(svc, a.merchantId);
    const send = async () => {
      const sent = Date.now();
      const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody(), { credentials: a });
      return { res, took: Date.now() - sent };
    };
    try {
      const first = [send(), send()];
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = await send();
      for (const [i, { res }] of [...(await Promise.all(first)), third].entries()) {
        assertUnavailable(res, `A's withdraw ${i}`);
      }
      assert.ok(third.took < LOCK_TIMEOUT_MS + 700, `the queued withdraw answered after ${third.took} ms`);
    } finally {
      await outside.query("rollback").catch(() => {});
      await outside.end();
    }
  });

  it("retries the victim of a real deadlock inside withTransaction, so both transactions commit", async () => {
    const rows = await svc.deps.db
      .selectFrom("ledger_accounts")
      .select(["id", "merchant_id"])
      .where("kind", "=", "wallet_available")
      .where("merchant_id", "in", [a.merchantId, b.merchantId])
      .execute();
    const first = rows.find((r) => r.merchant_id === a.merchantId)?.id;
    const second = rows.find((r) => r.merchant_id === b.merchantId)?.id;
    assert.ok(first && second);
    let attempts = 0;
    let arrived = 0;
    let bothLocked: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      bothLocked = resolve;
    });
    const lockBoth = (one: string, other: string) =>
      withTransaction(svc.deps.db, async (trx) => {
        attempts += 1;
        const lock = (id: string) =>
          sql`select id from ledger_accounts where id = ${id} for update`.execute(trx);
        await lock(one);
        if (arrived < 2) {
          arrived += 1;
          if (arrived === 2) bothLocked();
          await barrier;
        }
        await lock(other);
        return "committed";
      });
    const results = await Promise.all([lockBoth(first, second), lockBoth(second, first)]);
    assert.deepEqual(results, ["committed", "committed"]);
    assert.equal(attempts, 3, "one of the two was chosen as deadlock victim and ran again");
  });

  it("a deadlock that outlives its retries is a conflict the service answers with 503", async () => {
    await assert.rejects(
      withTransaction(svc.deps.db, async () => {
        throw Object.assign(new Error("deadlock detected"), { code: "40P01" });
      }),
      (error: unknown) => databaseFault(error) === "conflict",
    );
  });

  it("answers 503 with Retry-After while the database is unreachable, and recovers without a restart", async () => {
    const url = svc.store.databaseUrl;
    assert.ok(url);
    const target = new URL(url);
    const proxy = await TcpProxy.open({ host: target.hostname, port: Number(target.port || 5432) });
    let store: Store | undefined;
    try {
      store = await openStore({
        databaseUrl: TcpProxy.urlThrough(url, proxy.port),
        poolSize: 4,
        bounds: { poolAcquireTimeoutMs: 1_000 },
      });
      const opened = store;
      const deps = buildDeps({
        config: svc.deps.config,
        db: opened.db,
        storeKind: opened.kind,
        clock: svc.clock,
        secrets: svc.deps.secrets,
        databaseReachable: (ms) => opened.reachable(ms),
      });
      const app = await buildApp(deps);
      const proxied = (method: string, path: string, body?: unknown) =>
        svc.request(method, path, body, { credentials: b, app });
      try {
        assert.equal((await proxied("POST", "/api/v1/payments", paymentBody())).status, 201);
        proxy.stop();
        const down = await Promise.all([
          proxied("POST", "/api/v1/payments", paymentBody()),
          proxied("GET", "/api/v1/balance"),
          proxied("POST", "/api/v1/withdraws", withdrawBody()),
        ]);
        for (const [i, res] of down.entries()) assertUnavailable(res, `request ${i} while down`);
        const notReady = await app.inject({ method: "GET", url: "/readyz" });
        assert.equal(notReady.statusCode, 503);
        proxy.start();
        const up = await proxied("POST", "/api/v1/payments", paymentBody());
        assert.equal(up.status, 201, JSON.stringify(up.body));
        assert.equal((await proxied("GET", "/api/v1/balance")).status, 200);
        assert.equal((await app.inject({ method: "GET", url: "/readyz" })).statusCode, 200);
      } finally {
        await app.close();
      }
    } finally {
      await store?.close().catch(() => {});
      await proxy.close();
    }
  });
});
