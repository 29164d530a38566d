/**
 * Live collection through SCB when SCB's inquiry lags or prints what the connector cannot read:
 * a confirmation the inquiry does not show yet is asked about again for a bounded time before it
 * is an anomaly, an anomaly closes when its transaction is credited after all, and an answer
 * the connector cannot read is counted (metric), listed for the operator and logged, never taken
 * as "not paid".
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import {
  reconcileCollectionsOnce,
  UNSHOWN_CONFIRMATION_RECHECK_MS,
} from "../../../src/lifecycle/collections.ts";
import type { ScbConnector } from "../../../src/providers/scb/connector.ts";
import { ADMIN_TOKEN } from "../../helpers/harness.ts";
import { assertLedgerConsistent } from "../../helpers/ledger.ts";
import { anomaliesOf, createPayment, ledgerKinds } from "../../helpers/lifecycle.ts";
import { type LiveScb, RECONCILE_INTERVAL_S, startLiveScb } from "../../helpers/scb/live.ts";

let live: LiveScb;
const errors: { details: Record<string, unknown>; message: string }[] = [];

before(async () => {
  live = await startLiveScb();
  (live.svc.deps.connectors.byName("scb") as ScbConnector).unreadable.attach({
    error: (details, message) => errors.push({ details: details as Record<string, unknown>, message }),
  });
});
afterEach(async () => {
  live.sim.inquiryRowForm = (row) => row;
  await assertLedgerConsistent(live.svc.deps.db);
});
after(async () => {
  await live.close();
});

async function newPayment() {
  const payment = await createPayment(live.svc, live.merchant, { amount: "120.00" });
  const row = await live.svc.deps.db
    .selectFrom("payments")
    .select(["collection_reference", "amount_satang", "status"])
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  return { payment, ref1: row.collection_reference as string, amountSatang: row.amount_satang };
}

async function statusOf(id: string): Promise<string> {
  const row = await live.svc.deps.db
    .selectFrom("payments")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe("a confirmation SCB's inquiry does not show yet", () => {
  it("is asked about again and credited once the inquiry shows it, with no anomaly", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    const paid = await live.sim.pay({ ref1, amountSatang, visibleAfterMs: 5 * 60_000 });
    assert.equal(live.sim.confirmations.at(-1)?.status, 200);
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), []);
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), [], "still within the re-check window");
    live.advance(5 * 60_000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), []);
    const row = await live.svc.deps.db
      .selectFrom("provider_confirmations")
      .select(["status", "result"])
      .where("provider", "=", "scb")
      .where("transaction_id", "=", paid.transactionId)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, "verified");
  });

  it("raises an anomaly after the re-check window, and closes it when the transaction is credited", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    const paid = await live.sim.pay({
      ref1,
      amountSatang,
      visibleAfterMs: UNSHOWN_CONFIRMATION_RECHECK_MS + 90_000,
    });
    live.advance(UNSHOWN_CONFIRMATION_RECHECK_MS + 1_000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), [
      { reason: "unconfirmed_confirmation", report: "payment.succeeded" },
    ]);
    const open = await live.svc.admin("GET", "/admin/v1/anomalies?open=true&limit=100");
    assert.equal(open.status, 200);
    const raised = open.body.data.data.find((a: { subjectId: string }) => a.subjectId === payment.id);
    assert.equal(raised?.closedAt, null);
    assert.equal(raised?.callbackId, paid.transactionId);

    // The inquiry shows it now; the payment's own check credits it and the anomaly closes.
    live.advance(120_000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "succeeded");
    const stillOpen = await live.svc.admin("GET", "/admin/v1/anomalies?open=true&limit=100");
    assert.equal(
      stillOpen.body.data.data.some((a: { subjectId: string }) => a.subjectId === payment.id),
      false,
    );
    const closed = await live.svc.admin("GET", "/admin/v1/anomalies?open=false&limit=100");
    const record = closed.body.data.data.find((a: { subjectId: string }) => a.subjectId === payment.id);
    assert.ok(record?.closedAt, "closed with a time");
    assert.match(record.resolution, /^credited: /);
    assert.match(record.resolution, new RegExp(payment.id));
  });
});

describe("an answer the connector cannot read", () => {
  it("is never taken as not paid: counted by the metric, listed for the operator, logged with its exchange id", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    live.sim.inquiryRowForm = (row) => ({ ...row, amount: "one hundred twenty baht" });
    const errorsBefore = errors.length;
    const paid = await live.sim.pay({ ref1, amountSatang });
    assert.equal(live.sim.confirmations.at(-1)?.status, 200);
    assert.equal(await statusOf(payment.id), "requires_action");
    // Not an anomaly ("not found"): SCB could not be read, so it is asked again.
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), []);
    const confirmation = await live.svc.deps.db
      .selectFrom("provider_confirmations")
      .select("status")
      .where("provider", "=", "scb")
      .where("transaction_id", "=", paid.transactionId)
      .executeTakeFirstOrThrow();
    assert.equal(confirmation.status, "unavailable");

    const list = await live.svc.admin(
      "GET",
      `/admin/v1/providers/scb/exchanges?unreadable=true&paymentId=${payment.id}`,
    );
    assert.equal(list.status, 200);
    assert.equal(list.body.data.total, 1);
    const exchange = list.body.data.data[0];
    assert.equal(exchange.operation, "bill_payment_inquiry");
    assert.match(exchange.unreadable, /amount is unreadable/);
    const readable = await live.svc.admin(
      "GET",
      `/admin/v1/providers/scb/exchanges?unreadable=false&paymentId=${payment.id}`,
    );
    assert.ok(readable.body.data.data.every((e: { unreadable: unknown }) => e.unreadable === null));

    const logged = errors.slice(errorsBefore);
    assert.equal(logged.length, 1);
    assert.equal(logged[0]?.message, "SCB answer could not be read");
    assert.equal(logged[0]?.details.scbExchangeId, exchange.id);

    const metrics = await live.svc.app.inject({
      method: "GET",
      url: "/metrics",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.match(metrics.body, /satang_scb_unreadable_answers\{operation="bill_payment_inquiry"\} 1\n/);

    // Once SCB's answer reads, the re-check credits it.
    live.sim.inquiryRowForm = (row) => row;
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "succeeded");
  });

  it("counts a confirmation that cannot be read, answered 400 so that SCB sends it again", async () => {
    const res = await live.svc.app.inject({
      method: "POST",
      url: live.sim.callbackUrl!.replace(/^https?:\/\/[^/]+/, ""),
      payload: JSON.stringify({
        transactionId: "T1",
        billPaymentRef1: "ABC",
        transactionDateandTime: "yesterday",
      }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.statusCode, 400);
    const list = await live.svc.admin(
      "GET",
      "/admin/v1/providers/scb/exchanges?unreadable=true&operation=payment_confirmation",
    );
    assert.equal(list.body.data.total, 1);
    assert.match(list.body.data.data[0].unreadable, /transactionDateandTime/);
  });
});
