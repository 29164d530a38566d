/**
 * The provider layer: the sandbox provider's signed callbacks over HTTP
 * (POST /providers/sandbox/callbacks), their idempotency, signature checks, and the provider
 * interface's other operations.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { promptPayPayload, promptPayProxyOf } from "../../src/payments/qr.ts";
import type { IncomingCallback } from "../../src/providers/provider.ts";
import { SimulatedBank } from "../../src/providers/simulated/bank.ts";
import { createSimulatedConnector } from "../../src/providers/simulated/connector.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import {
  anomaliesOf,
  createPayment,
  createWithdraw,
  eventTypes,
  ledgerKinds,
  simulateWithdrawRequest,
} from "../helpers/lifecycle.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

let svc: TestService;
let merchant: Credentials;

before(async () => {
  svc = await startService();
  merchant = await fundedMerchant(svc, {}, 1_000_000n);
});
afterEach(async () => {
  await assertLedgerConsistent(svc.deps.db);
});
after(async () => {
  await svc.close();
});

async function deliver(callback: IncomingCallback) {
  const raw = await svc.app.inject({
    method: "POST",
    url: "/providers/sandbox/callbacks",
    headers: callback.headers as Record<string, string>,
    payload: callback.rawBody,
  });
  return { status: raw.statusCode, body: raw.json() };
}

const bank = () => svc.deps.simulator as SimulatedBank;

async function paymentStatus(id: string) {
  return svc.deps.db
    .selectFrom("payments")
    .select(["status", "confirmed_at", "captured_at"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

describe("the sandbox callback endpoint", () => {
  it("applies a signed payment callback", async () => {
    const payment = await createPayment(svc, merchant);
    const callback = await bank().signCallback("payment.succeeded", { paymentId: payment.id }, "cb-apply-1");
    const res = await deliver(callback);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      success: true,
      data: { callbackId: "cb-apply-1", duplicate: false, result: "applied", reason: null },
    });
    assert.equal((await paymentStatus(payment.id)).status, "succeeded");
  });

  it("changes nothing the second time the same callback arrives, and answers with the first result", async () => {
    const payment = await createPayment(svc, merchant);
    const callback = await bank().signCallback("payment.succeeded", { paymentId: payment.id }, "cb-twice-1");
    assert.equal((await deliver(callback)).body.data.duplicate, false);
    svc.clock.advance(60_000);
    const again = await deliver(await bank().signBody(callback.rawBody));
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data, {
      callbackId: "cb-twice-1",
      duplicate: true,
      result: "applied",
      reason: null,
    });
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.received"]);
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded"]);
  });

  it("applies one of two identical callbacks arriving at once", async () => {
    const payment = await createPayment(svc, merchant);
    const callback = await bank().signCallback("payment.succeeded", { paymentId: payment.id }, "cb-race-1");
    const results = await Promise.all([deliver(callback), deliver(callback), deliver(callback)]);
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200],
    );
    assert.equal(results.filter((r) => r.body.data.duplicate === false).length, 1);
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.received"]);
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded"]);
  });

  it("remembers a refused callback: its repeat is a duplicate with the same refusal and no second anomaly", async () => {
    const payment = await createPayment(svc, merchant);
    await svc.request("POST", `/api/v1/payments/${payment.id}/cancel`, undefined, { credentials: merchant });
    const callback = await bank().signCallback(
      "payment.succeeded",
      { paymentId: payment.id },
      "cb-refused-1",
    );
    const first = await deliver(callback);
    assert.equal(first.status, 200, "a refused callback was still received; the provider must not retry it");
    assert.deepEqual(first.body.data, {
      callbackId: "cb-refused-1",
      duplicate: false,
      result: "refused",
      reason: "payment_canceled",
    });
    const second = await deliver(callback);
    assert.deepEqual(second.body.data, { ...first.body.data, duplicate: true });
    assert.equal((await anomaliesOf(svc.deps.db, payment.id)).length, 1);
  });

  it("records processing with confirmedAt, then success keeps confirmedAt and sets capturedAt", async () => {
    const payment = await createPayment(svc, merchant);
    await deliver(await bank().signCallback("payment.processing", { paymentId: payment.id }));
    const confirmedAt = svc.clock.now();
    const processing = await paymentStatus(payment.id);
    assert.equal(processing.status, "processing");
    assert.deepEqual(processing.confirmed_at, confirmedAt);
    assert.equal(processing.captured_at, null);
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), [], "CONTRACT 12 has no processing event");

    svc.clock.advance(30_000);
    await deliver(await bank().signCallback("payment.succeeded", { paymentId: payment.id }));
    const succeeded = await paymentStatus(payment.id);
    assert.equal(succeeded.status, "succeeded");
    assert.deepEqual(succeeded.confirmed_at, confirmedAt);
    assert.deepEqual(succeeded.captured_at, svc.clock.now());
  });

  it("applies a payout callback to a processing withdraw", async () => {
    const withdraw = await createWithdraw(svc, merchant);
    await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
    const res = await deliver(await bank().signCallback("payout.paid", { payoutKey: withdraw.id }));
    assert.equal(res.body.data.result, "applied");
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
  });

  it("refuses a callback for an unknown payment or payout and records it for the operator", async () => {
    const missing = "00000000-0000-4000-8000-00000000abcd";
    const payment = await deliver(await bank().signCallback("payment.succeeded", { paymentId: missing }));
    assert.deepEqual([payment.status, payment.body.data.reason], [200, "unknown_payment"]);
    const payout = await deliver(await bank().signCallback("payout.paid", { payoutKey: "not-one-of-ours" }));
    assert.deepEqual([payout.status, payout.body.data.reason], [200, "unknown_payout"]);
    const rows = await svc.deps.db
      .selectFrom("provider_anomalies")
      .select(["merchant_id", "reason"])
      .where("subject_id", "in", [missing, "not-one-of-ours"])
      .orderBy("reason")
      .execute();
    assert.deepEqual(rows, [
      { merchant_id: null, reason: "unknown_payment" },
      { merchant_id: null, reason: "unknown_payout" },
    ]);
  });

  it("refuses a tampered body, a missing signature and a stale timestamp with 401 INVALID_CREDENTIALS", async () => {
    const payment = await createPayment(svc, merchant);
    const callback = await bank().signCallback("payment.succeeded", { paymentId: payment.id });
    const tampered = await deliver({ ...callback, rawBody: callback.rawBody.replace("succeeded", "failed") });
    const unsigned = await deliver({
      headers: { "content-type": "application/json" },
      rawBody: callback.rawBody,
    });
    const stale = new SimulatedBank({
      ...svc.deps,
      wallClock: { now: () => new Date(Date.now() - 6 * 60_000) },
    });
    const old = await deliver(await stale.signBody(callback.rawBody));
    for (const res of [tampered, unsigned, old]) {
      assert.equal(res.status, 401);
      assert.deepEqual(res.body.error, {
        code: "INVALID_CREDENTIALS",
        message: "Invalid or missing provider callback signature",
      });
    }
    assert.equal((await paymentStatus(payment.id)).status, "requires_action");
  });

  it("refuses a well-signed body of the wrong shape with 400 VALIDATION_ERROR naming the field", async () => {
    const cases: [string, string][] = [
      ["not json", "body"],
      [JSON.stringify({ id: "x", type: "payment.refunded", data: {} }), "type"],
      [JSON.stringify({ id: "has space", type: "payment.failed", data: {} }), "id"],
      [JSON.stringify({ id: "x1", type: "payment.failed", data: { paymentId: "nope" } }), "data.paymentId"],
    ];
    for (const [body, field] of cases) {
      const res = await deliver(await bank().signBody(body));
      assert.equal(res.status, 400, body);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field);
    }
  });
});

describe("the sandbox provider's other operations", () => {
  const connector = () =>
    createSimulatedConnector({
      db: svc.deps.db,
      clock: svc.deps.clock,
      wallClock: svc.deps.wallClock,
      secrets: svc.deps.secrets,
    });
  const instructInput = (paymentId: string, method: "promptpay" | "bank_transfer", amountSatang: bigint) => ({
    paymentId,
    merchantId: merchant.merchantId,
    method,
    amountSatang,
    reference: "SBX0001",
    expiresAt: new Date(Date.now() + 60_000),
  });

  it("instructs the same PromptPay QR as the payment's QR code, in process", async () => {
    const payment = await createPayment(svc, merchant, { amount: "12345.00" });
    const instruction = await connector().collection.instruct({
      ...instructInput(payment.id, "promptpay", 12345n),
      payee: { promptpayId: "0812345678", collectionAccount: null },
    });
    assert.equal(instruction.status, "instructed");
    if (instruction.status !== "instructed") return;
    assert.equal(instruction.qrPayload, payment.nextAction.qrCode.payload);
    assert.equal(instruction.qrPayload, promptPayPayload(promptPayProxyOf("0812345678")!, 12345n));
    assert.equal(instruction.providerPaymentId, `sbx_pay_${payment.id}`);
    assert.equal(instruction.qrImageUrl, null);
  });

  it("instructs a bank transfer to the collection account without a QR, and refuses one without it", async () => {
    const account = { bankCode: "014", accountNumber: "1234567890", accountName: "Shop" };
    const id = "00000000-0000-4000-8000-000000000001";
    const instruction = await connector().collection.instruct({
      ...instructInput(id, "bank_transfer", 100n),
      payee: { promptpayId: null, collectionAccount: account },
    });
    assert.deepEqual(instruction, {
      status: "instructed",
      providerPaymentId: `sbx_pay_${id}`,
      qrPayload: null,
      qrImageUrl: null,
    });
    const without = await connector().collection.instruct(instructInput(id, "bank_transfer", 100n));
    assert.equal(without.status, "unavailable");
    const noPromptPay = await connector().collection.instruct(instructInput(id, "promptpay", 100n));
    assert.equal(noPromptPay.status, "unavailable");
  });

  it("books a payout once per key and answers lookups from its book", async () => {
    const key = "00000000-0000-4000-8000-0000000000aa";
    assert.deepEqual(await bank().getPayout(key), { status: "not_found" });
    const input = {
      idempotencyKey: key,
      merchantId: merchant.merchantId,
      amountSatang: 500n,
      destinationType: "bank_account" as const,
      bankCode: "004",
      accountNumber: "1234567890",
      accountName: "Somchai",
    };
    assert.deepEqual(await bank().sendPayout(input), {
      status: "accepted",
      providerReference: `sbx_po_${key}`,
    });
    assert.deepEqual(await bank().sendPayout(input), {
      status: "accepted",
      providerReference: `sbx_po_${key}`,
    });
    const rows = await svc.deps.db
      .selectFrom("sandbox_payouts")
      .selectAll()
      .where("payout_key", "=", key)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.send_count, 2);
    await bank().decidePayout(key, "paid", 500n);
    assert.deepEqual(await bank().getPayout(key), { status: "paid", providerReference: `sbx_po_${key}` });
  });
});
