/**
 * Live collection through SCB, end to end against the local simulator: a live PromptPay payment
 * shows the operator's tag-30 QR, a simulated customer pays it, SCB's confirmation reaches the
 * service's route, the service asks SCB's inquiry, and only then the payment succeeds with the
 * ledger posting, event and webhook of the sandbox. Re-sent, forged, altered and lost
 * confirmations, SCB being unreachable and an access token that stops working are the failure
 * paths.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { billPayment as readBillPayment } from "promptparse/validate";
import { JOBS } from "../../../src/jobs/index.ts";
import { startWorkers } from "../../../src/jobs/runner.ts";
import {
  reconcileCollectionsOnce,
  UNSHOWN_CONFIRMATION_RECHECK_MS,
} from "../../../src/lifecycle/collections.ts";
import { expireDuePayments } from "../../../src/lifecycle/payments.ts";
import { assertLedgerConsistent } from "../../helpers/ledger.ts";
import { anomaliesOf, createPayment, eventTypes, ledgerKinds, paymentBody } from "../../helpers/lifecycle.ts";
import { CALLBACK_TOKEN, type LiveScb, RECONCILE_INTERVAL_S, startLiveScb } from "../../helpers/scb/live.ts";
import { SCB_TEST } from "../../helpers/scb/setup.ts";

let live: LiveScb;

before(async () => {
  live = await startLiveScb();
});
afterEach(async () => {
  await assertLedgerConsistent(live.svc.deps.db);
});
after(async () => {
  await live.close();
});

async function newPayment(overrides: Record<string, unknown> = {}) {
  const payment = await createPayment(live.svc, live.merchant, { amount: "25050.00", ...overrides });
  const row = await live.svc.deps.db
    .selectFrom("payments")
    .select(["collection_reference", "amount_satang"])
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  return { payment, ref1: row.collection_reference as string, amountSatang: row.amount_satang };
}

async function statusOf(id: string): Promise<string> {
  const res = await live.svc.request("GET", `/api/v1/payments/${id}`, undefined, {
    credentials: live.merchant,
  });
  return res.body.data.status;
}

async function confirmationRow(transactionId: string) {
  return live.svc.deps.db
    .selectFrom("provider_confirmations")
    .selectAll()
    .where("provider", "=", "scb")
    .where("transaction_id", "=", transactionId)
    .executeTakeFirst();
}

describe("a live PromptPay payment", () => {
  it("shows a tag-30 QR for the operator's biller id with the payment's reference as ref1", async () => {
    const { payment, ref1 } = await newPayment();
    assert.match(ref1, /^[A-Z0-9]{1,20}$/);
    assert.equal(payment.status, "requires_action");
    assert.equal(payment.nextAction.type, "use_payment_app");
    assert.equal(payment.nextAction.paymentAppUrl, `http://pay.test/pay/${payment.id}`);
    const qr = readBillPayment(payment.nextAction.qrCode.payload);
    assert.equal(qr?.billerId, SCB_TEST.billerId);
    assert.equal(qr?.ref1, ref1);
    assert.match(payment.nextAction.qrCode.payload, /54062?50\.50/);
  });

  it("refuses a bank transfer, which no live connector collects, with 400 on paymentMethod and makes nothing", async () => {
    const before = await live.svc.deps.db
      .selectFrom("payments")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    const res = await live.svc.request(
      "POST",
      "/api/v1/payments",
      paymentBody({ paymentMethod: "bank_transfer" }),
      { credentials: live.merchant },
    );
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.metadata.field, "paymentMethod");
    assert.match(res.body.error.message, /no payment connector/);
    const afterwards = await live.svc.deps.db
      .selectFrom("payments")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    assert.equal(Number(afterwards.n), Number(before.n));
  });

  it("gives every payment its own reference", async () => {
    const refs = new Set<string>();
    for (let i = 0; i < 5; i += 1) refs.add((await newPayment()).ref1);
    assert.equal(refs.size, 5);
  });

  it("succeeds once SCB's inquiry shows the confirmed transaction, with the sandbox's ledger and events", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    const inquiriesBefore = live.sim.of("bill_payment_inquiry").length;
    const paid = await live.sim.pay({ ref1, amountSatang });
    const delivery = live.sim.confirmations.at(-1)!;
    assert.equal(delivery.status, 200);
    assert.deepEqual(delivery.response, {
      resCode: "00",
      resDesc: "success",
      transactionId: paid.transactionId,
    });
    assert.ok(live.sim.of("bill_payment_inquiry").length > inquiriesBefore, "SCB was asked");
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.received"]);
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
    assert.equal((await confirmationRow(paid.transactionId))?.status, "verified");
  });

  it("credits a re-sent confirmation once", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    const paid = await live.sim.pay({ ref1, amountSatang, resend: 3 });
    const deliveries = live.sim.confirmations.filter((d) => d.body.transactionId === paid.transactionId);
    assert.equal(deliveries.length, 4);
    for (const d of deliveries) assert.equal(d.status, 200);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.received"]);
    assert.equal((await confirmationRow(paid.transactionId))?.deliveries, 4);
  });

  it("credits nothing on a forged confirmation and records an anomaly", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    const forged = live.sim.confirmationBody({
      transactionId: "20990101FORGED0001",
      billerId: SCB_TEST.billerId,
      ref1,
      ref2: null,
      ref3: null,
      amount: "250.50",
      transactionDateandTime: new Date(live.bank.now().getTime() + 7 * 3_600_000).toISOString().slice(0, 19),
      sendingBankCode: "004",
      payerName: "MALLORY",
      payerAccountNumber: "9999999999",
    });
    const delivery = await live.sim.sendConfirmation(forged);
    assert.equal(delivery.status, 200, "acknowledged: SCB need not send it again");
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), []);
    // Not shown by SCB's inquiry: asked again for a bounded time before it is an anomaly.
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), []);
    assert.equal((await confirmationRow("20990101FORGED0001"))?.status, "received");
    live.advance(UNSHOWN_CONFIRMATION_RECHECK_MS + 1_000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), []);
    const anomalies = await anomaliesOf(live.svc.deps.db, payment.id);
    assert.deepEqual(anomalies, [{ reason: "unconfirmed_confirmation", report: "payment.succeeded" }]);
    assert.equal((await confirmationRow("20990101FORGED0001"))?.status, "not_found");
    assert.equal(amountSatang, 25_050n);
  });

  it("credits nothing on an altered confirmation; the reconciler credits SCB's transaction", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    const paid = await live.sim.pay({ ref1, amountSatang, confirm: false });
    const altered = { ...live.sim.confirmationBody(paid), amount: "1.00" };
    assert.equal((await live.sim.sendConfirmation(altered)).status, 200);
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), [
      { reason: "altered_confirmation", report: "payment.succeeded" },
    ]);
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
  });

  it("credits nothing when SCB shows another amount paid under the reference", async () => {
    const { payment, ref1 } = await newPayment();
    const paid = await live.sim.pay({ ref1, amountSatang: 100n });
    assert.equal((await confirmationRow(paid.transactionId))?.status, "verified");
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), []);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), [
      { reason: "amount_mismatch", report: "payment.succeeded" },
    ]);
  });

  it("records a second payment under a succeeded payment's reference for the operator", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    await live.sim.pay({ ref1, amountSatang });
    await live.sim.pay({ ref1, amountSatang });
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), [
      { reason: "second_payment", report: "payment.succeeded" },
    ]);
  });

  it("records a confirmation for a reference no payment has as an anomaly", async () => {
    const paid = await live.sim.pay({ ref1: "NOSUCHREF123", amountSatang: 5_000n });
    assert.equal(live.sim.confirmations.at(-1)?.status, 200);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, "NOSUCHREF123"), [
      { reason: "unknown_reference", report: "payment.succeeded" },
    ]);
    assert.equal((await confirmationRow(paid.transactionId))?.result, "unknown_reference");
  });
});

describe("the confirmation route", () => {
  it("answers 404 to a wrong token, and looks nothing up", async () => {
    const inquiries = live.sim.of("bill_payment_inquiry").length;
    for (const token of [`${CALLBACK_TOKEN}x`, CALLBACK_TOKEN.slice(0, -1), "short"]) {
      const res = await live.svc.app.inject({
        method: "POST",
        url: `/providers/scb/confirmations/${token}`,
        payload: JSON.stringify({
          transactionId: "X1",
          billPaymentRef1: "ABC",
          transactionDateandTime: "2026-01-01T10:00:00",
        }),
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
    }
    // A notice is read whatever charset it declares (the public API refuses one other than UTF-8).
    const declared = await live.svc.app.inject({
      method: "POST",
      url: `/providers/scb/confirmations/${CALLBACK_TOKEN}x`,
      payload: JSON.stringify({
        transactionId: "X1",
        billPaymentRef1: "ABC",
        transactionDateandTime: "2026-01-01T10:00:00",
      }),
      headers: { "content-type": "application/json; charset=ISO-8859-1" },
    });
    assert.equal(declared.statusCode, 404, declared.body);
    assert.equal(live.sim.of("bill_payment_inquiry").length, inquiries);
  });

  it("answers 400 to a body that is not a confirmation, so SCB sends it again", async () => {
    const res = await live.svc.app.inject({
      method: "POST",
      url: `/providers/scb/confirmations/${CALLBACK_TOKEN}`,
      payload: JSON.stringify({ transactionId: "X1" }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, "VALIDATION_ERROR");
  });

  it("acknowledges and records a confirmation when SCB cannot be asked; the reconciler checks it again", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    live.sim.failNext("bill_payment_inquiry", {
      kind: "answer",
      httpStatus: 503,
      code: 9999,
      description: "down",
    });
    const paid = await live.sim.pay({ ref1, amountSatang });
    assert.equal(live.sim.confirmations.at(-1)?.status, 200);
    assert.equal((await confirmationRow(paid.transactionId))?.status, "unavailable");
    assert.equal(await statusOf(payment.id), "requires_action");
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal((await confirmationRow(paid.transactionId))?.status, "verified");
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
  });

  it("checks with a fresh access token when SCB stops taking the old one mid-run", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    const tokens = live.sim.tokensIssued;
    live.sim.expireTokens();
    await live.sim.pay({ ref1, amountSatang });
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.equal(live.sim.tokensIssued, tokens + 1);
  });
});

describe("the reconciler", () => {
  it("finds a payment whose confirmation was lost", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    await live.sim.pay({ ref1, amountSatang, confirm: false });
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "requires_action", "not asked before an interval has passed");
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.received"]);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
  });

  it("confirms an expired payment late when its money arrived within 72 hours", async () => {
    const { payment, ref1, amountSatang } = await newPayment({ expiresInMinutes: 5 });
    live.advance(301_000);
    await live.sim.pay({ ref1, amountSatang, confirm: false });
    await expireDuePayments(live.svc.deps);
    assert.equal(await statusOf(payment.id), "expired");
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.expired", "payment.received"]);
  });

  it("runs as a background job: a lost confirmation ends in succeeded and payment.received", async () => {
    const { payment, ref1, amountSatang } = await newPayment();
    await live.sim.pay({ ref1, amountSatang, confirm: false });
    live.advance((RECONCILE_INTERVAL_S + 1) * 1000);
    const workers = startWorkers(live.svc.deps, JOBS, { error: () => {} });
    try {
      for (let i = 0; i < 100 && (await statusOf(payment.id)) !== "succeeded"; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await workers.stop();
    }
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.received"]);
  });

  // Last in the file: it moves the clocks three days ahead.
  it("refuses money that arrives more than 72 hours after expiry and records it for the operator", async () => {
    const { payment, ref1, amountSatang } = await newPayment({ expiresInMinutes: 5 });
    live.advance(301_000);
    await expireDuePayments(live.svc.deps);
    live.advance(72 * 3_600_000 + 60_000);
    await live.sim.pay({ ref1, amountSatang });
    assert.equal(live.sim.confirmations.at(-1)?.status, 200);
    // Read from the store: the API's signature check runs on real time, now 72 hours behind.
    const row = await live.svc.deps.db
      .selectFrom("payments")
      .select("status")
      .where("id", "=", payment.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, "expired");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), []);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), [
      { reason: "late_confirmation_window_passed", report: "payment.succeeded" },
    ]);
  });
});
