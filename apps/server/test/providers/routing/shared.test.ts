/**
 * Breakers shared between processes (providers/routing/shared.ts, docs/providers/routing.md): two
 * routers on one store stand for a worker, whose reconciling questions find a connector down, and
 * an API process, which routes new payments and asks the connector nothing (a QR made locally).
 * The API process skips the connector the worker found down, takes it back when the worker's
 * probe finds it up, and on its own after the hold when nobody records anything more.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import {
  CONNECTOR_BREAKER_COOLDOWN_MS,
  CONNECTOR_BREAKER_FAILURES_MAX,
  SHARED_BREAKER_HOLD_MS,
  SHARED_BREAKER_REFRESH_MS,
} from "../../../src/lib/limits.ts";
import type { InstructInput } from "../../../src/providers/port.ts";
import { Router } from "../../../src/providers/routing/router.ts";
import { SharedBreakers } from "../../../src/providers/routing/shared.ts";
import { fake } from "../../helpers/fake-connector.ts";
import { openTestStore, type TestStore } from "../../helpers/store.ts";

const input: InstructInput = {
  paymentId: "pay_1",
  merchantId: "mer_1",
  method: "promptpay",
  amountSatang: 10_000n,
  reference: "ABC123",
  expiresAt: new Date(Date.UTC(2026, 0, 15, 12, 15)),
};

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(async () => {
  await store.close();
});

/** A process: its router over SCB then Opn, and its view of the shared breakers. */
function processOn(clock: ManualClock) {
  const shared = new SharedBreakers({ db: store.db, clock });
  const router = new Router([fake("scb"), fake("opn")], { clock, shared });
  return { shared, router };
}

async function routedBy(router: Router): Promise<string | undefined> {
  const routed = await router.instruct(input, null);
  return routed.status === "instructed" ? routed.connector : undefined;
}

/** Lets a write started by a breaker's change land, then reads what the processes recorded. */
async function settle(...views: SharedBreakers[]): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  await Promise.all(views.map((view) => view.refresh()));
}

describe("connector breakers shared between processes", () => {
  it("skips a connector another process found down, and takes it back when that one finds it up", async () => {
    const clock = new ManualClock(Date.now());
    const worker = processOn(clock);
    const api = processOn(clock);
    assert.equal(await routedBy(api.router), "scb");

    // The worker's questions to SCB fail: its breaker opens, and it records so.
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i += 1) worker.router.breaker("scb")?.observe(false);
    await settle(worker.shared, api.shared);
    assert.equal(await routedBy(api.router), "opn", "the API process skips SCB");
    assert.deepEqual(
      api.router.health().map((h) => [h.connector, h.state]),
      [
        ["scb", "open"],
        ["opn", "closed"],
      ],
      "and says so on /readyz and the metric",
    );

    // Past the cool-down the worker's probe fails again: open again, the record renewed.
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    assert.equal(worker.router.breaker("scb")?.tryAcquire(), true, "the worker's probe");
    worker.router.breaker("scb")?.observe(false);
    clock.advance(SHARED_BREAKER_HOLD_MS - CONNECTOR_BREAKER_COOLDOWN_MS / 2);
    await settle(worker.shared, api.shared);
    assert.equal(await routedBy(api.router), "opn", "still skipped: the worker found it down again");

    // The next probe finds SCB up: the worker's breaker closes, and so does every process's view.
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    assert.equal(worker.router.breaker("scb")?.tryAcquire(), true);
    worker.router.breaker("scb")?.observe(true);
    await settle(worker.shared, api.shared);
    assert.equal(await routedBy(api.router), "scb", "SCB takes new payments again");
  });

  it("lets the process that opened a breaker probe it itself, and forgets a record nobody renews", async () => {
    const clock = new ManualClock(Date.now() + 86_400_000);
    const one = processOn(clock);
    const other = processOn(clock);
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i += 1) one.router.breaker("scb")?.observe(false);
    await settle(one.shared, other.shared);
    assert.equal(await routedBy(one.router), "opn", "its own breaker is open");
    assert.equal(await routedBy(other.router), "opn");

    // After the cool-down the opener's own probe goes to SCB (its own record does not stop it).
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    await settle(one.shared, other.shared);
    assert.equal(await routedBy(one.router), "scb", "the probe, and it succeeds: closed");
    await settle(one.shared, other.shared);
    assert.equal(await routedBy(other.router), "scb");

    // A record nobody renews (the opener stopped) holds the others off for the hold, no longer.
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i += 1) one.router.breaker("opn")?.observe(false);
    await settle(one.shared, other.shared);
    assert.equal(other.shared.isOpen("opn"), true);
    clock.advance(SHARED_BREAKER_HOLD_MS + SHARED_BREAKER_REFRESH_MS);
    assert.equal(other.shared.isOpen("opn"), false, "as of now, not as of the last read");
    await settle(other.shared);
    assert.equal(other.shared.isOpen("opn"), false);
  });

  it("does not let a restarted process take its own last record for another's", async () => {
    const clock = new ManualClock(Date.now() + 2 * 86_400_000);
    const before = processOn(clock);
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i += 1) before.router.breaker("scb")?.observe(false);
    await settle(before.shared);
    // The process restarts (its breakers closed again): the record it left does not count...
    clock.advance(1_000);
    const restarted = processOn(clock);
    await settle(restarted.shared);
    assert.equal(await routedBy(restarted.router), "scb");
    // ... but one another process makes after the restart does.
    const other = processOn(clock);
    clock.advance(1_000);
    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i += 1) other.router.breaker("scb")?.observe(false);
    await settle(other.shared, restarted.shared);
    assert.equal(await routedBy(restarted.router), "opn");
  });
});
