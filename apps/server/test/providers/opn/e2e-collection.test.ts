/**
 * Live collection through Opn Payments, end to end against the local Opn simulator (CONTRACT 15):
 * a live PromptPay payment becomes an Opn charge whose QR image the merchant and the hosted page
 * show; Opn's webhook reaches `/providers/opn/confirmations/{OPN_CALLBACK_TOKEN}`; the charge is
 * retrieved and checked before the payment succeeds, once, with the sandbox's ledger posting and
 * events. Forged, re-sent and lost webhooks, a failed and an expired charge and a charge paid
 * after the payment expired are the other paths.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { reconcileCollectionsOnce } from "../../../src/lifecycle/collections.ts";
import { expireDuePayments } from "../../../src/lifecycle/payments.ts";
import { assertLedgerConsistent } from "../../helpers/ledger.ts";
import { anomaliesOf, createPayment, eventTypes, ledgerKinds } from "../../helpers/lifecycle.ts";
import { type LiveOpn, startLiveOpn } from "../../helpers/opn/live.ts";
import type { SimCharge } from "../../helpers/opn/simulator.ts";

let live: LiveOpn;

before(async () => {
  live = await startLiveOpn();
});
afterEach(async () => {
  await assertLedgerConsistent(live.svc.deps.db);
});
after(async () => {
  await live?.close();
});

/** 500.00 THB (50,000 satang), above Opn's PromptPay minimum of 20 THB. */
async function newPayment(overrides: Record<string, unknown> = {}) {
  const payment = await createPayment(live.svc, live.merchant, { amount: "50000.00", ...overrides });
  const charge = [...live.sim.charges.values()].find((c) => c.metadata.satang_payment_id === payment.id);
  assert.ok(charge, "Opn has a charge for the payment");
  return { payment, charge: charge as SimCharge };
}

async function statusOf(id: string): Promise<string> {
  const res = await live.svc.request("GET", `/api/v1/payments/${id}`, undefined, {
    credentials: live.merchant,
  });
  return res.body.data.status;
}

describe("a live PromptPay payment through Opn", () => {
  it("is an Opn charge of its amount in satang, showing Opn's QR image (the hosted page: test/payments/routing.test.ts)", async () => {
    const { payment, charge } = await newPayment();
    assert.equal(payment.status, "requires_action");
    assert.equal(charge.amount, 50_000);
    assert.equal(charge.currency.toLowerCase(), "thb");
    const image = (charge.source as { scannable_code: { image: { download_uri: string } } }).scannable_code
      .image.download_uri;
    assert.equal(payment.nextAction.qrImageUrl, image);
  });

  it("succeeds on Opn's webhook only after the charge is retrieved, with the ledger posting and events", async () => {
    const { payment, charge } = await newPayment();
    const retrievesBefore = live.sim.requests.filter(
      (r) => r.method === "GET" && r.path === `/charges/${charge.id}`,
    );
    const webhook = await live.sim.pay(charge.id);
    assert.equal(webhook.delivered, true);
    const retrieves = live.sim.requests.filter(
      (r) => r.method === "GET" && r.path === `/charges/${charge.id}`,
    );
    assert.ok(retrieves.length > retrievesBefore.length, "the charge was retrieved from Opn");
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.received"]);
  });

  it("expires the charge at Opn when the payment is canceled, so the customer can no longer pay it", async () => {
    const { payment, charge } = await newPayment();
    const canceled = await live.svc.request("POST", `/api/v1/payments/${payment.id}/cancel`, undefined, {
      credentials: live.merchant,
    });
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.equal(canceled.body.data.status, "canceled");
    assert.ok(
      live.sim.requests.some((r) => r.method === "POST" && r.path === `/charges/${charge.id}/expire`),
      "Opn was asked to expire the charge",
    );
    assert.equal(live.sim.charges.get(charge.id)?.status, "expired");
    assert.throws(() => live.sim.pay(charge.id), /expired/, "Opn takes no payment for it");
  });

  it("still cancels when Opn does not expire the charge", async () => {
    const { payment, charge } = await newPayment();
    live.sim.failNext({ method: "POST", path: `/charges/${charge.id}/expire`, status: 503 });
    const canceled = await live.svc.request("POST", `/api/v1/payments/${payment.id}/cancel`, undefined, {
      credentials: live.merchant,
    });
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    assert.equal(canceled.body.data.status, "canceled");
    assert.equal(live.sim.charges.get(charge.id)?.status, "pending");
  });

  it("credits once however often the webhook is sent", async () => {
    const { payment, charge } = await newPayment();
    const webhook = await live.sim.pay(charge.id);
    await live.sim.resend(webhook.eventId);
    await live.sim.resend(webhook.eventId);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.received"]);
  });

  it("credits nothing on a forged webhook that says an unpaid charge was paid", async () => {
    const { payment, charge } = await newPayment();
    const forged = live.sim.webhookFor({ ...structuredClone(charge), status: "successful", paid: true });
    const res = await live.svc.app.inject({
      method: "POST",
      url: new URL(live.sim.webhookUrl as string).pathname,
      headers: forged.headers,
      payload: forged.rawBody,
    });
    assert.ok(res.statusCode < 500, res.body);
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), []);
  });

  it("finds a payment whose webhook was lost with the reconciler", async () => {
    const { payment, charge } = await newPayment();
    live.sim.loseWebhooks = true;
    try {
      await live.sim.pay(charge.id);
    } finally {
      live.sim.loseWebhooks = false;
    }
    assert.equal(await statusOf(payment.id), "requires_action");
    live.svc.clock.advance(2 * 60_000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
  });

  it("fails the payment when Opn shows its charge failed, once, with no ledger posting", async () => {
    const { payment, charge } = await newPayment();
    const webhook = await live.sim.fail(charge.id, "payment_rejected");
    await live.sim.resend(webhook.eventId);
    assert.equal(await statusOf(payment.id), "payment_failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), []);
    const failed = (await eventTypes(live.svc.deps.db, payment.id)).filter((t) => t === "payment.failed");
    assert.equal(failed.length, 1);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), []);
  });

  it("leaves the payment to its own expiry when Opn's charge expires unpaid", async () => {
    const { payment, charge } = await newPayment();
    await live.sim.expire(charge.id);
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, payment.id), []);
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), []);
  });

  it("credits a charge paid after the payment expired, as the late confirmation", async () => {
    const { payment, charge } = await newPayment({ expiresInMinutes: 5 });
    live.svc.clock.advance(6 * 60_000);
    await expireDuePayments(live.svc.deps);
    assert.equal(await statusOf(payment.id), "expired");
    await live.sim.payLate(charge.id);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, payment.id), ["payment_succeeded"]);
  });
});
