import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PaymentMethod } from "../../../src/db/types.ts";
import { ManualClock } from "../../../src/lib/clock.ts";
import { CONNECTOR_BREAKER_COOLDOWN_MS, CONNECTOR_BREAKER_FAILURES_MAX } from "../../../src/lib/limits.ts";
import type { Connector, InstructInput } from "../../../src/providers/port.ts";
import { Router } from "../../../src/providers/routing/router.ts";
import { fake } from "../../helpers/fake-connector.ts";

const input = (method: PaymentMethod = "promptpay"): InstructInput => ({
  paymentId: "pay_1",
  merchantId: "mer_1",
  method,
  amountSatang: 10_000n,
  reference: "ABC123",
  expiresAt: new Date(Date.UTC(2026, 0, 15, 12, 15)),
});

describe("connector router", () => {
  it("gives a new payment to the first connector in order", async () => {
    const [a, b] = [fake("a"), fake("b")];
    const router = new Router([a, b], { clock: new ManualClock() });
    const routed = await router.instruct(input(), null);
    assert.equal(routed.status, "instructed");
    assert.equal(routed.status === "instructed" && routed.connector, "a");
    assert.equal(a.calls.length, 1);
    assert.equal(b.calls.length, 0);
  });

  it("skips a connector that does not collect the payment's method", async () => {
    const [a, b] = [fake("a", ["promptpay"]), fake("b", ["promptpay", "bank_transfer"])];
    const router = new Router([a, b], { clock: new ManualClock() });
    const routed = await router.instruct(input("bank_transfer"), null);
    assert.equal(routed.status === "instructed" && routed.connector, "b");
    assert.equal(a.calls.length, 0);
    assert.equal(router.collects("bank_transfer", "a"), false);
    assert.equal(router.collects("bank_transfer", null), true);
  });

  it("tries the next connector when one answers unavailable, throws or times out, counting each a failure", async () => {
    for (const behaviour of ["unavailable", "throw", "hang"] as const) {
      const [a, b] = [fake("a", ["promptpay"], behaviour), fake("b")];
      const router = new Router([a, b], { clock: new ManualClock(), instructTimeoutMs: 20 });
      const routed = await router.instruct(input(), null);
      assert.equal(routed.status === "instructed" && routed.connector, "b", behaviour);
      assert.equal(a.calls.length, 1);
      if (behaviour === "hang") assert.equal(a.calls[0]?.signal?.aborted, true, "the late call is aborted");
      // One failure is below the threshold: the next payment tries `a` first again.
      await router.instruct(input(), null);
      assert.equal(a.calls.length, 2, behaviour);
    }
  });

  it("skips a connector whose breaker is open, and takes it back after the cool-down's probe succeeds", async () => {
    const clock = new ManualClock();
    const [a, b] = [fake("a", ["promptpay"], "unavailable"), fake("b")];
    const router = new Router([a, b], { clock });
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i++) await router.instruct(input(), null);
    assert.equal(a.calls.length, CONNECTOR_BREAKER_FAILURES_MAX);
    assert.deepEqual(router.health(), [
      { connector: "a", state: "open" },
      { connector: "b", state: "closed" },
    ]);
    const skipped = await router.instruct(input(), null);
    assert.equal(skipped.status === "instructed" && skipped.connector, "b");
    assert.equal(a.calls.length, CONNECTOR_BREAKER_FAILURES_MAX, "an open connector is not called");

    a.behaviour = "instructed";
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    assert.equal(router.health()[0]?.state, "half_open");
    const probe = await router.instruct(input(), null);
    assert.equal(probe.status === "instructed" && probe.connector, "a");
    assert.equal(router.health()[0]?.state, "closed");
  });

  it("sends only one probe to a half-open connector when payments arrive together", async () => {
    const clock = new ManualClock();
    const [a, b] = [fake("a", ["promptpay"], "unavailable"), fake("b")];
    const router = new Router([a, b], { clock });
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i++) await router.instruct(input(), null);
    a.behaviour = "instructed";
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    const before = a.calls.length;
    const routed = await Promise.all(Array.from({ length: 6 }, () => router.instruct(input(), null)));
    assert.equal(a.calls.length - before, 1);
    assert.equal(routed.filter((r) => r.status === "instructed" && r.connector === "a").length, 1);
    assert.equal(routed.filter((r) => r.status === "instructed" && r.connector === "b").length, 5);
  });

  it("gives a pinned merchant's payment to its connector only, even when an earlier one is healthy", async () => {
    const [a, b] = [fake("a"), fake("b")];
    const router = new Router([a, b], { clock: new ManualClock() });
    const routed = await router.instruct(input(), "b");
    assert.equal(routed.status === "instructed" && routed.connector, "b");
    assert.equal(a.calls.length, 0);

    b.behaviour = "unavailable";
    const refused = await router.instruct(input(), "b");
    assert.equal(refused.status, "unavailable");
    assert.equal(a.calls.length, 0, "a pinned merchant never fails over");
  });

  it("answers unavailable with every refusal when no connector takes the payment", async () => {
    const [a, b] = [fake("a", ["promptpay"], "unavailable"), fake("b", ["bank_transfer"])];
    const router = new Router([a, b], { clock: new ManualClock() });
    const routed = await router.instruct(input(), null);
    assert.deepEqual(routed, {
      status: "unavailable",
      refusals: [
        { connector: "a", reason: "unavailable", detail: "a is down" },
        { connector: "b", reason: "method", detail: null },
      ],
    });
  });

  it("answers unavailable for a pin naming a connector the deployment does not have", async () => {
    const router = new Router([fake("a")], { clock: new ManualClock() });
    const routed = await router.instruct(input(), "gone");
    assert.equal(routed.status, "unavailable");
  });

  it("refuses a list naming a connector twice", () => {
    assert.throws(() => new Router([fake("a"), fake("a")], { clock: new ManualClock() }), /twice/);
  });
});

describe("ending a canceled payment's charge (revoke)", () => {
  function revoking(name: string, revoke: (id: string) => Promise<void>) {
    const base = fake(name);
    const calls: string[] = [];
    const connector: Connector = {
      ...base,
      collection: {
        ...base.collection!,
        revoke: async (id: string) => {
          calls.push(id);
          await revoke(id);
        },
      },
    };
    return { connector, calls };
  }

  it("asks the connector that made the payment, and says why when it did not end the charge", async () => {
    const a = revoking("a", async () => {});
    const b = revoking("b", async () => {
      throw new Error("b refused: failed_expire");
    });
    const router = new Router([a.connector, b.connector, fake("c")], { clock: new ManualClock() });
    assert.equal(await router.revoke("a", "chrg_1"), null);
    assert.deepEqual(a.calls, ["chrg_1"]);
    assert.equal(await router.revoke("b", "chrg_2"), "b refused: failed_expire");
    assert.equal(await router.revoke("c", "chrg_3"), null, "a connector with no charge to end");
    assert.equal(await router.revoke("gone", "chrg_4"), null);
  });

  it("gives up at the instruct bound, and does not wait for a connector whose breaker is open", async () => {
    const hanging = revoking("a", (id) => new Promise(() => void id));
    const clock = new ManualClock();
    const router = new Router([hanging.connector], { clock, instructTimeoutMs: 50 });
    assert.match(String(await router.revoke("a", "chrg_1")), /no answer within 50 ms|abort/i);
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i += 1) router.breaker("a")?.observe(false);
    assert.match(String(await router.revoke("a", "chrg_2")), /breaker is open/);
    assert.deepEqual(hanging.calls, ["chrg_1"], "not asked while open");
  });
});
