/**
 * start-output.ts `holdRequestsUntilStarted`: while the service starts, every request is
 * answered 503 SERVICE_UNAVAILABLE in the envelope with Retry-After, and its route never runs;
 * once started, requests reach their routes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify from "fastify";
import { holdRequestsUntilStarted } from "../../src/start-output.ts";

describe("the start gate", () => {
  it("answers 503 with Retry-After in the envelope until started, without running the route; then lets requests through", async () => {
    const app = Fastify();
    const started = holdRequestsUntilStarted(app);
    let ran = 0;
    app.post("/things", async () => {
      ran += 1;
      return { ok: true };
    });
    await app.ready();
    try {
      const early = await app.inject({ method: "POST", url: "/things", payload: { a: 1 } });
      assert.equal(early.statusCode, 503);
      assert.equal(early.headers["retry-after"], "1");
      const body = early.json() as {
        success: boolean;
        error: { code: string; metadata?: { retryAfter?: number } };
      };
      assert.equal(body.success, false);
      assert.equal(body.error.code, "SERVICE_UNAVAILABLE");
      assert.equal(body.error.metadata?.retryAfter, 1);
      assert.equal(ran, 0, "the route did not run");

      started();
      const later = await app.inject({ method: "POST", url: "/things", payload: { a: 1 } });
      assert.equal(later.statusCode, 200);
      assert.deepEqual(later.json(), { ok: true });
      assert.equal(ran, 1);
    } finally {
      await app.close();
    }
  });
});
