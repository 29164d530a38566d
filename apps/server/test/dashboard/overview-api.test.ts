/**
 * The overview's data: GET /dashboard/api/volume (payments succeeded and withdraws paid per
 * Bangkok day, the last 30 days) and GET /dashboard/api/search (reference id, payment id or
 * withdraw id), scoped to the session's merchant.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type DashboardUser, dashboardUser } from "../helpers/dashboard.ts";
import type { Credentials, TestService } from "../helpers/harness.ts";
import { startService } from "../helpers/harness.ts";
import { createPayment, createWithdraw } from "../helpers/lifecycle.ts";
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
    await createPayment(svc, shop, { amount: "50.00" }); // not succeeded
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
      paymentsAmount: "120",
      withdrawsCount: 0,
      withdrawsAmount: "0",
    });
    assert.equal(byDate.get(bangkokDate(day3 + DAY_MS)).paymentsAmount, "250");
    assert.equal(days[0].paymentsAmount, "70");
    assert.equal(days[29].withdrawsCount, 1);
    assert.equal(days[29].withdrawsAmount, "300");
    const total = days.reduce((sum, d) => sum + BigInt(d.paymentsAmount), 0n);
    assert.equal(total, 120n + 250n + 70n);
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
    const empty = await user.request("GET", "/search");
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.code, "VALIDATION_ERROR");
  });
});
