import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import {
  CONNECTOR_BREAKER_COOLDOWN_MS,
  CONNECTOR_BREAKER_FAILURES_MAX,
  CONNECTOR_BREAKER_WINDOW_MS,
} from "../../../src/lib/limits.ts";
import { BREAKER_STATE_GAUGE, CircuitBreaker } from "../../../src/providers/routing/breaker.ts";

function breaker() {
  const clock = new ManualClock();
  return { clock, breaker: new CircuitBreaker({ clock }) };
}

function fail(b: CircuitBreaker, times: number) {
  for (let i = 0; i < times; i++) b.observe(false);
}

describe("connector circuit breaker", () => {
  it("uses 5 failures in 60 s and a 30 s cool-down by default", () => {
    const { breaker: b } = breaker();
    assert.equal(b.failuresMax, 5);
    assert.equal(b.windowMs, 60_000);
    assert.equal(b.cooldownMs, 30_000);
    assert.equal(CONNECTOR_BREAKER_FAILURES_MAX, 5);
  });

  it("stays closed after one failure fewer than the threshold, and opens on the threshold", () => {
    const { breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX - 1);
    assert.equal(b.state(), "closed");
    assert.equal(b.tryAcquire(), true);
    b.observe(false);
    assert.equal(b.state(), "open");
    assert.equal(b.tryAcquire(), false);
  });

  it("does not count a failure that has left the window", () => {
    const { clock, breaker: b } = breaker();
    b.observe(false);
    clock.advance(CONNECTOR_BREAKER_WINDOW_MS);
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX - 1);
    assert.equal(b.state(), "closed");
  });

  it("counts a failure one millisecond inside the window", () => {
    const { clock, breaker: b } = breaker();
    b.observe(false);
    clock.advance(CONNECTOR_BREAKER_WINDOW_MS - 1);
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX - 1);
    assert.equal(b.state(), "open");
  });

  it("successes while closed do not open it nor hide failures within the window", () => {
    const { breaker: b } = breaker();
    fail(b, 2);
    b.observe(true);
    assert.equal(b.state(), "closed");
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX - 2);
    assert.equal(b.state(), "open");
  });

  it("refuses calls while open and turns half-open exactly at the end of the cool-down", () => {
    const { clock, breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX);
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS - 1);
    assert.equal(b.state(), "open");
    assert.equal(b.tryAcquire(), false);
    clock.advance(1);
    assert.equal(b.state(), "half_open");
  });

  it("lets exactly one probe through when half-open, however many calls ask at once", async () => {
    const { clock, breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX);
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    const asks = await Promise.all(Array.from({ length: 20 }, async () => b.tryAcquire()));
    assert.equal(asks.filter(Boolean).length, 1);
  });

  it("closes when the probe succeeds", () => {
    const { clock, breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX);
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    assert.equal(b.tryAcquire(), true);
    b.observe(true);
    assert.equal(b.state(), "closed");
    assert.equal(b.tryAcquire(), true);
    // The failures before it opened are forgotten: it takes the full threshold again.
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX - 1);
    assert.equal(b.state(), "closed");
  });

  it("opens again for a full cool-down when the probe fails", () => {
    const { clock, breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX);
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    assert.equal(b.tryAcquire(), true);
    clock.advance(500);
    b.observe(false);
    assert.equal(b.state(), "open");
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS - 1);
    assert.equal(b.state(), "open");
    clock.advance(1);
    assert.equal(b.state(), "half_open");
  });

  it("lets another probe through when the first one's outcome never arrives within a cool-down", () => {
    const { clock, breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX);
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    assert.equal(b.tryAcquire(), true);
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS - 1);
    assert.equal(b.tryAcquire(), false);
    clock.advance(1);
    assert.equal(b.tryAcquire(), true);
  });

  it("ignores outcomes observed while open: only the probe decides", () => {
    const { clock, breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX);
    b.observe(true);
    assert.equal(b.state(), "open");
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    assert.equal(b.state(), "half_open");
  });

  it("takes outcomes observed elsewhere (an inquiry) like the router's own calls", () => {
    const { clock, breaker: b } = breaker();
    fail(b, CONNECTOR_BREAKER_FAILURES_MAX);
    clock.advance(CONNECTOR_BREAKER_COOLDOWN_MS);
    b.observe(true);
    assert.equal(b.state(), "closed");
  });

  it("maps its states onto the gauge 0 closed, 1 half-open, 2 open", () => {
    assert.deepEqual(BREAKER_STATE_GAUGE, { closed: 0, half_open: 1, open: 2 });
  });

  it("refuses a threshold below one", () => {
    assert.throws(() => new CircuitBreaker({ clock: new ManualClock(), failuresMax: 0 }));
  });
});
