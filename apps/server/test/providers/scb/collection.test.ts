import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  isBaht,
  parseConfirmation,
  ScbCollection,
  scbAmount,
  type UnreadableAnswer,
} from "../../../src/providers/scb/collection.ts";
import { parseScbTime } from "../../../src/providers/scb/time.ts";
import { UnreadableAnswers } from "../../../src/providers/scb/unreadable.ts";
import { type ConfirmationReceiver, startConfirmationReceiver } from "../../helpers/scb/receiver.ts";
import { SCB_TEST, type ScbRig, startScbRig } from "../../helpers/scb/setup.ts";

describe("SCB collection: payment confirmations are believed only as SCB's inquiry shows them", () => {
  let rig: ScbRig;
  let receiver: ConfirmationReceiver;
  before(async () => {
    rig = await startScbRig({ ref2: "SATANG" });
    receiver = await startConfirmationReceiver(rig.collection);
    rig.sim.callbackUrl = receiver.url;
  });
  after(async () => {
    await receiver.close();
    await rig.close();
  });

  it("builds the payment's QR for the operator's biller with ref1 and the configured ref2", () => {
    const instruction = rig.collection.instruction({ ref1: "K7Q2M9XA", amountSatang: 5_000n });
    assert.equal(instruction.ref1, "K7Q2M9XA");
    assert.equal(instruction.ref2, "SATANG");
    assert.ok(instruction.qrPayload.includes(SCB_TEST.billerId));
  });

  it("verifies a genuine confirmation and answers with SCB's transaction, acknowledged with resCode 00", async () => {
    const paid = await rig.sim.pay({ ref1: "REFGENUINE1", ref2: "SATANG", amountSatang: 12_345n });
    const check = receiver.checks.at(-1)!;
    assert.equal(check.status, "verified");
    if (check.status !== "verified") return;
    assert.deepEqual(
      { ...check.payment, paidAt: check.payment.paidAt?.toISOString() },
      {
        transactionId: paid.transactionId,
        billerId: SCB_TEST.billerId,
        ref1: "REFGENUINE1",
        ref2: "SATANG",
        amountSatang: 12_345n,
        paidAt: rig.clock.now().toISOString(),
        sendingBankCode: "004",
      },
    );
    const delivery = rig.sim.confirmations.at(-1)!;
    assert.equal(delivery.status, 200);
    assert.deepEqual(delivery.response, {
      resCode: "00",
      resDesc: "success",
      transactionId: paid.transactionId,
    });
    assert.equal(rig.sim.confirmations.filter((c) => c.body.transactionId === paid.transactionId).length, 1);
    // The inquiry asked SCB for this biller, this ref1 and the Bangkok date of the payment.
    const asked = new URL(rig.sim.of("bill_payment_inquiry").at(-1)!.url, "http://x").searchParams;
    assert.deepEqual(Object.fromEntries(asked), {
      eventCode: "00300100",
      transactionDate: "2026-01-15",
      billerId: SCB_TEST.billerId,
      reference1: "REFGENUINE1",
    });
  });

  it("names the same transaction id for every copy of a re-sent confirmation", async () => {
    const before = receiver.checks.length;
    const paid = await rig.sim.pay({ ref1: "REFRESENT1", amountSatang: 500n, resend: 2 });
    const checks = receiver.checks.slice(before);
    assert.equal(checks.length, 3);
    for (const check of checks) {
      assert.equal(check.status, "verified");
      if (check.status === "verified") assert.equal(check.payment.transactionId, paid.transactionId);
    }
  });

  it("finds nothing for a forged confirmation of a transaction SCB does not know", async () => {
    const genuine = await rig.sim.pay({ ref1: "REFFORGED1", amountSatang: 700n, confirm: false });
    const forged = { ...rig.sim.confirmationBody(genuine), transactionId: "2026011599999999FAKE" };
    const delivery = await rig.sim.sendConfirmation(forged);
    const check = receiver.checks.at(-1)!;
    assert.equal(check.status, "not_found");
    // Received and recorded, so SCB need not re-send; nothing is credited on it.
    assert.equal(delivery.status, 200);
  });

  it("finds nothing for a confirmation whose ref1 SCB shows no payment for", async () => {
    const genuine = await rig.sim.pay({ ref1: "REFREAL2", amountSatang: 700n, confirm: false });
    await rig.sim.sendConfirmation({ ...rig.sim.confirmationBody(genuine), billPaymentRef1: "REFOTHER2" });
    assert.equal(receiver.checks.at(-1)!.status, "not_found");
  });

  it("reports a mismatch when the confirmation claims another amount or biller than SCB shows", async () => {
    const genuine = await rig.sim.pay({ ref1: "REFALTER1", amountSatang: 700n, confirm: false });
    await rig.sim.sendConfirmation({ ...rig.sim.confirmationBody(genuine), amount: "70000.00" });
    const byAmount = receiver.checks.at(-1)!;
    assert.equal(byAmount.status, "mismatch");
    if (byAmount.status === "mismatch") {
      assert.deepEqual(byAmount.fields, ["amount"]);
      assert.equal(byAmount.payment.amountSatang, 700n, "SCB's amount, not the claimed one");
    }
    await rig.sim.sendConfirmation({ ...rig.sim.confirmationBody(genuine), payeeProxyId: "099999999999999" });
    const byBiller = receiver.checks.at(-1)!;
    assert.equal(byBiller.status, "mismatch");
    if (byBiller.status === "mismatch") assert.deepEqual(byBiller.fields, ["billerId"]);
  });

  it("does not count a payment to another biller", async () => {
    const elsewhere = await rig.sim.pay({
      ref1: "REFELSE1",
      amountSatang: 700n,
      billerId: "099999999999999",
      confirm: false,
    });
    await rig.sim.sendConfirmation({
      ...rig.sim.confirmationBody(elsewhere),
      payeeProxyId: SCB_TEST.billerId,
    });
    assert.equal(receiver.checks.at(-1)!.status, "not_found");
  });

  it("answers unavailable, crediting nothing, when SCB's inquiry cannot be asked", async () => {
    const genuine = await rig.sim.pay({ ref1: "REFDOWN1", amountSatang: 700n, confirm: false });
    rig.sim.failNext("bill_payment_inquiry", {
      kind: "answer",
      httpStatus: 503,
      code: 9999,
      description: "down",
    });
    const check = await rig.collection.confirmPayment(JSON.stringify(rig.sim.confirmationBody(genuine)));
    assert.equal(check.status, "unavailable");
  });

  it("is sent again by SCB until acknowledged", async () => {
    receiver.failNext.count = 2;
    const paid = await rig.sim.pay({ ref1: "REFRETRY1", amountSatang: 800n });
    const deliveries = rig.sim.confirmations.filter((c) => c.body.transactionId === paid.transactionId);
    assert.deepEqual(
      deliveries.map((d) => d.status),
      [500, 500, 200],
    );
    assert.equal(receiver.checks.at(-1)!.status, "verified");
  });

  it("refuses a body that is not a confirmation", async () => {
    const before = rig.sim.confirmations.length;
    const check = await rig.collection.confirmPayment("not json");
    assert.equal(check.status, "malformed");
    for (const body of [
      '{"transactionId":"A1"}',
      '{"transactionId":"A 1","billPaymentRef1":"X","transactionDateandTime":"2026-01-15T12:00:00+07:00"}',
    ]) {
      assert.equal(parseConfirmation(body).ok, false);
    }
    assert.equal(rig.sim.confirmations.length, before);
  });

  it("never asks SCB about a ref1 this service cannot have issued", async () => {
    const calls = rig.sim.of("bill_payment_inquiry").length;
    const body = {
      transactionId: "X1",
      billPaymentRef1: "lower-case",
      amount: "1.00",
      transactionDateandTime: "2026-01-15T12:00:00+07:00",
    };
    assert.equal((await rig.collection.confirmPayment(JSON.stringify(body))).status, "not_found");
    assert.equal(rig.sim.of("bill_payment_inquiry").length, calls);
  });
});

describe("SCB collection: reconciliation and slips", () => {
  let rig: ScbRig;
  before(async () => {
    rig = await startScbRig();
  });
  after(() => rig.close());

  it("finds a payment whose confirmation never came, on any Bangkok date since the payment was created", async () => {
    const created = rig.clock.now();
    rig.clock.advance(26 * 3_600_000);
    const paid = await rig.sim.pay({ ref1: "REFLOST1", amountSatang: 9_900n, confirm: false });
    rig.clock.advance(30 * 3_600_000);
    const search = await rig.collection.findPayments({ ref1: "REFLOST1", from: created });
    assert.equal(search.status, "answered");
    if (search.status !== "answered") return;
    assert.deepEqual(
      search.payments.map((p) => [p.transactionId, p.amountSatang]),
      [[paid.transactionId, 9_900n]],
    );
    const dates = rig.sim
      .of("bill_payment_inquiry")
      .map((r) => new URL(r.url, "http://x").searchParams.get("transactionDate"));
    assert.deepEqual(dates, ["2026-01-15", "2026-01-16", "2026-01-17"]);
  });

  it("answers unavailable rather than 'not paid' when one of the dates cannot be asked", async () => {
    rig.sim.failNext("bill_payment_inquiry", {
      kind: "answer",
      httpStatus: 500,
      code: 9999,
      description: "down",
    });
    const search = await rig.collection.findPayments({
      ref1: "REFLOST1",
      from: new Date(Date.UTC(2026, 0, 14)),
    });
    assert.equal(search.status, "unavailable");
  });

  it("verifies a slip for the operator's biller and refuses one paid to another biller", async () => {
    const ours = await rig.sim.pay({
      ref1: "REFSLIP1",
      amountSatang: 2_500n,
      sendingBankCode: "014",
      confirm: false,
    });
    const slip = await rig.collection.verifySlip(ours.transactionId, "014");
    assert.equal(slip.status, "answered");
    if (slip.status === "answered") {
      assert.equal(slip.payment?.ref1, "REFSLIP1");
      assert.equal(slip.payment?.amountSatang, 2_500n);
      assert.equal(
        slip.payment?.paidAt?.toISOString(),
        new Date(Math.floor(rig.clock.now().getTime() / 1000) * 1000).toISOString(),
      );
    }
    const theirs = await rig.sim.pay({
      ref1: "REFSLIP2",
      amountSatang: 2_500n,
      billerId: "099999999999999",
      confirm: false,
    });
    const other = await rig.collection.verifySlip(theirs.transactionId, "014");
    assert.deepEqual(other, { status: "answered", payment: null });
    assert.deepEqual(await rig.collection.verifySlip("NOSUCHSLIP", "014"), {
      status: "answered",
      payment: null,
    });
  });
});

describe("SCB collection: every form SCB's pages show is read, and what cannot be read is reported", () => {
  let rig: ScbRig;
  let receiver: ConfirmationReceiver;
  const reported: UnreadableAnswer[] = [];
  before(async () => {
    rig = await startScbRig();
    const unreadable = new UnreadableAnswers(rig.recorder);
    const collection = new ScbCollection(
      rig.client,
      { billerId: SCB_TEST.billerId, ref2: null, ref3Prefix: null },
      rig.clock,
      (a) => {
        reported.push(a);
        return unreadable.report(a);
      },
    );
    receiver = await startConfirmationReceiver(collection);
    rig.sim.callbackUrl = receiver.url;
  });
  after(async () => {
    await receiver.close();
    await rig.close();
  });

  it("verifies a transaction id with dashes and underscores, currency THB, a time without the T and a number amount", async () => {
    rig.sim.inquiryRowForm = (row) => ({
      ...row,
      currencyCode: "THB",
      transactionDateandTime: String(row.transactionDateandTime).slice(0, 19).replace("T", " "),
      amount: Number(row.amount),
    });
    const paid = await rig.sim.pay({
      ref1: "REFFORMS1",
      amountSatang: 123_450n,
      transactionId: "2026-0115_SCB-000123",
    });
    const check = receiver.checks.at(-1)!;
    assert.equal(check.status, "verified");
    if (check.status === "verified") {
      assert.equal(check.payment.transactionId, paid.transactionId);
      assert.equal(check.payment.amountSatang, 123_450n);
      assert.equal(check.payment.paidAt?.toISOString(), rig.clock.now().toISOString().slice(0, 19) + ".000Z");
    }
    assert.deepEqual(reported, []);
    rig.sim.inquiryRowForm = (row) => row;
  });

  it("reads the currency as 764 (string or number) or THB, and times in ISO basic and extended forms", () => {
    assert.ok(isBaht("764") && isBaht(764) && isBaht("thb") && isBaht(undefined));
    assert.ok(!isBaht("840") && !isBaht("USD"));
    for (const form of [
      "2026-01-15T19:00:00",
      "2026-01-15 19:00:00",
      "2026-01-15T19:00:00.000+07:00",
      "2026-01-15T19:00:00+0700",
      "2026-01-15T12:00:00Z",
      "20260115190000",
      "20260115T190000+0700",
    ])
      assert.equal(parseScbTime(form)?.toISOString(), "2026-01-15T12:00:00.000Z", form);
    assert.equal(parseScbTime("2026-02-31T10:00:00"), null);
    assert.equal(scbAmount("1,250.50"), 125_050n);
    assert.equal(scbAmount("1,25.50"), null);
  });

  it("reports a row it cannot read with its exchange id and answers unavailable, never not found", async () => {
    rig.sim.inquiryRowForm = (row) => ({ ...row, transactionDateandTime: "yesterday afternoon" });
    await rig.sim.pay({ ref1: "REFUNREAD1", amountSatang: 700n });
    const check = receiver.checks.at(-1)!;
    assert.equal(check.status, "unavailable");
    assert.equal(reported.length, 1);
    assert.equal(reported[0]?.operation, "bill_payment_inquiry");
    assert.match(reported[0]?.reason ?? "", /transactionDateandTime is unreadable/);
    const exchange = rig.recorder.exchanges[Number(reported[0]?.exchangeId) - 1];
    assert.equal(exchange?.operation, "bill_payment_inquiry");
    assert.match(exchange?.unreadable ?? "", /transactionDateandTime is unreadable/);
    rig.sim.inquiryRowForm = (row) => row;
  });
});
