/**
 * The SDK against a real server over HTTP: every resource method, with the records typed as the
 * server sends them.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { fundWallet } from "../../../apps/server/test/helpers/ledger.ts";
import {
  fromSatangString,
  PAYMENT_FIELDS,
  type Payment,
  Satang,
  toSatangString,
  ValidationError,
  WITHDRAW_FIELDS,
} from "../src/index.ts";
import { customer, type ListeningService, listeningService, ref } from "./helpers/server.ts";

let service: ListeningService;
let satang: Satang;

before(async () => {
  service = await listeningService();
  satang = service.client();
});
after(async () => {
  await service?.close();
});

const sortedKeys = (record: object) => Object.keys(record).sort();

function promptpay(overrides: Partial<Parameters<Satang["payments"]["create"]>[0]> = {}) {
  return satang.payments.create({
    amount: "10000.00",
    referenceId: ref("pay"),
    paymentMethod: "promptpay",
    ...customer(),
    ...overrides,
  });
}

describe("payments", () => {
  it("creates a PromptPay payment with every field of the record and a QR code to show", async () => {
    const payment = await promptpay({ description: "order 1001", metadata: { orderId: "1001" } });
    // The record's fields, and the two flags of the create's answer (test/create-outcome.test.ts).
    assert.deepEqual(sortedKeys(payment), [...PAYMENT_FIELDS, "replayed", "reused"].sort());
    assert.equal(payment.amount, "10000.00");
    assert.equal(payment.status, "requires_action");
    assert.equal(payment.metadata?.orderId, "1001");
    assert.equal(payment.nextAction?.type, "use_payment_app");
    if (payment.nextAction?.type === "use_payment_app") {
      assert.match(payment.nextAction.qrCode?.payload ?? "", /^000201/);
      assert.ok(payment.nextAction.paymentAppUrl);
    }
  });

  it("returns the first payment when a create is repeated with the caller's idempotency key", async () => {
    const idempotencyKey = randomUUID();
    const referenceId = ref("idem");
    const account = customer();
    const first = await promptpay({ referenceId, idempotencyKey, ...account });
    const again = await promptpay({ referenceId, idempotencyKey, ...account });
    assert.equal(again.id, first.id);
  });

  it("retrieves by id and by reference, with responseMode shaping only nextAction", async () => {
    const created = await promptpay({ referenceId: ref("by.ref_x") });
    const byId = await satang.payments.retrieve(created.id);
    assert.equal(byId.id, created.id);
    const byReference = await satang.payments.retrieveByReference(created.referenceId, {
      responseMode: "payment_link",
    });
    assert.equal(byReference.id, created.id);
    assert.equal(byReference.nextAction?.type, "use_payment_app");
    if (byReference.nextAction?.type === "use_payment_app")
      assert.equal(byReference.nextAction.qrCode, undefined);
  });

  it("shows bank transfer instructions for a bank transfer", async () => {
    const payment = await satang.payments.create({
      amount: "50000.00",
      referenceId: ref("bt"),
      paymentMethod: "bank_transfer",
      ...customer(),
    });
    assert.equal(payment.nextAction?.type, "display_bank_transfer_instructions");
    if (payment.nextAction?.type === "display_bank_transfer_instructions") {
      assert.equal(payment.nextAction.bankTransferInstructions.amount, "500.00");
    }
  });

  it("cancels a payment once; a second cancel is a ValidationError", async () => {
    const payment = await promptpay();
    const canceled = await satang.payments.cancel(payment.id);
    assert.equal(canceled.status, "canceled");
    assert.ok(canceled.canceledAt);
    assert.equal(canceled.nextAction, null);
    await assert.rejects(satang.payments.cancel(payment.id), ValidationError);
  });

  it("lists with every filter: status, method, response mode, dates, sort and paging", async () => {
    const shop = await service.svc.newMerchant();
    const client = service.client({}, shop);
    const from = new Date(Date.now() - 60_000);
    const made: Payment[] = [];
    for (const amount of ["300.00", "100.00", "200.00"]) {
      made.push(
        await client.payments.create({
          amount,
          referenceId: ref("ls"),
          paymentMethod: "promptpay",
          ...customer(),
        }),
      );
    }
    made.push(
      await client.payments.create({
        amount: "400.00",
        referenceId: ref("ls"),
        paymentMethod: "bank_transfer",
        ...customer(),
      }),
    );
    await client.payments.cancel(made[0]!.id);

    const all = await client.payments.list();
    assert.equal(all.total, 4);
    assert.deepEqual(Object.keys(all).sort(), ["data", "limit", "page", "total", "totalPages"]);

    const promptpayOpen = await client.payments.list({
      status: "requires_action",
      paymentMethod: "promptpay",
      responseMode: "payment_link",
      dateFrom: from,
      dateTo: new Date(Date.now() + 60_000).toISOString(),
      sortBy: "amount",
      sortOrder: "asc",
      page: 1,
      limit: 1,
    });
    assert.equal(promptpayOpen.total, 2);
    assert.equal(promptpayOpen.totalPages, 2);
    assert.deepEqual(
      promptpayOpen.data.map((p) => p.amount),
      ["100.00"],
    );
    const first = promptpayOpen.data[0]!;
    if (first.nextAction?.type === "use_payment_app") assert.equal(first.nextAction.qrCode, undefined);

    const empty = await client.payments.list({ dateTo: from });
    assert.equal(empty.total, 0);

    const seen: string[] = [];
    for await (const payment of client.payments.listAll({ limit: 1, sortBy: "amount", sortOrder: "desc" })) {
      seen.push(payment.amount);
    }
    assert.deepEqual(seen, ["400.00", "300.00", "200.00", "100.00"]);
  });

  it("walks a filtered list whole while its records leave the filter and new ones arrive", async () => {
    const shop = await service.svc.newMerchant({});
    const client = service.client({}, shop);
    // Each payment a millisecond of its own, as on a running clock (the test's clock stands still).
    const create = async (amount: string) => {
      service.svc.clock.advance(1);
      const params = { amount, referenceId: ref("walk"), paymentMethod: "promptpay" as const, ...customer() };
      return (await client.payments.create(params)).id;
    };
    const made: string[] = [];
    for (let i = 0; i < 5; i += 1) made.push(await create(`${100 + i}.00`));
    const seen: string[] = [];
    for await (const payment of client.payments.listAll({ status: "requires_action", limit: 2 })) {
      seen.push(payment.id);
      // Each read payment leaves the filter, and a newer one joins it after the first: a walk by
      // page number skipped what moved up a page.
      await client.payments.cancel(payment.id);
      if (seen.length === 1) await create("999.00");
    }
    assert.deepEqual(seen, [...made].reverse());
  });

  it("signs with v1 (body only) when asked, and the server still accepts it", async () => {
    const v1 = service.client({ signatureVersion: "v1" });
    const payment = await v1.payments.create({
      amount: "700.00",
      referenceId: ref("v1"),
      paymentMethod: "promptpay",
      ...customer(),
    });
    const found = await v1.payments.list({ status: "requires_action", limit: 100 });
    assert.ok(found.data.some((p) => p.id === payment.id));
    assert.equal((await v1.payments.cancel(payment.id)).status, "canceled");
  });
});

describe("balances past what a JavaScript number holds", () => {
  it("throws a RangeError from retrieve() rather than answer a figure off by a satang, and retrieveExact() reads it", async () => {
    const shop = await service.svc.newMerchant();
    const client = service.client({}, shop);
    // 2^53 + 1: the nearest number is 2^53, a satang off.
    const figure = 2n ** 53n + 1n;
    await fundWallet(service.svc.deps, shop.merchantId, figure);
    await assert.rejects(client.balance.retrieve(), (error: unknown) => {
      assert.ok(error instanceof RangeError);
      assert.match(error.message, /walletBalance \(9007199254740993 satang\).*retrieveExact/);
      return true;
    });
    const exact = await client.balance.retrieveExact();
    assert.deepEqual(exact, {
      walletBalance: figure,
      settlementBalance: 0n,
      currency: "THB",
      status: "active",
    });
  });

  it("reads the figures of the answer as JSON does: the envelope's data, the last of a repeated member", async () => {
    const answering = (text: string) =>
      new Satang({
        apiKey: "k",
        apiSecret: "s",
        baseUrl: "http://satang.test",
        maxRetries: 0,
        fetch: async () =>
          new Response(text, { status: 200, headers: { "content-type": "application/json" } }),
      });
    const rest = '"currency":"THB","status":"active"';
    const cases: Array<[string, bigint, bigint]> = [
      [
        `{"success":true,"data":{"walletBalance":9007199254740993,"settlementBalance":0,${rest}}}`,
        9007199254740993n,
        0n,
      ],
      [
        `{"previous":{"walletBalance":1},"success":true,"data":{"settlementBalance":5,"walletBalance":-9007199254740993,${rest}}}`,
        -9007199254740993n,
        5n,
      ],
      [
        `{"success":true,"data":{"walletBalance":1,"walletBalance" : 12345678901234567890 ,"settlementBalance":2,${rest}}}`,
        12345678901234567890n,
        2n,
      ],
    ];
    for (const [text, wallet, settlement] of cases) {
      const exact = await answering(text).balance.retrieveExact();
      assert.equal(exact.walletBalance, wallet, text);
      assert.equal(exact.settlementBalance, settlement, text);
    }
    // A string that holds digits, quotes and colons is left as it is.
    const odd = answering(
      `{"success":true,"data":{"walletBalance":12345678901234567,"settlementBalance":0,"currency":"THB","status":"a:12345678901234567}, \\"x\\":98765432109876543,"}}`,
    );
    assert.equal((await odd.balance.retrieveExact()).walletBalance, 12345678901234567n);
    const fraction = answering(`{"success":true,"data":{"walletBalance":2.5,"settlementBalance":0,${rest}}}`);
    await assert.rejects(fraction.balance.retrieve(), RangeError);
    await assert.rejects(fraction.balance.retrieveExact(), RangeError);
  });

  it("answers numbers up to 2^53 - 1 satang, and the same figures as bigints from retrieveExact()", async () => {
    const shop = await service.svc.newMerchant();
    const client = service.client({}, shop);
    await fundWallet(service.svc.deps, shop.merchantId, BigInt(Number.MAX_SAFE_INTEGER));
    assert.equal((await client.balance.retrieve()).walletBalance, Number.MAX_SAFE_INTEGER);
    assert.equal((await client.balance.retrieveExact()).walletBalance, BigInt(Number.MAX_SAFE_INTEGER));
  });
});

describe("withdraws and balance", () => {
  let shop: Awaited<ReturnType<ListeningService["svc"]["newMerchant"]>>;
  let client: Satang;
  before(async () => {
    shop = await service.svc.newMerchant();
    client = service.client({}, shop);
    await fundWallet(service.svc.deps, shop.merchantId, 1_000_000n);
  });

  const payout = (amount: string, overrides: Record<string, string> = {}) =>
    client.withdraws.create({
      amount,
      referenceId: ref("wd"),
      destinationType: "bank_account",
      customerBankAccountName: `Payee ${randomUUID().slice(0, 12)}`,
      customerBankAccountNumber: "123-456-7890",
      customerBankCode: "014",
      ...overrides,
    });

  it("creates, retrieves, lists and cancels withdraws; the balance follows the holds", async () => {
    const before = await client.balance.retrieve();
    assert.deepEqual(before, {
      walletBalance: 1_000_000,
      settlementBalance: 0,
      currency: "THB",
      status: "active",
    });

    const withdraw = await payout(toSatangString(25_000n));
    assert.deepEqual(sortedKeys(withdraw), [...WITHDRAW_FIELDS, "replayed"].sort());
    assert.equal(withdraw.status, "pending");
    assert.equal(withdraw.bankAccountNumber, "******7890");
    assert.equal((await client.withdraws.retrieve(withdraw.id)).id, withdraw.id);
    assert.equal((await client.withdraws.retrieveByReference(withdraw.referenceId)).id, withdraw.id);

    const held = await client.balance.retrieve();
    assert.equal(BigInt(held.walletBalance), 1_000_000n - fromSatangString(withdraw.amount));

    const second = await payout("5000.00");
    const pending = await client.withdraws.list({
      status: "pending",
      destinationType: "bank_account",
      dateFrom: new Date(Date.now() - 60_000),
      sortBy: "amount",
      sortOrder: "asc",
      limit: 10,
    });
    assert.deepEqual(
      pending.data.map((w) => w.id),
      [second.id, withdraw.id],
    );

    const canceled = await client.withdraws.cancel(withdraw.id);
    assert.equal(canceled.status, "canceled");
    assert.ok(canceled.canceledAt);
    const after = await client.balance.retrieve();
    assert.equal(after.walletBalance, 1_000_000 - 5_000);

    const every: string[] = [];
    for await (const w of client.withdraws.listAll({ limit: 1 })) every.push(w.id);
    assert.deepEqual(every.sort(), [withdraw.id, second.id].sort());
  });
});

describe("sandbox, events and webhook endpoints", () => {
  it("simulates a payment, settles it, reads its event and moves the test clock", async () => {
    const shop = await service.svc.newMerchant({ settlementDelayHours: 0 });
    const client = service.client({}, shop);
    const payment = await client.payments.create({
      amount: "12345.00",
      referenceId: ref("sim"),
      paymentMethod: "promptpay",
      ...customer(),
    });
    const paid = await client.sandbox.simulatePayment(payment.id, "succeeded");
    assert.equal(paid.status, "succeeded");

    const events = await client.events.list({ type: "payment.received" });
    assert.equal(events.total, 1);
    const event = events.data[0]!;
    assert.equal(event.type, "payment.received");
    if (event.type === "payment.received") assert.equal(event.data.object.id, payment.id);
    const detail = await client.events.retrieve(event.id);
    assert.deepEqual(detail.deliveries, []);

    const settled = await client.sandbox.runSettlements();
    assert.equal(settled.count, 1);
    assert.equal(settled.amount, "12345.00");
    assert.equal((await client.balance.retrieve()).walletBalance, 12_345);

    const before = await client.sandbox.clock();
    const moved = await client.sandbox.advanceClock(3600);
    assert.equal(Date.parse(moved.now) - Date.parse(before.now) >= 3_600_000, true);
  });

  it("creates, lists, rotates and deletes a webhook endpoint, and redelivers an event to it", async () => {
    const shop = await service.svc.newMerchant();
    const client = service.client({}, shop);
    const endpoint = await client.webhookEndpoints.create({
      url: "http://127.0.0.1:9/hooks",
      events: ["payment.failed"],
      description: "sdk test",
    });
    assert.match(endpoint.secret, /^whsec_/);
    assert.deepEqual(endpoint.events, ["payment.failed"]);
    const listed = await client.webhookEndpoints.list({ limit: 10 });
    assert.deepEqual(
      listed.data.map((e) => e.id),
      [endpoint.id],
    );
    assert.equal("secret" in listed.data[0]!, false);
    assert.equal((await client.webhookEndpoints.retrieve(endpoint.id)).url, endpoint.url);

    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    assert.notEqual(rotated.secret, endpoint.secret);
    assert.ok(rotated.previousSecretExpiresAt);

    const payment = await client.payments.create({
      amount: "100.00",
      referenceId: ref("fail"),
      paymentMethod: "promptpay",
      ...customer(),
    });
    await client.sandbox.simulatePayment(payment.id, "failed");
    const [failed] = (await client.events.list({ type: "payment.failed" })).data;
    assert.ok(failed);
    const redelivery = await client.events.redeliver(failed.id, { endpointId: endpoint.id });
    assert.equal(redelivery.eventId, failed.id);
    assert.equal(redelivery.deliveries.length, 1);
    assert.equal((await client.events.redeliver(failed.id)).deliveries.length, 1);

    const deleted = await client.webhookEndpoints.delete(endpoint.id);
    assert.equal(deleted.id, endpoint.id);
    assert.equal((await client.webhookEndpoints.list()).total, 0);
  });
});
