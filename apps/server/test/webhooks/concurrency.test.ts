/**
 * The adaptive per-endpoint concurrency (events/concurrency.ts) and what each attempt outcome
 * says about load (events/attempt-errors.ts), checked without a network.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadSignalOf } from "../../src/events/attempt-errors.ts";
import { AdaptiveConcurrency, type LoadSignal } from "../../src/events/concurrency.ts";

const bounds = { min: 1, initial: 4, max: 32, fastMs: 1_000 };
const ENDPOINT = "endpoint-a";

/** Runs one round: `limit` sends start together and all finish with `signal`. */
function round(limits: AdaptiveConcurrency, signal: LoadSignal, endpoint = ENDPOINT): void {
  const tickets = Array.from({ length: limits.limitOf(endpoint) }, () => limits.started(endpoint));
  for (const ticket of tickets) limits.finished(endpoint, ticket, signal);
}

describe("adaptive per-endpoint concurrency", () => {
  it("starts every endpoint at the initial limit", () => {
    const limits = new AdaptiveConcurrency(bounds);
    assert.equal(limits.limitOf(ENDPOINT), 4);
    assert.deepEqual(limits.adjusted(), []);
  });

  it("grows while the receiver answers fast and is kept busy, up to the ceiling and never beyond", () => {
    const limits = new AdaptiveConcurrency(bounds);
    round(limits, "fast");
    assert.equal(limits.limitOf(ENDPOINT), 8, "slow start: one more per fast success");
    round(limits, "fast");
    assert.equal(limits.limitOf(ENDPOINT), 16);
    for (let i = 0; i < 10; i++) round(limits, "fast");
    assert.equal(limits.limitOf(ENDPOINT), 32, "held at the ceiling");
    assert.deepEqual(limits.adjusted(), [{ endpointId: ENDPOINT, limit: 32 }]);
  });

  it("does not grow on successes that leave most of the limit unused", () => {
    const limits = new AdaptiveConcurrency(bounds);
    for (let i = 0; i < 50; i++) limits.finished(ENDPOINT, limits.started(ENDPOINT), "fast");
    assert.equal(limits.limitOf(ENDPOINT), 4, "one send at a time never needs more than 4");
  });

  it("halves once per round of failures, down to the floor", () => {
    const limits = new AdaptiveConcurrency(bounds);
    for (let i = 0; i < 3; i++) round(limits, "fast");
    assert.equal(limits.limitOf(ENDPOINT), 32);
    round(limits, "overloaded");
    assert.equal(limits.limitOf(ENDPOINT), 16, "32 failures of one burst halve the limit once");
    round(limits, "overloaded");
    assert.equal(limits.limitOf(ENDPOINT), 8);
    for (let i = 0; i < 10; i++) round(limits, "overloaded");
    assert.equal(limits.limitOf(ENDPOINT), 1, "never below the floor");
  });

  it("after a decrease grows by about one per round (additive increase), not by doubling", () => {
    const limits = new AdaptiveConcurrency(bounds);
    for (let i = 0; i < 2; i++) round(limits, "fast");
    round(limits, "overloaded");
    assert.equal(limits.limitOf(ENDPOINT), 8);
    round(limits, "fast");
    assert.equal(limits.limitOf(ENDPOINT), 9);
    round(limits, "fast");
    assert.equal(limits.limitOf(ENDPOINT), 10);
  });

  it("leaves the limit alone on slow successes and on answers that say nothing about load", () => {
    const limits = new AdaptiveConcurrency(bounds);
    round(limits, "slow");
    round(limits, "neutral");
    assert.equal(limits.limitOf(ENDPOINT), 4);
  });

  it("keeps each endpoint's limit to itself", () => {
    const limits = new AdaptiveConcurrency(bounds);
    round(limits, "fast", "fast-endpoint");
    round(limits, "overloaded", "failing-endpoint");
    assert.equal(limits.limitOf("fast-endpoint"), 8);
    assert.equal(limits.limitOf("failing-endpoint"), 2);
    assert.equal(limits.limitOf("other"), 4);
  });
});

describe("what an attempt says about load", () => {
  const outcome = (statusCode: number | null, errorCode: never | string | null, durationMs = 5) =>
    loadSignalOf({ statusCode, errorCode: errorCode as never, durationMs }, 1_000);

  it("a fast 2xx is fast, a slow one is slow", () => {
    assert.equal(outcome(200, null), "fast");
    assert.equal(outcome(204, null, 1_001), "slow");
  });

  it("a 5xx, a 429, a timeout, a refused or reset connection are overload", () => {
    assert.equal(outcome(500, "non_2xx"), "overloaded");
    assert.equal(outcome(503, "non_2xx"), "overloaded");
    assert.equal(outcome(429, "non_2xx"), "overloaded");
    assert.equal(outcome(null, "timeout"), "overloaded");
    assert.equal(outcome(null, "connection_refused"), "overloaded");
    assert.equal(outcome(null, "connection_reset"), "overloaded");
  });

  it("a 4xx, a redirect, a refused URL, a DNS or TLS failure say nothing about load", () => {
    assert.equal(outcome(400, "non_2xx"), "neutral");
    assert.equal(outcome(404, "non_2xx"), "neutral");
    assert.equal(outcome(302, "redirect"), "neutral");
    assert.equal(outcome(null, "url_refused"), "neutral");
    assert.equal(outcome(null, "dns"), "neutral");
    assert.equal(outcome(null, "tls"), "neutral");
  });
});
