/**
 * The operator's daily report's payout figures (GET /admin/v1/reports/daily, docs/providers/scb.md
 * "The daily report"): `paidOut` counts withdraws paid and refunds succeeded that day (both leave
 * the operator's account as transfers); `undecided` counts the withdraws and refunds whose
 * transfer a connector holds undecided, never the payout desk's lines the operator is paying by
 * hand. Each figure is read before and after, so other tests' records do not matter.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createWithdraw, simulateWithdrawRequest } from "../helpers/lifecycle.ts";
import { createRefund, succeededPayment } from "../helpers/refunds.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

interface FigureView {
  count: number;
  amount: string;
}

let desk: TestService;
let connector: TestService;

before(async () => {
  desk = await startService({ env: { SATANG_PAYOUTS: "manual" } });
  connector = await startService();
});
after(async () => {
  await desk?.close();
  await connector?.close();
});

/** The report's figures of the service's current Bangkok day. */
async function figures(svc: TestService): Promise<{ paidOut: FigureView; undecided: FigureView }> {
  const day = new Date(svc.clock.now().getTime() + 7 * 3_600_000).toISOString().slice(0, 10);
  const res = await svc.admin("GET", `/admin/v1/reports/daily?date=${day}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

const delta = (before: FigureView, after: FigureView) => ({
  count: after.count - before.count,
  amount: (Number(after.amount) - Number(before.amount)).toFixed(2),
});

describe("the daily report's payout figures", () => {
  it("counts no payout desk line as undecided, and a desk refund paid as paid out", async () => {
    const start = await figures(desk);
    const shop: Credentials = await fundedMerchant(desk, {}, 100_000n);
    const withdraw = await createWithdraw(desk, shop, { amount: "1000.00" });
    const payment = await succeededPayment(desk, shop, "5000.00");
    const refund = await createRefund(desk, shop, payment.id, { amount: "700.00" });
    const batch = await desk.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const batchId = batch.body.data.id as string;

    const taken = await figures(desk);
    assert.deepEqual(delta(start.undecided, taken.undecided), { count: 0, amount: "0.00" }, "desk lines");

    const paid = await desk.admin(
      "POST",
      `/admin/v1/payout-batches/${batchId}/items/${withdraw.id}/outcome`,
      {
        outcome: "paid",
        bankReference: `DR-W-${withdraw.id.slice(0, 8)}`,
      },
    );
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const refunded = await desk.admin(
      "POST",
      `/admin/v1/payout-batches/${batchId}/refunds/${refund.id}/outcome`,
      {
        outcome: "paid",
        bankReference: `DR-R-${refund.id.slice(0, 8)}`,
      },
    );
    assert.equal(refunded.status, 200, JSON.stringify(refunded.body));
    const end = await figures(desk);
    assert.deepEqual(
      delta(start.paidOut, end.paidOut),
      { count: 2, amount: "1700.00" },
      "a withdraw and a refund",
    );
  });

  it("counts a withdraw whose transfer a connector holds undecided, until the bank decides it", async () => {
    const start = await figures(connector);
    const shop: Credentials = await fundedMerchant(connector, {}, 100_000n);
    const withdraw = await createWithdraw(connector, shop, { amount: "1200.00" });
    const sent = await simulateWithdrawRequest(connector, shop, withdraw.id, "indeterminate");
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.data.status, "processing");
    const held = await figures(connector);
    assert.deepEqual(delta(start.undecided, held.undecided), { count: 1, amount: "1200.00" });
    assert.equal((await simulateWithdrawRequest(connector, shop, withdraw.id, "paid")).status, 200);
    const done = await figures(connector);
    assert.deepEqual(delta(held.undecided, done.undecided), { count: -1, amount: "-1200.00" });
    assert.deepEqual(delta(held.paidOut, done.paidOut), { count: 1, amount: "1200.00" });
  });
});
