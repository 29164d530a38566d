/**
 * The dashboard's test-clock routes (GET /dashboard/api/clock, POST /dashboard/api/clock/reset):
 * the session's merchant only, sandbox only (live answers 404 like an unknown route).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dashboardUser } from "../helpers/dashboard.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { advanceClock } from "../helpers/lifecycle.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

describe("the dashboard's test clock in sandbox", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  it("reads and resets the session merchant's clock, and no other merchant's", async () => {
    const shop = await svc.newMerchant();
    const other = await svc.newMerchant();
    await advanceClock(svc, shop, 301);
    await advanceClock(svc, other, 60);
    const user = await dashboardUser(svc, shop.merchantId);
    const wall = svc.clock.now();

    const read = await user.request("GET", "/clock");
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.data, {
      now: new Date(wall.getTime() + 301_000).toISOString(),
      offsetSeconds: 301,
    });
    assert.equal(read.headers["cache-control"], "no-store");

    const reset = await user.request("POST", "/clock/reset");
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.deepEqual(reset.body.data, { now: wall.toISOString(), offsetSeconds: 0 });
    const shopClock = await svc.request("GET", "/api/v1/sandbox/clock", undefined, { credentials: shop });
    assert.equal(shopClock.body.data.offsetSeconds, 0);
    const otherClock = await svc.request("GET", "/api/v1/sandbox/clock", undefined, { credentials: other });
    assert.equal(otherClock.body.data.offsetSeconds, 60, "another merchant's clock stays");
  });

  it("needs a session", async () => {
    const res = await svc.app.inject({ method: "POST", url: "/dashboard/api/clock/reset" });
    assert.equal(res.statusCode, 401);
  });
});

describe("the dashboard's test clock in live", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService({
      env: { ...LIVE_PROVIDER_ENV, SATANG_ENV: "live", SECRET_KEY: "ab".repeat(32) },
    });
  });
  after(async () => {
    await svc?.close();
  });

  it("answers 404 RESOURCE_NOT_FOUND", async () => {
    const shop = await svc.newMerchant();
    const user = await dashboardUser(svc, shop.merchantId);
    for (const [method, path] of [
      ["GET", "/clock"],
      ["POST", "/clock/reset"],
    ] as const) {
      const res = await user.request(method, path);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
  });
});
