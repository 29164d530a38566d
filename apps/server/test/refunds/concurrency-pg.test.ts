/**
 * The refundable amount under concurrency (CONTRACT 16): concurrent refunds of one payment,
 * sent round-robin to two server processes on one PostgreSQL database, never add up to more
 * than the payment; exactly the remaining amount passes and one satang more is refused.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Cluster, signedFetch, startCluster } from "../helpers/cluster.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import { createRefund, refundBody, succeededPayment } from "../helpers/refunds.ts";

const BUSINESS_TIME = Date.UTC(2026, 2, 14, 12, 0, 0);
const QUEUE_BOUNDS = { lockTimeoutMs: 300_000, poolAcquireTimeoutMs: 300_000 };

describe("refunds of one payment under concurrency, across two server processes", () => {
  let svc: TestService;
  let cluster: Cluster;
  before(async () => {
    svc = await startService({ bounds: QUEUE_BOUNDS });
    svc.clock.set(BUSINESS_TIME);
    const databaseUrl = svc.store.databaseUrl;
    if (!databaseUrl) throw new Error("the multi-process tests need PostgreSQL");
    cluster = await startCluster(databaseUrl, BUSINESS_TIME, 2);
  });
  after(async () => {
    await cluster?.close();
    await svc?.close();
  });

  const burst = (m: Credentials, paymentId: string, bodies: unknown[]) =>
    Promise.all(
      bodies.map(async (body, i) => {
        const url = cluster.urls[i % cluster.urls.length]!;
        const res = await signedFetch(url, m, "POST", `/api/v1/payments/${paymentId}/refunds`, body);
        return { status: res.status, code: res.body?.error?.code as string | undefined, body: res.body };
      }),
    );
  const countBy = (outcomes: { status: number; code: string | undefined }[]) => {
    const counts: Record<string, number> = {};
    for (const o of outcomes) {
      const key = o.code ? `${o.status} ${o.code}` : String(o.status);
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  };
  const refundedOf = async (paymentId: string) =>
    (
      await svc.deps.db
        .selectFrom("payments")
        .select("refunded_satang")
        .where("id", "=", paymentId)
        .executeTakeFirstOrThrow()
    ).refunded_satang;
  const sumOfRefunds = async (paymentId: string) => {
    const rows = await svc.deps.db
      .selectFrom("refunds")
      .select("amount_satang")
      .where("payment_id", "=", paymentId)
      .where("status", "not in", ["failed", "canceled"])
      .execute();
    return rows.reduce((sum, r) => sum + r.amount_satang, 0n);
  };

  it("60 concurrent refunds of 100 satang against a payment of 1000 admit exactly 10", async () => {
    const m = await svc.newMerchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const outcomes = await burst(
      m,
      payment.id,
      Array.from({ length: 60 }, () => refundBody({ amount: "100" })),
    );
    assert.deepEqual(countBy(outcomes), { "201": 10, "400 INVALID_INPUT": 50 });
    assert.equal(await sumOfRefunds(payment.id), 1000n);
    assert.equal(await refundedOf(payment.id), 1000n);
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.settlement_pending, 0n);
    assert.equal(balances.wallet_held, 1000n);
    await assertLedgerConsistent(svc.deps.db);
  });

  it("with 7 satang left, 20 concurrent refunds of exactly 7 admit one and 20 of 8 admit none", async () => {
    const m = await svc.newMerchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    await createRefund(svc, m, payment.id, { amount: "993" });
    const over = await burst(
      m,
      payment.id,
      Array.from({ length: 20 }, () => refundBody({ amount: "8" })),
    );
    assert.deepEqual(countBy(over), { "400 INVALID_INPUT": 20 });
    for (const o of over) assert.deepEqual(o.body.error.metadata, { refundable: "7.00", amount: "8.00" });
    const exact = await burst(
      m,
      payment.id,
      Array.from({ length: 20 }, () => refundBody({ amount: "7" })),
    );
    assert.deepEqual(countBy(exact), { "201": 1, "400 INVALID_INPUT": 19 });
    assert.equal(await sumOfRefunds(payment.id), 1000n);
    await assertLedgerConsistent(svc.deps.db);
  });

  it("30 concurrent creates with one idempotency key make one refund", async () => {
    const m = await svc.newMerchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const body = refundBody({ amount: "250", idempotencyKey: `burst-${payment.id}` });
    const outcomes = await burst(
      m,
      payment.id,
      Array.from({ length: 30 }, () => body),
    );
    assert.deepEqual(countBy(outcomes), { "201": 1, "200": 29 });
    assert.equal(new Set(outcomes.map((o) => o.body.data.id)).size, 1);
    assert.equal(await refundedOf(payment.id), 250n);
    await assertLedgerConsistent(svc.deps.db);
  });

  it("refunds racing settlement and a cancel across processes never pass the payment and keep the ledger exact", async () => {
    const m = await svc.newMerchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const first = await createRefund(svc, m, payment.id, { amount: "100" });
    const [, cancel, ...outcomes] = await Promise.all([
      signedFetch(cluster.urls[0]!, m, "POST", "/api/v1/sandbox/settlements/run", {}),
      signedFetch(cluster.urls[1]!, m, "POST", `/api/v1/refunds/${first.id}/cancel`, {}),
      ...Array.from({ length: 12 }, (_, i) =>
        signedFetch(
          cluster.urls[i % 2]!,
          m,
          "POST",
          `/api/v1/payments/${payment.id}/refunds`,
          refundBody({ amount: "100" }),
        ),
      ),
    ]);
    assert.equal(cancel.status, 200);
    // Refunds decided before the cancel see 900 left, after it 1000: 9 or 10 pass, never more.
    const admitted = BigInt(outcomes.filter((o) => o.status === 201).length);
    assert.ok(admitted === 9n || admitted === 10n, `admitted ${admitted}`);
    assert.equal(await sumOfRefunds(payment.id), admitted * 100n);
    assert.equal(await refundedOf(payment.id), admitted * 100n);
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_held, admitted * 100n);
    assert.equal(balances.wallet_available! + balances.settlement_pending!, 1000n - admitted * 100n);
    await assertLedgerConsistent(svc.deps.db);
  });
});
