/**
 * A small, fixed-seed sample of the fuzzer (`npm run fuzz` runs the full one): every route gets
 * schema-driven requests, mostly valid and partly hostile; none may answer 5xx, and every error
 * must be the envelope with a documented code.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runFuzz } from "../../../../reliability/fuzz.ts";

describe("fuzz sample", () => {
  it("finds no 5xx and no answer outside the envelope", async () => {
    const report = await runFuzz({ seed: 42, publicRuns: 25, otherRuns: 8 });
    assert.deepEqual(report.failures, []);
    assert.ok(report.requests.public > 300, JSON.stringify(report.requests));
  });
});
