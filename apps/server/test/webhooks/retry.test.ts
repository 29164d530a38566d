/**
 * The retry schedule of webhook deliveries (events/retry.ts), checked without a network: the
 * published delays, the jitter that only ever shortens a wait, and the end after attempt 10.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { retryDelayMs } from "../../src/events/retry.ts";
import { WEBHOOK_ATTEMPTS_MAX, WEBHOOK_RETRY_DELAYS_MS } from "../../src/lib/limits.ts";

describe("the webhook retry schedule", () => {
  it("waits the published delay after each failed attempt when the jitter draws nothing", () => {
    for (let attempt = 1; attempt < WEBHOOK_ATTEMPTS_MAX; attempt++) {
      assert.equal(
        retryDelayMs(attempt, () => 0, 0.1),
        WEBHOOK_RETRY_DELAYS_MS[attempt - 1],
      );
    }
  });

  it("shortens a wait by at most the jitter fraction, never lengthens it", () => {
    const nominal = WEBHOOK_RETRY_DELAYS_MS[0]!;
    assert.equal(
      retryDelayMs(1, () => 0.999_999, 0.1),
      Math.round(nominal * (1 - 0.1 * 0.999_999)),
    );
    assert.equal(
      retryDelayMs(1, () => 5, 0.1),
      Math.round(nominal * 0.9),
      "a draw above 1 counts as 1",
    );
    assert.equal(
      retryDelayMs(1, () => -5, 0.1),
      nominal,
      "a draw below 0 counts as 0",
    );
  });

  it("has no further attempt after the last one", () => {
    assert.equal(
      retryDelayMs(WEBHOOK_ATTEMPTS_MAX, () => 0, 0.1),
      undefined,
    );
  });
});
