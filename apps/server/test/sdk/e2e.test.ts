/**
 * A merchant's whole integration, written with the SDK the way the README shows it: register a
 * webhook endpoint, take a payment, receive and verify its event, reconcile, settle, pay out,
 * and watch an unpaid payment expire on the test clock. The receiver is a plain HTTP server
 * that checks every delivery with `Satang.webhooks.verify`.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fromSatangString, type Satang, Satang as SatangClient, type SatangEvent } from "@satang/sdk";
import { deliverDueWebhooks } from "../../src/events/delivery.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";

interface Delivery {
  event: SatangEvent | undefined;
  webhookId: string;
  error: string | undefined;
}

let svc: TestService;
let sdk: Satang;
let receiver: Server;
let receiverUrl = "";
let secret = "";
const deliveries: Delivery[] = [];

before(async () => {
  svc = await startService();
  const merchant = await svc.newMerchant({ settlementDelayHours: 0 });
  sdk = svc.sdkFor(merchant);
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const webhookId = String(request.headers["webhook-id"]);
      try {
        deliveries.push({
          event: SatangClient.webhooks.verify(body, request.headers, secret),
          webhookId,
          error: undefined,
        });
        response.writeHead(200).end();
      } catch (error) {
        deliveries.push({ event: undefined, webhookId, error: (error as Error).message });
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/satang`;
});
after(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await svc?.close();
});

/** Runs the delivery worker once and returns what the receiver got from it. */
async function deliver(): Promise<Delivery[]> {
  const seen = deliveries.length;
  await deliverDueWebhooks(svc.deps);
  return deliveries.slice(seen);
}

const customer = {
  customerBankAccountName: "Somchai Jaidee",
  customerBankAccountNumber: "0987654321",
  customerBankCode: "014",
};

describe("an integration written with the SDK", () => {
  it("registers its webhook endpoint for every event", async () => {
    const endpoint = await sdk.webhookEndpoints.create({ url: receiverUrl, events: ["*"] });
    secret = endpoint.secret;
    assert.deepEqual(endpoint.events, ["*"]);
  });

  it("takes a payment, receives a verified payment.received, and reconciles it by reference", async () => {
    const payment = await sdk.payments.create({
      amount: "25000.00",
      referenceId: "order-5001",
      merchantReference: "INV-5001",
      paymentMethod: "promptpay",
      ...customer,
    });
    assert.equal(payment.status, "requires_action");
    assert.ok(payment.nextAction?.type === "use_payment_app" && payment.nextAction.qrCode?.payload);

    await sdk.sandbox.simulatePayment(payment.id, "succeeded");
    const [delivery, ...rest] = await deliver();
    assert.deepEqual(rest, []);
    assert.equal(delivery?.error, undefined);
    const event = delivery!.event!;
    assert.equal(event.type, "payment.received");
    assert.equal(delivery!.webhookId, event.id, "webhook-id is the event id");
    if (event.type !== "payment.received") return;
    assert.equal(event.data.object.id, payment.id);

    // Reconcile: the event says succeeded; the API agrees, found by the merchant's reference.
    const stored = await sdk.payments.retrieveByReference("order-5001");
    assert.equal(stored.status, "succeeded");
    assert.equal(stored.updatedAt, event.data.object.updatedAt);
    const succeeded = await sdk.payments.list({ status: "succeeded" });
    assert.deepEqual(
      succeeded.data.map((p) => p.referenceId),
      ["order-5001"],
    );
  });

  it("settles, pays out, and receives withdraw.processing then withdraw.paid", async () => {
    const settled = await sdk.sandbox.runSettlements();
    assert.equal(settled.amount, "25000.00");
    const balance = await sdk.balance.retrieve();
    assert.equal(BigInt(balance.walletBalance), fromSatangString("25000.00"));

    const withdraw = await sdk.withdraws.create({
      amount: "20000.00",
      referenceId: "payout-7001",
      destinationType: "bank_account",
      customerBankAccountName: "Shop Owner",
      customerBankAccountNumber: "111-222-3333",
      customerBankCode: "004",
    });
    await sdk.sandbox.simulateWithdraw(withdraw.id, "processing");
    await sdk.sandbox.simulateWithdraw(withdraw.id, "paid");
    const events = await deliver();
    assert.deepEqual(events.map((d) => d.event?.type).sort(), ["withdraw.paid", "withdraw.processing"]);
    const paid = await sdk.withdraws.retrieveByReference("payout-7001");
    assert.equal(paid.status, "paid");
    assert.equal((await sdk.balance.retrieve()).walletBalance, 5_000);
  });

  it("sees an unpaid payment expire when the test clock passes its expiry", async () => {
    const payment = await sdk.payments.create({
      amount: "900.00",
      referenceId: "order-5002",
      paymentMethod: "promptpay",
      expiresInMinutes: 5,
      ...customer,
    });
    await sdk.sandbox.advanceClock(5 * 60 + 1);
    assert.equal((await sdk.payments.retrieve(payment.id)).status, "expired");
    const [delivery] = await deliver();
    assert.equal(delivery?.event?.type, "payment.expired");
  });

  it("lists the events with their delivery log, and redelivers one with the same webhook-id", async () => {
    const received = await sdk.events.list({ type: "payment.received" });
    assert.equal(received.total, 1);
    const event = received.data[0]!;
    const detail = await sdk.events.retrieve(event.id);
    assert.equal(detail.deliveries.length, 1);
    assert.equal(detail.deliveries[0]?.status, "succeeded");

    await sdk.events.redeliver(event.id);
    const [again] = await deliver();
    assert.equal(again?.webhookId, event.id);
    assert.equal(again?.event?.id, event.id);

    // The harness's business clock stands still, so events of one moment tie and are ordered
    // by id; only the expiry comes after the clock moved.
    const types: string[] = [];
    for await (const e of sdk.events.listAll({ sortOrder: "asc" })) types.push(e.type);
    assert.equal(types.at(-1), "payment.expired");
    assert.deepEqual(types.sort(), [
      "payment.expired",
      "payment.received",
      "withdraw.paid",
      "withdraw.processing",
    ]);
    await assertLedgerConsistent(svc.deps.db);
  });
});
