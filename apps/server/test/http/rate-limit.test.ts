/**
 * Rate limit per integration (interface.md "Limits", CONTRACT 1 and 10): the budget, the 429
 * envelope and headers, independence of integrations, the wall-clock window, the order after
 * authentication. The budget shared in Redis is in rate-limit-redis.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import type { Deps } from "../../src/deps.ts";
import { createIntegration } from "../../src/integrations/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import {
  RATE_LIMIT_LIVE_PER_MINUTE,
  RATE_LIMIT_SANDBOX_PER_MINUTE,
  RATE_LIMIT_WINDOW_MS,
} from "../../src/lib/limits.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { capturedCreate, signedGet, testRoutes } from "../helpers/rate-limit.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

function assertRefused(res: LightMyRequestResponse, limit: number, resetAt: Date, retryAfter: number) {
  assert.equal(res.statusCode, 429, res.body);
  const body = res.json();
  assert.equal(body.success, false);
  assert.equal(body.error.code, "RATE_LIMIT_EXCEEDED");
  assert.deepEqual(body.error.metadata, {
    limit,
    remaining: 0,
    resetAt: resetAt.toISOString(),
    retryAfter,
  });
  assert.equal(res.headers["retry-after"], String(retryAfter));
  assert.equal(res.headers["x-ratelimit-limit"], String(limit));
  assert.equal(res.headers["x-ratelimit-remaining"], "0");
  assert.equal(res.headers["x-ratelimit-reset"], String(retryAfter));
  assert.ok(res.headers["x-request-id"]);
}

describe("rate limit, in memory", () => {
  const wall = new ManualClock(Date.UTC(2026, 4, 1, 8, 0, 0));
  let svc: TestService;
  let deps: Deps;
  let app: FastifyInstance;

  before(async () => {
    svc = await startService({ env: { RATE_LIMIT_PER_MINUTE: "5" } });
    deps = svc.depsWith({ wallClock: wall });
    app = await buildApp(deps, { extraApiRoutes: testRoutes });
    await app.ready();
  });
  after(async () => {
    await app?.close();
    await svc?.close();
  });

  it("lets exactly 5 requests through and refuses the 6th with 429 RATE_LIMIT_EXCEEDED", async () => {
    assert.equal(deps.config.rateLimitPerMinute, 5);
    const creds = await svc.newMerchant({ name: "Busy Shop" });
    const windowStart = wall.now();
    for (let i = 1; i <= 5; i++) {
      const res = await signedGet(app, creds, wall);
      assert.equal(res.statusCode, 200, `request ${i}: ${res.body}`);
      assert.equal(res.headers["x-ratelimit-limit"], "5");
      assert.equal(res.headers["x-ratelimit-remaining"], String(5 - i));
      assert.equal(res.headers["x-ratelimit-reset"], "60");
      assert.equal(res.headers["retry-after"], undefined);
    }
    wall.advance(20_000);
    const refused = await signedGet(app, creds, wall);
    assertRefused(refused, 5, new Date(windowStart.getTime() + RATE_LIMIT_WINDOW_MS), 40);
    // Refused requests keep being refused until the window ends.
    assertRefused(await signedGet(app, creds, wall), 5, new Date(windowStart.getTime() + 60_000), 40);
  });

  it("keeps an independent budget for each integration", async () => {
    const first = await svc.newMerchant({ name: "First Shop" });
    const second = await svc.newMerchant({ name: "Second Shop" });
    const sibling = await createIntegration(deps, first.merchantId, { name: "second key" });
    const siblingCreds = {
      ...first,
      integrationId: sibling.id,
      apiKey: sibling.apiKey,
      apiSecret: sibling.apiSecret,
    };
    for (let i = 0; i < 5; i++) assert.equal((await signedGet(app, first, wall)).statusCode, 200);
    assert.equal((await signedGet(app, first, wall)).statusCode, 429);
    for (const creds of [second, siblingCreds]) {
      for (let i = 1; i <= 5; i++) {
        const res = await signedGet(app, creds, wall);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers["x-ratelimit-remaining"], String(5 - i));
      }
      assert.equal((await signedGet(app, creds, wall)).statusCode, 429);
    }
  });

  it("opens a new window after 60 s of wall-clock time; the business clock does not count", async () => {
    const creds = await svc.newMerchant({ name: "Patient Shop" });
    const start = wall.now().getTime();
    for (let i = 0; i < 5; i++) assert.equal((await signedGet(app, creds, wall)).statusCode, 200);
    const businessBefore = svc.clock.now().getTime();
    svc.clock.advance(3600_000);
    try {
      assert.equal((await signedGet(app, creds, wall)).statusCode, 429);
    } finally {
      svc.clock.set(businessBefore);
    }
    wall.set(start + RATE_LIMIT_WINDOW_MS - 1);
    assertRefused(await signedGet(app, creds, wall), 5, new Date(start + RATE_LIMIT_WINDOW_MS), 1);
    wall.set(start + RATE_LIMIT_WINDOW_MS);
    const res = await signedGet(app, creds, wall);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers["x-ratelimit-remaining"], "4");
  });

  it("does not count requests that fail authentication against the integration", async () => {
    const creds = await svc.newMerchant({ name: "Attacked Shop" });
    for (let i = 0; i < 12; i++) {
      const res = await signedGet(app, creds, wall, "sec_wrong");
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
      assert.equal(res.headers["x-ratelimit-limit"], undefined);
    }
    for (let i = 0; i < 5; i++) assert.equal((await signedGet(app, creds, wall)).statusCode, 200);
    assert.equal((await signedGet(app, creds, wall)).statusCode, 429);
  });

  it("gives back a replayed create: refused as a replay, it spends nothing of the budget", async () => {
    const creds = await svc.newMerchant({ name: "Replayed Shop" });
    const create = capturedCreate(app, creds, wall);
    const send = () => create();
    const created = await send();
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers["x-ratelimit-remaining"], "4");
    // More replays than the budget holds: each is the replay refusal, without rate-limit headers.
    for (let i = 0; i < 12; i++) {
      const res = await send();
      assert.equal(res.statusCode, 401, `replay ${i + 1}: ${res.body}`);
      assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
      assert.equal(res.json().error.metadata.reason, "replayed");
      assert.equal(res.headers["x-ratelimit-limit"], undefined, `replay ${i + 1}`);
      assert.equal(res.headers["x-ratelimit-remaining"], undefined, `replay ${i + 1}`);
    }
    // Sent together, as a flood of one captured request would be.
    const together = await Promise.all(Array.from({ length: 8 }, send));
    assert.deepEqual(
      together.map((res) => res.statusCode),
      together.map(() => 401),
    );
    const next = await signedGet(app, creds, wall);
    assert.equal(next.statusCode, 200, next.body);
    assert.equal(next.headers["x-ratelimit-remaining"], "3");
  });

  it("counts an authenticated request whatever its body, so bad bodies cannot flood the API", async () => {
    const creds = await svc.newMerchant({ name: "Sloppy Shop" });
    // Each request a timestamp of its own: the same body signed at the same millisecond would be
    // a replay (401), which random offsets drew now and then.
    let sent = 0;
    const badPost = () => {
      const body = "{not json";
      sent += 1;
      const headers = signRequest({
        apiKey: creds.apiKey,
        apiSecret: creds.apiSecret,
        body,
        timestamp: wall.now().getTime() + sent,
      });
      return app.inject({
        method: "POST",
        url: "/api/v1/test/ping",
        payload: body,
        headers: { ...headers, "content-type": "application/json" },
      });
    };
    for (let i = 1; i <= 5; i++) {
      const res = await badPost();
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.headers["x-ratelimit-remaining"], String(5 - i));
    }
    assert.equal((await badPost()).statusCode, 429);
    assert.equal((await signedGet(app, creds, wall)).statusCode, 429);
  });

  it("leaves the routes outside /api/v1 unlimited", async () => {
    for (let i = 0; i < 8; i++) {
      const res = await app.inject({ method: "GET", url: "/healthz" });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers["x-ratelimit-limit"], undefined);
    }
  });
});

describe("rate limit defaults", () => {
  it("is 100 per minute in sandbox and 1000 in live, unless RATE_LIMIT_PER_MINUTE overrides", () => {
    assert.equal(RATE_LIMIT_SANDBOX_PER_MINUTE, 100);
    assert.equal(RATE_LIMIT_LIVE_PER_MINUTE, 1000);
    const secret = { SECRET_KEY: "ab".repeat(32) };
    assert.equal(loadConfig({}).rateLimitPerMinute, 100);
    assert.equal(loadConfig({ SATANG_ENV: "sandbox" }).rateLimitPerMinute, 100);
    assert.equal(
      loadConfig({ SATANG_ENV: "live", ...secret, ...LIVE_PROVIDER_ENV }).rateLimitPerMinute,
      1000,
    );
    assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: "7" }).rateLimitPerMinute, 7);
    assert.equal(
      loadConfig({ SATANG_ENV: "live", RATE_LIMIT_PER_MINUTE: "7", ...secret, ...LIVE_PROVIDER_ENV })
        .rateLimitPerMinute,
      7,
    );
    assert.throws(() => loadConfig({ RATE_LIMIT_PER_MINUTE: "0" }), /RATE_LIMIT_PER_MINUTE/);
    assert.throws(() => loadConfig({ RATE_LIMIT_PER_MINUTE: "ten" }), /RATE_LIMIT_PER_MINUTE/);
  });

  it("applies the environment's default to the API", async () => {
    const svc = await startService();
    const apps: FastifyInstance[] = [];
    try {
      for (const [env, limit] of [
        ["sandbox", "100"],
        ["live", "1000"],
      ] as const) {
        const config = loadConfig({ SATANG_ENV: env, SECRET_KEY: "cd".repeat(32), ...LIVE_PROVIDER_ENV });
        const app = await buildApp({ ...svc.deps, config }, { extraApiRoutes: testRoutes });
        apps.push(app);
        const res = await signedGet(app, svc.credentials, new ManualClock(Date.now()));
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers["x-ratelimit-limit"], limit);
        assert.equal(res.headers["x-ratelimit-remaining"], String(Number(limit) - 1));
      }
    } finally {
      for (const app of apps) await app.close();
      await svc.close();
    }
  });
});
