/**
 * The daily sweep and the operator's daily report (docs/providers/scb.md): money paid to the
 * biller that no confirmation announced and the reconciler does not look for (a payment to a
 * canceled payment, a second payment under a succeeded one) is found by the sweep of its date,
 * matched or raised as an anomaly, and counted in the day's report (JSON and CSV, in THB).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { reconcileCollectionsOnce } from "../../../src/lifecycle/collections.ts";
import {
  bangkokDayStart,
  SWEEP_DELAY_MS,
  sweepCollections,
} from "../../../src/lifecycle/collections-sweep.ts";
import { addDays, bangkokDate } from "../../../src/providers/scb/time.ts";
import { ADMIN_TOKEN } from "../../helpers/harness.ts";
import { assertLedgerConsistent } from "../../helpers/ledger.ts";
import { anomaliesOf, createPayment } from "../../helpers/lifecycle.ts";
import { type LiveScb, RECONCILE_INTERVAL_S, startLiveScb } from "../../helpers/scb/live.ts";

let live: LiveScb;

before(async () => {
  live = await startLiveScb();
});
after(async () => {
  await live.close();
});

async function newPayment(amount: string) {
  const payment = await createPayment(live.svc, live.merchant, { amount });
  const row = await live.svc.deps.db
    .selectFrom("payments")
    .select(["collection_reference", "amount_satang"])
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  return { id: payment.id, ref1: row.collection_reference as string, amountSatang: row.amount_satang };
}

describe("the daily sweep and report", () => {
  it("finds money no confirmation announced, matches or raises every transaction, and reports the day", async () => {
    const day = bangkokDate(live.bank.now());
    const a = await newPayment("10000.00");
    await live.sim.pay({ ref1: a.ref1, amountSatang: a.amountSatang });
    const b = await newPayment("20000.00");
    const canceled = await live.svc.request(
      "POST",
      `/api/v1/payments/${b.id}/cancel`,
      {},
      {
        credentials: live.merchant,
      },
    );
    assert.equal(canceled.body.data.status, "canceled");
    // Paid to the canceled payment, and a second time under the succeeded one: both
    // confirmations lost.
    await live.sim.pay({ ref1: b.ref1, amountSatang: b.amountSatang, confirm: false });
    await live.sim.pay({ ref1: a.ref1, amountSatang: a.amountSatang, confirm: false });
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, b.id), [], "the reconciler does not look");
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, a.id), []);

    // Before the day has ended (and an hour more) nothing is swept for it.
    assert.equal(
      await sweepCollections(live.svc.deps),
      0,
      "nothing paid today is swept before today has ended",
    );
    const early = await live.svc.admin("GET", `/admin/v1/reports/daily?date=${day}`);
    assert.equal(early.body.data.sweep.status, "not_started");

    const sweepAt = bangkokDayStart(addDays(day, 1)).getTime() + SWEEP_DELAY_MS + 60_000;
    live.advance(sweepAt - live.bank.now().getTime());
    let asked = 0;
    for (let run = 0; run < 20; run += 1) {
      const handled = await sweepCollections(live.svc.deps);
      if (handled === 0) break;
      asked += handled;
    }
    assert.ok(asked >= 2, `the sweep asked about every reference (${asked})`);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, b.id), [
      { reason: "payment_canceled", report: "payment.succeeded" },
    ]);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, a.id), [
      { reason: "second_payment", report: "payment.succeeded" },
    ]);
    assert.equal(await sweepCollections(live.svc.deps), 0, "a finished sweep asks nothing again");
    await assertLedgerConsistent(live.svc.deps.db);

    const report = await live.svc.admin("GET", `/admin/v1/reports/daily?date=${day}`);
    assert.equal(report.status, 200);
    const data = report.body.data;
    assert.equal(data.date, day);
    assert.deepEqual(data.paidIn, { count: 3, amount: "40000.00", amountThb: "400.00" });
    assert.deepEqual(data.credited, { count: 1, amount: "10000.00", amountThb: "100.00" });
    assert.deepEqual(data.unmatched, { count: 2, amount: "30000.00", amountThb: "300.00" });
    assert.deepEqual(data.paidOut, { count: 0, amount: "0.00", amountThb: "0.00" });
    assert.deepEqual(data.undecided, { count: 0, amount: "0.00", amountThb: "0.00" });
    assert.equal(data.sweep.status, "finished");
    assert.equal(data.sweep.found, 3);

    const csv = await live.svc.app.inject({
      method: "GET",
      url: `/admin/v1/reports/daily.csv?date=${day}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers["content-type"]), /^text\/csv/);
    assert.deepEqual(csv.body.trimEnd().split("\r\n"), [
      "date,figure,count,amount (THB)",
      `${day},paid_in,3,400.00`,
      `${day},credited,1,100.00`,
      `${day},unmatched,2,300.00`,
      `${day},paid_out,0,0.00`,
      `${day},undecided,0,0.00`,
    ]);
  });

  it("refuses a date that is not a calendar day", async () => {
    for (const date of ["2026-02-30", "yesterday", "2026-1-5"]) {
      const res = await live.svc.admin("GET", `/admin/v1/reports/daily?date=${date}`);
      assert.equal(res.status, 400, date);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
  });
});
