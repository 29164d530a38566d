/**
 * Settlement (CONTRACT 8): succeeded payments move from settlement pending to the wallet once
 * the merchant's settlementDelayHours have passed in its business time; the sandbox route runs
 * it now for one merchant.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { settlementJob } from "../../src/jobs/lifecycle.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import {
  advanceClock,
  createPayment,
  HOUR_MS,
  ledgerKinds,
  simulatePaymentRequest,
} from "../helpers/lifecycle.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
afterEach(async () => {
  await assertLedgerConsistent(svc.deps.db);
});
after(async () => {
  await svc.close();
});

async function succeededPayment(credentials: Credentials, amount: string): Promise<any> {
  const payment = await createPayment(svc, credentials, { amount });
  const res = await simulatePaymentRequest(svc, credentials, payment.id, "succeeded");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

async function drainSettlement(): Promise<void> {
  while ((await settlementJob.runOnce(svc.deps)) > 0) {}
}

async function settledAt(id: string): Promise<Date | null> {
  const row = await svc.deps.db
    .selectFrom("payments")
    .select("settled_at")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.settled_at;
}

const runSettlements = (credentials: Credentials) =>
  svc.request("POST", "/api/v1/sandbox/settlements/run", undefined, { credentials });

describe("the settlement job", () => {
  it("settles exactly at settlementDelayHours and not a millisecond before", async () => {
    const merchant = await svc.newMerchant({ settlementDelayHours: 24 });
    const payment = await succeededPayment(merchant, "900.00");
    svc.clock.advance(24 * HOUR_MS - 1);
    await drainSettlement();
    assert.equal(await settledAt(payment.id), null);
    assert.equal((await ledgerBalances(svc.deps.db, merchant.merchantId)).settlement_pending, 900n);

    svc.clock.advance(1);
    await drainSettlement();
    assert.deepEqual(await settledAt(payment.id), svc.clock.now());
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(balances.settlement_pending, 0n);
    assert.equal(balances.wallet_available, 900n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded", "settlement"]);

    const read = await svc.request("GET", `/api/v1/payments/${payment.id}`, undefined, {
      credentials: merchant,
    });
    assert.deepEqual(read.body.data, payment, "settling changes no field of the payment record");
  });

  it("settles a payment once however often the job runs", async () => {
    const merchant = await svc.newMerchant({ settlementDelayHours: 0 });
    const payment = await succeededPayment(merchant, "300.00");
    await drainSettlement();
    await drainSettlement();
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded", "settlement"]);
  });
});

describe("POST /api/v1/sandbox/settlements/run", () => {
  it("settles everything eligible of this merchant and answers what it settled; the wallet balance grows", async () => {
    const merchant = await svc.newMerchant({ settlementDelayHours: 0 });
    const other = await svc.newMerchant({ settlementDelayHours: 0 });
    const first = await succeededPayment(merchant, "1000.00");
    const second = await succeededPayment(merchant, "250.00");
    await createPayment(svc, merchant, { amount: "99.00" });
    const theirs = await succeededPayment(other, "400.00");

    const before = await svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(before.body.data.walletBalance, 0);
    assert.equal(before.body.data.settlementBalance, 1250);

    const res = await runSettlements(merchant);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.count, 2);
    assert.equal(res.body.data.amount, "1250.00");
    assert.deepEqual(
      res.body.data.payments.map((p: any) => [p.paymentId, p.amount]).sort(),
      [
        [first.id, "1000.00"],
        [second.id, "250.00"],
      ].sort(),
    );
    assert.equal(res.body.data.payments[0].settledAt, svc.clock.now().toISOString());

    const after = await svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(after.body.data.walletBalance, 1250);
    assert.equal(after.body.data.settlementBalance, 0);
    assert.equal(await settledAt(theirs.id), null, "another merchant's payments are left alone");

    const again = await runSettlements(merchant);
    assert.deepEqual(again.body.data, { count: 0, amount: "0.00", payments: [] });
  });

  it("leaves payments inside the settlement delay; advancing the clock past it settles them", async () => {
    const merchant = await svc.newMerchant({ settlementDelayHours: 2 });
    const payment = await succeededPayment(merchant, "600.00");
    const early = await runSettlements(merchant);
    assert.equal(early.body.data.count, 0);
    assert.equal(await settledAt(payment.id), null);

    await advanceClock(svc, merchant, 2 * 3600);
    assert.notEqual(await settledAt(payment.id), null, "the clock advance settles what became due");
    assert.equal((await ledgerBalances(svc.deps.db, merchant.merchantId)).wallet_available, 600n);
  });

  it("refuses a body with fields", async () => {
    const res = await svc.request("POST", "/api/v1/sandbox/settlements/run", { all: true });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.metadata.field, "all");
  });
});
