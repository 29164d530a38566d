import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { systemClock } from "../../../src/lib/clock.ts";
import { OpnClient } from "../../../src/providers/opn/client.ts";
import { OpnCollection } from "../../../src/providers/opn/collection.ts";
import type { InstructInput, NoticeClaim } from "../../../src/providers/port.ts";
import { OpnSimulator, type SimWebhook } from "../../helpers/opn/simulator.ts";

const SECRET = "skey_test_collection";
const WEBHOOK_SECRET = Buffer.from("opn-webhook-secret-for-the-tests").toString("base64");

function input(overrides: Partial<InstructInput> = {}): InstructInput {
  return {
    paymentId: randomUUID(),
    merchantId: randomUUID(),
    method: "promptpay",
    amountSatang: 150_050n,
    reference: `R${randomUUID().replace(/-/g, "").slice(0, 12).toUpperCase()}`,
    expiresAt: new Date(Date.now() + 15 * 60_000),
    ...overrides,
  };
}

const notice = (webhook: SimWebhook) => ({ headers: webhook.headers, rawBody: webhook.rawBody });

describe("Opn collection", () => {
  let sim: OpnSimulator;
  let collection: OpnCollection;
  let unsigned: OpnCollection;

  before(async () => {
    sim = await OpnSimulator.start({ secretKey: SECRET, webhookSecret: WEBHOOK_SECRET });
    const client = new OpnClient({ baseUrl: sim.url, secretKey: SECRET, timeoutMs: 1_000 });
    collection = new OpnCollection(client, { webhookSecret: WEBHOOK_SECRET }, systemClock);
    unsigned = new OpnCollection(client, { webhookSecret: null }, systemClock);
  });
  after(() => sim.close());

  async function instructed(overrides: Partial<InstructInput> = {}) {
    const given = input(overrides);
    const instruction = await collection.instruct(given);
    if (instruction.status !== "instructed") assert.fail(JSON.stringify(instruction));
    return { given, chargeId: instruction.providerPaymentId as string, instruction };
  }

  async function claimOf(webhook: SimWebhook): Promise<NoticeClaim> {
    const reading = await collection.readNotice(notice(webhook));
    if (reading.status !== "claim") assert.fail(JSON.stringify(reading));
    return reading.claim;
  }

  it("collects promptpay only: Opn has nothing like our bank transfer", () => {
    assert.deepEqual([...collection.methods], ["promptpay"]);
  });

  it("instructs a PromptPay charge carrying our payment id, reference, amount and expiry, and shows Opn's QR image", async () => {
    const { given, chargeId, instruction } = await instructed();
    assert.match(chargeId, /^chrg_test_[0-9a-z]+$/);
    const charge = sim.charges.get(chargeId)!;
    assert.equal(charge.amount, 150_050);
    assert.deepEqual(charge.metadata, {
      satang_payment_id: given.paymentId,
      satang_reference: given.reference,
    });
    assert.equal(Date.parse(charge.expires_at), given.expiresAt.getTime());
    assert.equal(sim.requests.at(-1)!.body.currency, "thb");
    if (instruction.status !== "instructed") return;
    assert.equal(instruction.qrPayload, null);
    assert.equal(instruction.qrImageUrl, `${sim.url}/charges/${chargeId}/documents/qrcode.svg`);
  });

  it("answers unavailable without calling Opn for a bank transfer payment", async () => {
    const count = sim.requests.length;
    const instruction = await collection.instruct(input({ method: "bank_transfer" }));
    assert.equal(instruction.status, "unavailable");
    assert.equal(sim.requests.length, count);
  });

  it("answers unavailable when Opn answers 503 or refuses the charge", async () => {
    sim.failNext({ status: 503, path: "/charges" });
    assert.equal((await collection.instruct(input())).status, "unavailable");
    const refused = await collection.instruct(input({ amountSatang: 1n }));
    assert.equal(refused.status, "unavailable");
    if (refused.status === "unavailable") assert.match(refused.error, /invalid_amount/);
  });

  it("reads a signed charge.complete as a claim and verifies it against the retrieved charge", async () => {
    const { given, chargeId } = await instructed();
    const claim = await claimOf(await sim.pay(chargeId));
    assert.equal(claim.transactionId, chargeId);
    assert.equal(claim.reference, given.reference);
    assert.equal(claim.amountSatang, given.amountSatang);
    assert.equal(claim.paidAt.getTime(), Date.parse(sim.charges.get(chargeId)!.paid_at!));
    const verdict = await collection.inquire(claim);
    if (verdict.status !== "verified") assert.fail(JSON.stringify(verdict));
    assert.deepEqual(
      { ...verdict.payment, paidAt: verdict.payment.paidAt?.getTime() },
      {
        transactionId: chargeId,
        reference: given.reference,
        amountSatang: given.amountSatang,
        paidAt: claim.paidAt.getTime(),
      },
    );
  });

  it("reads a re-sent event as the same claim (one charge id, credited once by the lifecycle)", async () => {
    const { chargeId } = await instructed();
    const first = await sim.pay(chargeId);
    const again = await sim.resend(first.eventId);
    assert.deepEqual(await claimOf(again), await claimOf(first));
  });

  it("refuses an event signed with another secret, an unsigned one and a stale one as forged", async () => {
    const { chargeId } = await instructed();
    await sim.pay(chargeId);
    const charge = sim.charges.get(chargeId)!;
    const otherSecret = sim.webhookFor(charge, {
      secret: Buffer.from("not-opns-secret-at-all").toString("base64"),
    });
    const forged = await collection.readNotice(notice(otherSecret));
    assert.equal(forged.status, "malformed");
    if (forged.status === "malformed") assert.match(forged.error, /forged/);
    const bare = sim.webhookFor(charge);
    const unsignedReading = await collection.readNotice({
      headers: { "content-type": "application/json" },
      rawBody: bare.rawBody,
    });
    assert.equal(unsignedReading.status, "malformed");
    const altered = sim.webhookFor(charge);
    const tampered = await collection.readNotice({
      headers: altered.headers,
      rawBody: altered.rawBody.replace(chargeId, "chrg_test_other"),
    });
    assert.equal(tampered.status, "malformed");
    const stale = sim.webhookFor(charge);
    const old = String(Math.floor(Date.now() / 1000) - 3_600);
    const staleReading = await collection.readNotice({
      headers: { ...stale.headers, "omise-signature-timestamp": old },
      rawBody: stale.rawBody,
    });
    assert.equal(staleReading.status, "malformed");
  });

  it("without a webhook secret a forged event is only a claim, and the inquiry refuses it", async () => {
    const { chargeId, given } = await instructed();
    const forgedBody = sim.webhookFor(
      { ...sim.charges.get(chargeId)!, status: "successful", paid: true },
      { secret: "" },
    );
    const reading = await unsigned.readNotice({ headers: {}, rawBody: forgedBody.rawBody });
    if (reading.status !== "claim") assert.fail(JSON.stringify(reading));
    const verdict = await unsigned.inquire(reading.claim);
    assert.equal(verdict.status, "not_found", "Opn shows the charge still pending");
    const invented = await unsigned.inquire({ ...reading.claim, transactionId: "chrg_test_invented" });
    assert.deepEqual(invented.status === "not_found" && invented.retry, false);
    assert.equal(given.reference, reading.claim.reference);
  });

  it("ignores events that are not a charge's completion and refuses bodies that are not Opn events", async () => {
    const { chargeId } = await instructed();
    const created = sim.webhookFor(sim.charges.get(chargeId)!, { key: "charge.create" });
    assert.equal((await collection.readNotice(notice(created))).status, "ignored");
    const transfer = sim.webhookFor({ object: "transfer", id: "trsf_test_1" }, { key: "transfer.pay" });
    assert.equal((await collection.readNotice(notice(transfer))).status, "ignored");
    const garbage = sim.webhookFor({ object: "charge" });
    assert.equal((await collection.readNotice(notice(garbage))).status, "malformed");
    assert.equal((await unsigned.readNotice({ headers: {}, rawBody: "not json" })).status, "malformed");
    assert.equal(
      (await unsigned.readNotice({ headers: {}, rawBody: '{"object":"list"}' })).status,
      "malformed",
    );
  });

  it("answers declined for an expired and a failed charge, with the outcome and Opn's code", async () => {
    const cases = [
      { decide: (id: string) => sim.expire(id), outcome: "expired", code: /expired_charge/ },
      {
        decide: (id: string) => sim.fail(id, "payment_rejected"),
        outcome: "failed",
        code: /payment_rejected/,
      },
    ] as const;
    for (const { decide, outcome, code } of cases) {
      const { chargeId } = await instructed();
      const verdict = await collection.inquire(await claimOf(await decide(chargeId)));
      if (verdict.status !== "declined") assert.fail(verdict.status);
      assert.equal(verdict.outcome, outcome);
      assert.match(verdict.reason, code);
      assert.equal(verdict.payment.transactionId, chargeId);
    }
  });

  it("answers mismatch, not declined, for a failed charge under another reference", async () => {
    const { chargeId } = await instructed();
    const claim = await claimOf(await sim.fail(chargeId));
    const verdict = await collection.inquire({ ...claim, reference: "SOMEONEELSE" });
    assert.deepEqual(verdict.status === "mismatch" && verdict.fields, ["reference"]);
  });

  it("answers mismatch on amount and reference when the claim differs from the charge", async () => {
    const { chargeId } = await instructed();
    const claim = await claimOf(await sim.pay(chargeId));
    const amount = await collection.inquire({ ...claim, amountSatang: claim.amountSatang! + 1n });
    assert.deepEqual(amount.status === "mismatch" && amount.fields, ["amount"]);
    const reference = await collection.inquire({ ...claim, reference: "SOMEONEELSE" });
    assert.deepEqual(reference.status === "mismatch" && reference.fields, ["reference"]);
  });

  it("verifies a charge the customer's bank paid after it expired (the lifecycle decides what late means)", async () => {
    const { chargeId } = await instructed();
    const verdict = await collection.inquire(await claimOf(await sim.payLate(chargeId)));
    assert.equal(verdict.status, "verified");
  });

  it("answers not_found (ask again) for a pending charge and not_found (final) for an unknown or foreign id", async () => {
    const { chargeId, given } = await instructed();
    const claim = {
      transactionId: chargeId,
      reference: given.reference,
      amountSatang: given.amountSatang,
      paidAt: new Date(),
    };
    const pending = await collection.inquire(claim);
    assert.deepEqual(pending.status === "not_found" && pending.retry, true);
    const unknown = await collection.inquire({ ...claim, transactionId: "chrg_test_nosuchcharge" });
    assert.deepEqual(unknown.status === "not_found" && unknown.retry, false);
    const foreign = await collection.inquire({ ...claim, transactionId: "../admin" });
    assert.deepEqual(foreign.status === "not_found" && foreign.retry, false);
  });

  it("answers unavailable, never not_found, when Opn answers 5xx or 429", async () => {
    const { chargeId } = await instructed();
    const claim = await claimOf(await sim.pay(chargeId));
    sim.failNext({ status: 502, path: "/charges/" });
    assert.equal((await collection.inquire(claim)).status, "unavailable");
    sim.failNext({ status: 429, path: "/charges/", retryAfter: "1" });
    assert.equal((await collection.inquire(claim)).status, "unavailable");
    assert.equal((await collection.inquire(claim)).status, "verified");
  });

  it("finds a payment whose webhook was lost by retrieving its charge", async () => {
    sim.loseWebhooks = true;
    try {
      const { given, chargeId } = await instructed();
      const check = {
        paymentId: given.paymentId,
        reference: given.reference,
        amountSatang: given.amountSatang,
        providerPaymentId: chargeId,
        createdAt: new Date(),
      };
      assert.deepEqual(await collection.find(check, new Date(0), new Date()), {
        status: "answered",
        payments: [],
        unreadable: [],
      });
      await sim.pay(chargeId);
      const found = await collection.find(check, new Date(0), new Date());
      if (found.status !== "answered") assert.fail(JSON.stringify(found));
      assert.equal(found.payments.length, 1);
      assert.equal(found.payments[0]!.transactionId, chargeId);
      assert.equal(found.payments[0]!.amountSatang, given.amountSatang);
      assert.equal(found.payments[0]!.reference, given.reference);
      sim.failNext({ status: 503, path: "/charges/" });
      assert.equal((await collection.find(check, new Date(0), new Date())).status, "unavailable");
      const never = await collection.find({ ...check, providerPaymentId: null }, new Date(0), new Date());
      assert.deepEqual(never, { status: "answered", payments: [], unreadable: [] });
      const gone = await collection.find(
        { ...check, providerPaymentId: "chrg_test_gone" },
        new Date(0),
        new Date(),
      );
      assert.deepEqual(gone, { status: "answered", payments: [], unreadable: [] });
    } finally {
      sim.loseWebhooks = false;
    }
  });
});
