/**
 * How often the reconciler asks SCB's inquiry (docs/providers/scb.md, "How often SCB is asked"):
 * SCB's page reserves the inquiry for missing confirmations, so an open payment is asked about
 * less and less often (the interval, doubled after each check), each check asks only the Bangkok
 * dates since the previous one, and a 429 stops every question until its Retry-After has passed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nextCheckDelayMs, reconcileCollectionsOnce } from "../../../src/lifecycle/collections.ts";
import { bangkokDate } from "../../../src/providers/scb/time.ts";
import { createPayment } from "../../helpers/lifecycle.ts";
import { type LiveScb, RECONCILE_INTERVAL_S, startLiveScb } from "../../helpers/scb/live.ts";

let live: LiveScb;

before(async () => {
  live = await startLiveScb();
});
after(async () => {
  await live.close();
});

const inquiries = () => live.sim.of("bill_payment_inquiry").length;

describe("the reconciler's inquiry volume", () => {
  it("asks about N open payments at most N times per check, checks backing off: the documented bound", async () => {
    const n = 12;
    for (let i = 0; i < n; i += 1) await createPayment(live.svc, live.merchant, { amount: "10.00" });
    const interval = RECONCILE_INTERVAL_S * 1000;
    const steps = 32;
    const start = live.bank.now();
    const before = inquiries();
    for (let step = 0; step < steps; step += 1) {
      live.advance(interval);
      await reconcileCollectionsOnce(live.svc.deps);
    }
    const asked = inquiries() - before;
    // The checks the schedule allows in `steps` intervals after create: at I, then I, 2I, 4I... later.
    let checks = 0;
    for (let at = interval; at <= steps * interval; at += nextCheckDelayMs(interval, checks, false))
      checks += 1;
    const crossesMidnight = bangkokDate(start) !== bangkokDate(live.bank.now());
    const bound = n * checks * (crossesMidnight ? 2 : 1);
    assert.ok(checks <= 6, `the schedule backs off (${checks} checks in ${steps} intervals)`);
    assert.ok(asked >= n, "every open payment was asked about");
    assert.ok(asked <= bound, `${asked} inquiries for ${n} payments over ${steps} intervals; bound ${bound}`);
  });

  it("asks nothing while SCB's 429 Retry-After lasts, then resumes", async () => {
    for (let i = 0; i < 3; i += 1) await createPayment(live.svc, live.merchant, { amount: "11.00" });
    // Let every payment come due at once.
    live.advance(16 * 60_000);
    live.sim.failNext("bill_payment_inquiry", {
      kind: "answer",
      httpStatus: 429,
      code: 9429,
      description: "Too many requests",
      headers: { "retry-after": "120" },
    });
    const before = inquiries();
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(inquiries() - before, 1, "the batch stopped at the 429");
    live.advance(60_000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.equal(inquiries() - before, 1, "nothing asked before Retry-After has passed");
    live.advance(61_000);
    await reconcileCollectionsOnce(live.svc.deps);
    assert.ok(inquiries() - before > 1, "asked again after Retry-After");
  });
});
