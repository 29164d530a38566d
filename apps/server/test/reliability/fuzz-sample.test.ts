/**
 * A small, fixed-seed sample of the fuzzer (`npm run fuzz` runs the full one): every route gets
 * schema-driven requests, mostly valid and partly hostile; none may answer 5xx, and every error
 * must be the envelope with a documented code.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readinessTimeout, runFuzz } from "../../../../reliability/fuzz.ts";
import { encodeSegment } from "../../../../reliability/fuzz-target.ts";

describe("fuzz sample", () => {
  it("finds no 5xx and no answer outside the envelope", async () => {
    const report = await runFuzz({ seed: 42, publicRuns: 25, otherRuns: 8 });
    assert.deepEqual(report.failures, []);
    assert.ok(report.requests.public > 300, JSON.stringify(report.requests));
  });
});

describe("fuzz request building", () => {
  it("sends a lone surrogate in a path as its UTF-8 bytes instead of throwing", () => {
    assert.equal(encodeSegment("\ud800"), "%ED%A0%80");
    assert.equal(encodeSegment("a\udfffb"), "a%ED%BF%BFb");
    assert.equal(encodeSegment("x y\ud83d\ude00"), "x%20y%F0%9F%98%80");
  });

  it("counts only /readyz's 503 with Retry-After as a readiness timeout", () => {
    const body = JSON.stringify({ success: false, error: { code: "SERVICE_UNAVAILABLE", message: "x" } });
    assert.equal(readinessTimeout("/readyz", 503, "2", body), true);
    assert.equal(readinessTimeout("/readyz", 503, undefined, body), false);
    assert.equal(readinessTimeout("/readyz", 500, "2", body), false);
    assert.equal(readinessTimeout("/api/v1/balance", 503, "2", body), false);
  });
});
