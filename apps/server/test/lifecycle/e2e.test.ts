/**
 * End to end over the public API, as a merchant's integration test would run it against the
 * sandbox: a payment succeeds, settles into the wallet, pays a withdraw out; and the failure
 * paths. The events of each record are checked after every transition, and the ledger after
 * every test.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import {
  createPayment,
  eventsOf,
  simulatePaymentRequest,
  simulateWithdrawRequest,
} from "../helpers/lifecycle.ts";
import { withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
let merchant: Credentials;

before(async () => {
  svc = await startService();
  merchant = await svc.newMerchant({ settlementDelayHours: 0 });
});
afterEach(async () => {
  await assertLedgerConsistent(svc.deps.db);
});
after(async () => {
  await svc.close();
});

/** Each call happens a second after the previous one, so events have distinct timestamps. */
const api = (method: string, path: string, body?: unknown) => {
  svc.clock.advance(1_000);
  return svc.request(method, path, body, { credentials: merchant });
};

async function tick(): Promise<true> {
  svc.clock.advance(1_000);
  return true;
}

async function balance(): Promise<{ walletBalance: number; settlementBalance: number }> {
  const res = await api("GET", "/api/v1/balance");
  assert.equal(res.status, 200);
  return res.body.data;
}

async function lastEvent(id: string): Promise<{ type: string; status: string }> {
  const events = await eventsOf(svc.deps.db, id);
  const last = events.at(-1)!;
  return { type: last.type, status: last.status };
}

describe("a merchant's money, end to end", () => {
  it("takes a payment, settles it into the wallet and pays it out, consuming the hold", async () => {
    const payment = await createPayment(svc, merchant, { amount: "50000.00" });
    assert.equal(payment.status, "requires_action");

    const succeeded =
      (await tick()) && (await simulatePaymentRequest(svc, merchant, payment.id, "succeeded"));
    assert.equal(succeeded.body.data.status, "succeeded");
    assert.deepEqual(await lastEvent(payment.id), { type: "payment.received", status: "succeeded" });
    assert.deepEqual(await balance(), {
      ...(await balance()),
      walletBalance: 0,
      settlementBalance: 50000,
    });

    const run = await api("POST", "/api/v1/sandbox/settlements/run");
    assert.equal(run.body.data.count, 1);
    const settled = await balance();
    assert.equal(settled.walletBalance, 50000, "the wallet balance grows by the settled payment");
    assert.equal(settled.settlementBalance, 0);

    const created = await api("POST", "/api/v1/withdraws", withdrawBody({ amount: "30000.00" }));
    assert.equal(created.status, 201);
    const withdraw = created.body.data;
    assert.equal((await balance()).walletBalance, 20000, "the withdraw's amount is held");
    assert.deepEqual(await eventsOf(svc.deps.db, withdraw.id), [], "admission emits no event");

    const processing =
      (await tick()) && (await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing"));
    assert.equal(processing.body.data.status, "processing");
    assert.deepEqual(await lastEvent(withdraw.id), { type: "withdraw.processing", status: "processing" });

    const paid = (await tick()) && (await simulateWithdrawRequest(svc, merchant, withdraw.id, "paid"));
    assert.equal(paid.body.data.status, "paid");
    assert.notEqual(paid.body.data.paidAt, null);
    assert.deepEqual(await lastEvent(withdraw.id), { type: "withdraw.paid", status: "paid" });
    const end = await balance();
    assert.equal(end.walletBalance, 20000, "the hold is consumed, not returned");
    const held = await svc.deps.db
      .selectFrom("ledger_accounts")
      .select("balance_satang")
      .where("merchant_id", "=", merchant.merchantId)
      .where("kind", "=", "wallet_held")
      .executeTakeFirstOrThrow();
    assert.equal(held.balance_satang, 0n);

    const read = await api("GET", `/api/v1/withdraws/${withdraw.id}`);
    assert.deepEqual(read.body.data, paid.body.data);
  });

  it("fails a payment: payment_failed, payment.failed, nothing to settle", async () => {
    const before = await balance();
    const payment = await createPayment(svc, merchant, { amount: "700.00" });
    const failed = (await tick()) && (await simulatePaymentRequest(svc, merchant, payment.id, "failed"));
    assert.equal(failed.body.data.status, "payment_failed");
    assert.deepEqual(await lastEvent(payment.id), { type: "payment.failed", status: "payment_failed" });
    const run = await api("POST", "/api/v1/sandbox/settlements/run");
    assert.equal(run.body.data.count, 0);
    assert.deepEqual(await balance(), before);
  });

  it("fails a withdraw: the hold is released to the wallet", async () => {
    const before = await balance();
    const created = await api("POST", "/api/v1/withdraws", withdrawBody({ amount: "5000.00" }));
    const withdraw = created.body.data;
    assert.equal((await balance()).walletBalance, before.walletBalance - 5000);
    await tick();
    await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
    const failed = (await tick()) && (await simulateWithdrawRequest(svc, merchant, withdraw.id, "failed"));
    assert.equal(failed.body.data.status, "failed");
    assert.deepEqual(await lastEvent(withdraw.id), { type: "withdraw.failed", status: "failed" });
    assert.equal((await balance()).walletBalance, before.walletBalance);
  });

  it("keeps an indeterminate withdraw processing with its amount held, until the bank's outcome arrives", async () => {
    const before = await balance();
    const created = await api("POST", "/api/v1/withdraws", withdrawBody({ amount: "2000.00" }));
    const withdraw = created.body.data;
    const unknown =
      (await tick()) && (await simulateWithdrawRequest(svc, merchant, withdraw.id, "indeterminate"));
    assert.equal(unknown.body.data.status, "processing");
    assert.deepEqual(await lastEvent(withdraw.id), { type: "withdraw.processing", status: "processing" });
    const read = await api("GET", `/api/v1/withdraws/${withdraw.id}`);
    assert.equal(read.body.data.status, "processing");
    assert.equal((await balance()).walletBalance, before.walletBalance - 2000);

    const cancel = await api("POST", `/api/v1/withdraws/${withdraw.id}/cancel`);
    assert.equal(cancel.status, 400, "an indeterminate payout cannot be canceled: the bank may pay it");
    assert.equal(cancel.body.error.metadata.field, "status");

    const paid = (await tick()) && (await simulateWithdrawRequest(svc, merchant, withdraw.id, "paid"));
    assert.equal(paid.body.data.status, "paid");
    assert.equal((await balance()).walletBalance, before.walletBalance - 2000);
  });
});
