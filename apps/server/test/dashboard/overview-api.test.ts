/**
 * The overview's data: GET /dashboard/api/volume (payments succeeded, refunds paid back, the
 * net of the two, and withdraws paid per Bangkok day, the last 30 days) and GET /dashboard/api/search (reference id, payment id or
 * withdraw id), scoped to the session's merchant.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type DashboardUser, dashboardUser } from "../helpers/dashboard.ts";
import type { Credentials, TestService } from "../helpers/harness.ts";
import { startService } from "../helpers/harness.ts";
import { createPayment, createWithdraw } from "../helpers/lifecycle.ts";
import { createRefund, simulateRefundRequest, succeededPayment } from "../helpers/refunds.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

const DAY_MS = 86_400_000;
let svc: TestService;
let shop: Credentials;
let other: Credentials;
let user: DashboardUser;

/** Bangkok midnight (as a UTC instant) of the Bangkok day `daysAgo` before the service's today. */
function bangkokMidnight(daysAgo: number): number {
  const now = svc.clock.now().getTime() + 7 * 3_600_000;
  return Math.floor(now / DAY_MS) * DAY_MS - 7 * 3_600_000 - daysAgo * DAY_MS;
}

const bangkokDate = (utcMs: number) => new Date(utcMs + 7 * 3_600_000).toISOString().slice(0, 10);

async function succeed(paymentId: string, at: number) {
  await svc.deps.db
    .updateTable("payments")
    .set({ status: "succeeded", captured_at: new Date(at) })
    .where("id", "=", paymentId)
    .execute();
}

async function pay(withdrawId: string, at: number) {
  await svc.deps.db
    .updateTable("withdraws")
    .set({ status: "paid", paid_at: new Date(at) })
    .where("id", "=", withdrawId)
    .execute();
}

/** A refund of `amount` paid back to the customer at `at`. */
async function refundPaidAt(credentials: Credentials, amount: string, at: number) {
  const payment = await succeededPayment(svc, credentials, "100000.00");
  const refund = await createRefund(svc, credentials, payment.id, { amount });
  const res = await simulateRefundRequest(svc, credentials, refund.id, "succeeded");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await svc.deps.db
    .updateTable("refunds")
    .set({ succeeded_at: new Date(at) })
    .where("id", "=", refund.id)
    .execute();
  return payment;
}

before(async () => {
  svc = await startService();
  shop = await fundedMerchant(svc);
  other = await fundedMerchant(svc);
  user = await dashboardUser(svc, shop.merchantId);
});

after(async () => {
  await svc?.close();
});

describe("GET /volume", () => {
  it("sums per Bangkok day, cuts days at Bangkok midnight, keeps to 30 days and to the merchant", async () => {
    const day3 = bangkokMidnight(3);
    // 23:59:59.999 Bangkok on day 3 and 00:00 Bangkok on day 2 fall on different days.
    const late = await createPayment(svc, shop, { amount: "100.00" });
    await succeed(late.id, day3 + DAY_MS - 1);
    const early = await createPayment(svc, shop, { amount: "250.00" });
    await succeed(early.id, day3 + DAY_MS);
    const sameDay = await createPayment(svc, shop, { amount: "20.00" });
    await succeed(sameDay.id, day3 + 60_000);
    // The first of the 30 days is in, the day before is out.
    const first = await createPayment(svc, shop, { amount: "70.00" });
    await succeed(first.id, bangkokMidnight(29));
    const tooOld = await createPayment(svc, shop, { amount: "90.00" });
    await succeed(tooOld.id, bangkokMidnight(29) - 1);
    await createPayment(svc, shop, { amount: "5000.00" }); // not succeeded
    const foreign = await createPayment(svc, other, { amount: "999.00" });
    await succeed(foreign.id, day3 + 60_000);
    const withdraw = await createWithdraw(svc, shop, { amount: "300.00" });
    await pay(withdraw.id, bangkokMidnight(0) + 3_600_000);

    const res = await user.request("GET", "/volume");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const days: any[] = res.body.data.days;
    assert.equal(days.length, 30);
    assert.equal(days[29].date, bangkokDate(bangkokMidnight(0)));
    assert.equal(days[0].date, bangkokDate(bangkokMidnight(29)));
    const byDate = new Map(days.map((d) => [d.date, d]));
    assert.deepEqual(byDate.get(bangkokDate(day3)), {
      date: bangkokDate(day3),
      paymentsCount: 2,
      paymentsAmount: "120.00",
      refundsCount: 0,
      refundsAmount: "0.00",
      netAmount: "120.00",
      withdrawsCount: 0,
      withdrawsAmount: "0.00",
    });
    assert.equal(byDate.get(bangkokDate(day3 + DAY_MS)).paymentsAmount, "250.00");
    assert.equal(days[0].paymentsAmount, "70.00");
    assert.equal(days[29].withdrawsCount, 1);
    assert.equal(days[29].withdrawsAmount, "300.00");
    const total = days.reduce((sum, d) => sum + BigInt(d.paymentsAmount.slice(0, -3)), 0n);
    assert.equal(total, 120n + 250n + 70n);
  });
});

describe("GET /volume, net of refunds", () => {
  it("counts a refund on the Bangkok day the bank paid it back and nets it from that day", async () => {
    const shop2 = await fundedMerchant(svc);
    const user2 = await dashboardUser(svc, shop2.merchantId);
    const day5 = bangkokMidnight(5);
    const payment = await refundPaidAt(shop2, "30000.00", day5 + DAY_MS - 1);
    await refundPaidAt(shop2, "2500.00", day5 + DAY_MS); // the next Bangkok day
    // A pending refund and a failed one are not money back.
    const pending = await succeededPayment(svc, shop2, "50000.00");
    await createRefund(svc, shop2, pending.id, { amount: "10000.00" });
    const failed = await createRefund(svc, shop2, pending.id, { amount: "50.00" });
    assert.equal((await simulateRefundRequest(svc, shop2, failed.id, "failed")).status, 200);
    // Another merchant's refund is not this one's.
    await refundPaidAt(other, "99900.00", day5 + 60_000);

    const res = await user2.request("GET", "/volume");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const days: any[] = res.body.data.days;
    const byDate = new Map(days.map((d) => [d.date, d]));
    const day = byDate.get(bangkokDate(day5));
    assert.equal(day.refundsCount, 1);
    assert.equal(day.refundsAmount, "30000.00");
    assert.equal(day.netAmount, "-30000.00", "a day with only a refund nets below zero");
    assert.equal(byDate.get(bangkokDate(day5 + DAY_MS)).refundsAmount, "2500.00");
    const sum = (field: string) => days.reduce((total, d) => total + BigInt(d[field].slice(0, -3)), 0n);
    assert.equal(sum("refundsAmount"), 32500n);
    assert.equal(sum("netAmount"), sum("paymentsAmount") - 32500n);
    assert.ok(payment.id);
  });
});

describe("GET /search", () => {
  it("finds a payment or a withdraw by reference id or id; another merchant's are not found", async () => {
    const payment = await createPayment(svc, shop, { referenceId: `find-${process.pid}` });
    const withdraw = await createWithdraw(svc, shop);
    const foreign = await createPayment(svc, other, { referenceId: `foreign-${process.pid}` });
    const byRef = await user.request("GET", `/search?q=${encodeURIComponent(` find-${process.pid} `)}`);
    assert.equal(byRef.status, 200);
    assert.deepEqual(byRef.body.data.hits, [
      { type: "payment", id: payment.id, referenceId: payment.referenceId },
    ]);
    const byId = await user.request("GET", `/search?q=${payment.id.toUpperCase()}`);
    assert.deepEqual(
      byId.body.data.hits.map((hit: any) => hit.id),
      [payment.id],
    );
    const byWithdrawId = await user.request("GET", `/search?q=${withdraw.id}`);
    assert.deepEqual(byWithdrawId.body.data.hits, [
      { type: "withdraw", id: withdraw.id, referenceId: withdraw.referenceId },
    ]);
    for (const q of [foreign.id, foreign.referenceId, "nothing-like-this"]) {
      const res = await user.request("GET", `/search?q=${encodeURIComponent(q)}`);
      assert.deepEqual(res.body.data.hits, [], q);
    }
    // A bank transfer's reference, as the customer wrote it in the transfer's note, in any case.
    const transfer = await createPayment(svc, shop, { paymentMethod: "bank_transfer" });
    const transferReference = transfer.nextAction.bankTransferInstructions.reference as string;
    for (const q of [transferReference, transferReference.toLowerCase()]) {
      const res = await user.request("GET", `/search?q=${encodeURIComponent(q)}`);
      assert.deepEqual(
        res.body.data.hits,
        [{ type: "payment", id: transfer.id, referenceId: transfer.referenceId }],
        q,
      );
    }
    const empty = await user.request("GET", "/search");
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.code, "VALIDATION_ERROR");
  });
});
