/**
 * What a create answered besides the record (issue 22): PromptPay reuse and idempotent replays
 * arrive as headers, and `payments.create` / `withdraws.create` carry them as typed flags, so a
 * merchant can tell "this is the payment of my new order" from "this is an earlier payment".
 * Against a real server over HTTP.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fundWallet } from "../../../apps/server/test/helpers/ledger.ts";
import {
  type CreatedPayment,
  type CreatedWithdraw,
  type FetchLike,
  PAYMENT_FIELDS,
  ResourceNotFoundError,
  WITHDRAW_FIELDS,
} from "../src/index.ts";
import { customer, type ListeningService, listeningService, ref } from "./helpers/server.ts";

let service: ListeningService;

before(async () => {
  service = await listeningService();
});
after(async () => {
  await service?.close();
});

const sortedKeys = (record: object) => Object.keys(record).sort();

describe("payments.create says how the payment came about", () => {
  it("flags a PromptPay reuse: order-3002 answers order-3001's open payment with reused true", async () => {
    const shop = await service.svc.newMerchant();
    const satang = service.client({}, shop);
    const account = customer();
    const params = { amount: "30000.00", paymentMethod: "promptpay", ...account } as const;

    const first = await satang.payments.create({ ...params, referenceId: "order-3001" });
    assert.equal(first.reused, false);
    assert.equal(first.replayed, false);

    const second: CreatedPayment = await satang.payments.create({ ...params, referenceId: "order-3002" });
    // The flag is typed: a caller can branch on it without a cast.
    const reused: boolean = second.reused;
    assert.equal(reused, true);
    assert.equal(second.replayed, false);
    assert.equal(second.id, first.id);
    assert.equal(second.referenceId, "order-3001");
    // Nothing was stored under the new order's reference.
    await assert.rejects(satang.payments.retrieveByReference("order-3002"), ResourceNotFoundError);
  });

  it("does not flag a new payment, nor a bank transfer of the same customer and amount", async () => {
    const shop = await service.svc.newMerchant();
    const satang = service.client({}, shop);
    const account = customer();
    const bankTransfer = { amount: "45000.00", paymentMethod: "bank_transfer", ...account } as const;
    const first = await satang.payments.create({ ...bankTransfer, referenceId: ref("bt") });
    const second = await satang.payments.create({ ...bankTransfer, referenceId: ref("bt") });
    assert.notEqual(second.id, first.id);
    assert.deepEqual([second.reused, second.replayed], [false, false]);
  });

  it("flags an idempotent replay with replayed true, and keeps every field of the record", async () => {
    const satang = service.client();
    const body = {
      amount: "12000.00",
      referenceId: ref("idem"),
      paymentMethod: "promptpay",
      idempotencyKey: randomUUID(),
      ...customer(),
    } as const;
    const first = await satang.payments.create(body);
    const again = await satang.payments.create(body);
    assert.equal(again.id, first.id);
    assert.deepEqual([first.replayed, first.reused], [false, false]);
    assert.deepEqual([again.replayed, again.reused], [true, false]);
    assert.deepEqual(sortedKeys(again), [...PAYMENT_FIELDS, "replayed", "reused"].sort());
    // The flags describe the answer, not the payment: a retrieve has the record alone.
    assert.deepEqual(sortedKeys(await satang.payments.retrieve(first.id)), [...PAYMENT_FIELDS].sort());
  });

  it("flags as replayed the answer of a retry whose first attempt's answer was lost", async () => {
    let attempts = 0;
    // The first attempt reaches the server, which creates the payment; its answer is lost.
    const losing: FetchLike = async (url, init) => {
      attempts += 1;
      const response = await globalThis.fetch(url, init);
      if (attempts === 1) {
        await response.arrayBuffer();
        throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
      }
      return response;
    };
    const satang = service.client({ fetch: losing, maxRetries: 1, sleep: async () => {} });
    const payment = await satang.payments.create({
      amount: "8800.00",
      referenceId: ref("lost"),
      paymentMethod: "promptpay",
      ...customer(),
    });
    assert.equal(attempts, 2);
    assert.equal(payment.replayed, true);
    assert.equal(payment.reused, false);
  });

  it("keeps reused true when the answer of a reused create was lost and the retry replays it", async () => {
    const shop = await service.svc.newMerchant();
    const account = customer();
    const params = { amount: "50000.00", paymentMethod: "promptpay", ...account } as const;
    const open = await service.client({}, shop).payments.create({ ...params, referenceId: ref("open") });
    let attempts = 0;
    const losing: FetchLike = async (url, init) => {
      attempts += 1;
      const response = await globalThis.fetch(url, init);
      if (attempts === 1) {
        await response.arrayBuffer();
        throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
      }
      return response;
    };
    const satang = service.client({ fetch: losing, maxRetries: 1, sleep: async () => {} }, shop);
    const answer = await satang.payments.create({ ...params, referenceId: ref("next") });
    assert.equal(attempts, 2);
    assert.equal(answer.id, open.id);
    assert.deepEqual([answer.replayed, answer.reused], [true, true]);
  });

  it("reads reused from the referenceId when a server leaves the header off a replay", async () => {
    const shop = await service.svc.newMerchant();
    const account = customer();
    const params = { amount: "51000.00", paymentMethod: "promptpay", ...account } as const;
    await service.client({}, shop).payments.create({ ...params, referenceId: ref("open") });
    const headerless: FetchLike = async (url, init) => {
      const response = await globalThis.fetch(url, init);
      const headers = new Headers(response.headers);
      headers.delete("satang-payment-reused");
      return new Response(await response.arrayBuffer(), { status: response.status, headers });
    };
    const answer = await service.client({ fetch: headerless }, shop).payments.create({
      ...params,
      referenceId: ref("next"),
    });
    assert.equal(answer.reused, true);
  });
});

describe("the README", () => {
  it("checks reused in every example that creates a payment", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
    const creating = examples.filter((code) => code.includes("payments.create("));
    assert.ok(creating.length >= 2, "the complete integration and the PromptPay reuse section");
    for (const code of creating) assert.match(code, /payment\.reused/);
  });
});

describe("withdraws.create says whether it is a replay", () => {
  it("answers replayed false for a new withdraw and true for a repeat with its idempotency key", async () => {
    const shop = await service.svc.newMerchant();
    await fundWallet(service.svc.deps, shop.merchantId, 100_000n);
    const satang = service.client({}, shop);
    const body = {
      amount: "30000.00",
      referenceId: ref("wd"),
      destinationType: "bank_account",
      customerBankAccountName: "Somchai Jaidee",
      customerBankAccountNumber: "123-456-7890",
      customerBankCode: "014",
      idempotencyKey: randomUUID(),
    } as const;
    const first: CreatedWithdraw = await satang.withdraws.create(body);
    const again = await satang.withdraws.create(body);
    const replayed: boolean = again.replayed;
    assert.equal(first.replayed, false);
    assert.equal(replayed, true);
    assert.equal(again.id, first.id);
    assert.deepEqual(sortedKeys(again), [...WITHDRAW_FIELDS, "replayed"].sort());
    // One hold, not two.
    assert.equal((await satang.balance.retrieve()).walletBalance, 100_000 - 30_000);
  });
});
