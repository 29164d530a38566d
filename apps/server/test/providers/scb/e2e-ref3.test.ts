/**
 * SCB_REF3_PREFIX end to end: SCB sends a QR 30 payment confirmation to the endpoint registered
 * for the biller id and the "Reference 3 prefix" (docs/providers/scb.md, "ref3"). The local
 * simulator routes confirmations that way; the service's QR carries ref3 = prefix + ref1, so a
 * customer paying the QR as shown reaches the confirmation route at once, while a payment whose
 * QR lacked the prefix is found only by the reconciler.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { billPayment as readBillPayment } from "promptparse/validate";
import { createPayment } from "../../helpers/lifecycle.ts";
import { type LiveScb, startLiveScb } from "../../helpers/scb/live.ts";

let live: LiveScb;

before(async () => {
  live = await startLiveScb({ ref3Prefix: "SAT" });
});
after(async () => {
  await live.close();
});

async function statusOf(id: string): Promise<string> {
  const res = await live.svc.request("GET", `/api/v1/payments/${id}`, undefined, {
    credentials: live.merchant,
  });
  return res.body.data.status;
}

describe("a live PromptPay payment with SCB_REF3_PREFIX", () => {
  it("shows ref3 = the prefix and ref1, and the confirmation SCB routes by it reaches the service", async () => {
    const payment = await createPayment(live.svc, live.merchant, { amount: "120.00" });
    const qr = readBillPayment(payment.nextAction.qrCode.payload);
    assert.ok(qr);
    assert.equal(qr.ref3, `SAT${qr.ref1}`);
    const delivered = live.sim.confirmations.length;
    await live.sim.payQr(payment.nextAction.qrCode.payload);
    assert.equal(live.sim.confirmations.length, delivered + 1, "SCB sent the confirmation");
    assert.equal(live.sim.confirmations.at(-1)?.body.billPaymentRef3, `SAT${qr.ref1}`);
    assert.equal(await statusOf(payment.id), "succeeded", "credited on the confirmation, checked by inquiry");
  });

  it("a payment under the same biller without the prefix gets no confirmation from SCB", async () => {
    const payment = await createPayment(live.svc, live.merchant, { amount: "80.00" });
    const qr = readBillPayment(payment.nextAction.qrCode.payload)!;
    const delivered = live.sim.confirmations.length;
    await live.sim.pay({ ref1: qr.ref1, amountSatang: 8_000n, ref3: null });
    assert.equal(live.sim.confirmations.length, delivered, "SCB routes nothing without the prefix");
    assert.equal(await statusOf(payment.id), "requires_action");
  });
});
