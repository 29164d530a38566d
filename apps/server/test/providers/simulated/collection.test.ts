/**
 * The simulated connector beyond the conformance suite: how it reads the sandbox's own
 * callbacks, and that a sandbox's bank has no failure switch on.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import type { Kysely } from "kysely";
import { loadConfig } from "../../../src/config.ts";
import type { Database } from "../../../src/db/types.ts";
import { buildDeps } from "../../../src/deps.ts";
import { systemClock } from "../../../src/lib/clock.ts";
import { SecretBox } from "../../../src/lib/crypto.ts";
import { SimulatedBank } from "../../../src/providers/simulated/bank.ts";
import {
  createSimulatedConnector,
  type SimulatedConnector,
} from "../../../src/providers/simulated/connector.ts";
import { NO_FAULTS } from "../../../src/providers/simulated/faults.ts";
import { openTestStore, type TestStore } from "../../helpers/store.ts";

describe("the simulated connector", () => {
  let store: TestStore;
  let connector: SimulatedConnector;

  before(async () => {
    store = await openTestStore();
    connector = createSimulatedConnector({
      db: store.db,
      clock: systemClock,
      wallClock: systemClock,
      secrets: new SecretBox(Buffer.alloc(32, 3)),
    });
  });
  after(() => store.close());

  it("is named simulated, takes no confirmation token, collects promptpay and bank transfers, and pays out as the sandbox", () => {
    assert.equal(connector.name, "simulated");
    assert.equal(connector.callbackToken, undefined);
    assert.deepEqual([...connector.collection.methods], ["promptpay", "bank_transfer"]);
    assert.equal(connector.payouts.name, "sandbox");
    assert.equal(connector.bank, connector.payouts);
  });

  it("reads a simulate route's payment.succeeded as a claim whose transaction is the callback", async () => {
    const paymentId = randomUUID();
    const callback = await connector.bank.signCallback("payment.succeeded", { paymentId }, "sbx_cb_route_1");
    const reading = await connector.collection.readNotice(callback);
    if (reading.status !== "claim") assert.fail(JSON.stringify(reading));
    assert.equal(reading.claim.transactionId, "sbx_cb_route_1");
    assert.equal(reading.claim.reference, null);
    assert.equal(reading.claim.amountSatang, null);
    // The bank has no such payment in its book: a claim it cannot verify.
    assert.equal((await connector.collection.inquire(reading.claim)).status, "not_found");
  });

  it("ignores callbacks that report no payment, and refuses an unsigned one and a bad amount", async () => {
    const paymentId = randomUUID();
    for (const callback of [
      await connector.bank.signCallback("payment.failed", { paymentId }),
      await connector.bank.signCallback("payout.paid", { payoutKey: randomUUID() }),
    ]) {
      assert.equal((await connector.collection.readNotice(callback)).status, "ignored");
    }
    const signed = await connector.bank.signCallback("payment.succeeded", { paymentId });
    const unsigned = { headers: { "content-type": "application/json" }, rawBody: signed.rawBody };
    assert.equal((await connector.collection.readNotice(unsigned)).status, "malformed");
    const fractional = await connector.bank.signCallback("payment.succeeded", {
      paymentId,
      transactionId: "sbx_txn_1",
      amountSatang: "10.5",
    });
    assert.equal((await connector.collection.readNotice(fractional)).status, "malformed");
  });

  it("finds a payment only in the window it was paid in, and only under its reference", async () => {
    const paid = await connector.bank.pay({
      paymentId: randomUUID(),
      reference: "SBXWINDOW1",
      amountSatang: 500n,
    });
    const check = {
      paymentId: paid.payment.paymentId,
      reference: "SBXWINDOW1",
      amountSatang: 500n,
      providerPaymentId: null,
      createdAt: new Date(),
    };
    const at = paid.payment.paidAt.getTime();
    const inside = await connector.collection.find(check, new Date(at - 1_000), new Date(at + 1_000));
    assert.deepEqual(inside.status === "answered" && inside.payments.map((p) => p.transactionId), [
      paid.payment.transactionId,
    ]);
    const before = await connector.collection.find(check, new Date(at - 10_000), new Date(at - 1_000));
    assert.deepEqual(before.status === "answered" && before.payments, []);
    const other = await connector.collection.find(
      { ...check, reference: "SBXOTHER" },
      new Date(at - 1_000),
      new Date(at + 1_000),
    );
    assert.deepEqual(other.status === "answered" && other.payments, []);
  });
});

describe("the sandbox's bank", () => {
  it("is built with no failure switch: never down, every transfer answered", () => {
    const deps = buildDeps({
      config: loadConfig({}),
      db: {} as Kysely<Database>,
      storeKind: "embedded",
      secrets: new SecretBox(Buffer.alloc(32, 1)),
    });
    assert.ok(deps.provider instanceof SimulatedBank);
    assert.equal(deps.provider, deps.simulator);
    assert.equal((deps.provider as SimulatedBank).faults, NO_FAULTS);
  });

  it("remembers at most its limit of payments, the newest, by transaction and by reference alike", async () => {
    const store = await openTestStore();
    try {
      const bank = new SimulatedBank({
        db: store.db,
        clock: systemClock,
        wallClock: systemClock,
        secrets: new SecretBox(Buffer.alloc(32, 2)),
        bookedPaymentsMax: 3,
      });
      const paid = [];
      for (const reference of ["A", "B", "A", "C", "A"]) {
        paid.push((await bank.pay({ paymentId: randomUUID(), reference, amountSatang: 100n })).payment);
      }
      // The two oldest (A and B) are let go; the three newest are kept, and found both ways.
      assert.equal(bank.bookedPayment(paid[0]!.transactionId), undefined);
      assert.equal(bank.bookedPayment(paid[1]!.transactionId), undefined);
      for (const kept of paid.slice(2)) assert.equal(bank.bookedPayment(kept.transactionId), kept);
      assert.deepEqual(
        bank.bookedPaymentsOf("A").map((payment) => payment.transactionId),
        [paid[2]!.transactionId, paid[4]!.transactionId],
      );
      assert.deepEqual(bank.bookedPaymentsOf("B"), []);
      assert.deepEqual(bank.bookedPaymentsOf("C"), [paid[3]]);
    } finally {
      await store.close();
    }
  });
});
