/**
 * End to end through the public API: sandbox payments and withdraws move through their
 * lifecycles (the sandbox simulate and clock routes), every transition's event reaches a local
 * receiver, and each delivery verifies with the `standardwebhooks` library and carries the
 * record as the API shows it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Deps } from "../../src/deps.ts";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { type Receiver, startReceiver } from "../helpers/webhooks.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
let target: Receiver;
let worker: Deps;
let counter = 0;

before(async () => {
  svc = await startService();
  worker = svc.depsWith({ wallClock: new ManualClock(Date.now()) });
  target = await startReceiver({ clock: worker.wallClock });
});
after(async () => {
  await target?.close();
  await svc.close();
});

function paymentBody(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    amount: "1000.00",
    referenceId: `e2e-${process.pid}-${counter}`,
    paymentMethod: "promptpay",
    customerBankAccountName: "Somchai Jaidee",
    customerBankAccountNumber: String(5_000_000_000 + counter),
    customerBankCode: "014",
    ...overrides,
  };
}

/** Runs the delivery worker and answers the verified deliveries that arrived since `from`. */
async function deliveredSince(from: number) {
  await deliverDueWebhooks(worker);
  const fresh = target.received.slice(from);
  for (const delivery of fresh) assert.equal(delivery.verifyError, undefined, delivery.verifyError);
  return fresh.map((delivery) => delivery.payload!);
}

describe("events of real transitions reach a verifying receiver", () => {
  it("payment.received, payment.failed, payment.canceled, payment.expired and a late payment.received", async () => {
    const credentials = await svc.newMerchant();
    const endpoint = await svc.request(
      "POST",
      "/api/v1/webhook-endpoints",
      { url: target.url, events: ["*"] },
      { credentials },
    );
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    target.secrets.push(endpoint.body.data.secret);
    const request = (method: string, path: string, body?: unknown) =>
      svc.request(method, path, body, { credentials });
    const create = async (overrides: Record<string, unknown> = {}) => {
      const res = await request("POST", "/api/v1/payments", paymentBody(overrides));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    };

    const paid = await create();
    let start = target.received.length;
    const simulated = await request("POST", `/api/v1/sandbox/payments/${paid}/simulate`, {
      outcome: "succeeded",
    });
    assert.equal(simulated.status, 200, JSON.stringify(simulated.body));
    let events = await deliveredSince(start);
    assert.deepEqual(
      events.map((e) => e.type),
      ["payment.received"],
    );
    const current = (await request("GET", `/api/v1/payments/${paid}`)).body.data;
    assert.deepEqual(events[0]!.data.object, current, "data.object is the full record as the API shows it");

    const failed = await create();
    start = target.received.length;
    await request("POST", `/api/v1/sandbox/payments/${failed}/simulate`, { outcome: "failed" });
    events = await deliveredSince(start);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object.id, e.data.object.status]),
      [["payment.failed", failed, "payment_failed"]],
    );

    const canceled = await create();
    start = target.received.length;
    assert.equal((await request("POST", `/api/v1/payments/${canceled}/cancel`)).status, 200);
    events = await deliveredSince(start);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object.id, e.data.object.status]),
      [["payment.canceled", canceled, "canceled"]],
    );

    const late = await create({ expiresInMinutes: 5 });
    start = target.received.length;
    const advanced = await request("POST", "/api/v1/sandbox/clock/advance", { seconds: 600 });
    assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
    events = await deliveredSince(start);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object.id, e.data.object.status]),
      [["payment.expired", late, "expired"]],
    );
    start = target.received.length;
    const confirmed = await request("POST", `/api/v1/sandbox/payments/${late}/simulate`, {
      outcome: "succeeded",
    });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    events = await deliveredSince(start);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object.id, e.data.object.status]),
      [["payment.received", late, "succeeded"]],
    );
  });

  it("withdraw.processing, withdraw.paid, withdraw.failed and withdraw.canceled", async () => {
    const credentials = await fundedMerchant(svc);
    const endpoint = await svc.request(
      "POST",
      "/api/v1/webhook-endpoints",
      {
        url: target.url,
        events: ["withdraw.processing", "withdraw.paid", "withdraw.failed", "withdraw.canceled"],
      },
      { credentials },
    );
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    target.secrets.push(endpoint.body.data.secret);
    const request = (method: string, path: string, body?: unknown) =>
      svc.request(method, path, body, { credentials });
    const create = async () => {
      const res = await request("POST", "/api/v1/withdraws", withdrawBody());
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data.id as string;
    };

    const paid = await create();
    let start = target.received.length;
    assert.equal(
      (await request("POST", `/api/v1/sandbox/withdraws/${paid}/simulate`, { outcome: "processing" })).status,
      200,
    );
    assert.equal(
      (await request("POST", `/api/v1/sandbox/withdraws/${paid}/simulate`, { outcome: "paid" })).status,
      200,
    );
    // Deliveries run concurrently and events arrive in any order (CONTRACT 12): compare sorted.
    let events = await deliveredSince(start);
    assert.deepEqual(events.map((e) => [e.type, e.data.object.id, e.data.object.status]).sort(), [
      ["withdraw.paid", paid, "paid"],
      ["withdraw.processing", paid, "processing"],
    ]);
    const current = (await request("GET", `/api/v1/withdraws/${paid}`)).body.data;
    const paidEvent = events.find((e) => e.type === "withdraw.paid")!;
    assert.deepEqual(paidEvent.data.object, current, "data.object is the full record as the API shows it");

    const failed = await create();
    start = target.received.length;
    assert.equal(
      (await request("POST", `/api/v1/sandbox/withdraws/${failed}/simulate`, { outcome: "failed" })).status,
      200,
    );
    events = await deliveredSince(start);
    assert.deepEqual(
      events.map((e) => e.type).filter((type) => type === "withdraw.failed"),
      ["withdraw.failed"],
    );

    const canceled = await create();
    start = target.received.length;
    assert.equal((await request("POST", `/api/v1/withdraws/${canceled}/cancel`)).status, 200);
    events = await deliveredSince(start);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.object.id, e.data.object.status]),
      [["withdraw.canceled", canceled, "canceled"]],
    );
  });
});
