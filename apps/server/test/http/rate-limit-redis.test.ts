/**
 * The rate limit's budget shared in Redis (CONTRACT 1 and 10; docs/DEPLOYMENT.md): one budget per
 * integration across app instances, a replayed create given back to it, and a node started while
 * its Redis is down serving (requests let through) and counting once Redis answers.
 *
 * Redis: TEST_REDIS_URL when set (CI sets it), otherwise redis://127.0.0.1:6379. The test runner
 * (scripts/test.mjs) runs a file named *-redis.test.ts when TEST_REDIS_URL is set, and then an
 * unreachable Redis fails it loudly; without TEST_REDIS_URL it runs the file when a Redis answers
 * at the default address and leaves it out otherwise, saying so (a machine with nothing but
 * Node.js has no Redis). Never skipped.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { Redis } from "ioredis";
import { buildApp } from "../../src/app.ts";
import type { Deps } from "../../src/deps.ts";
import { RATE_LIMIT_REDIS_NAMESPACE } from "../../src/http/rate-limit.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { freePort } from "../helpers/pgbouncer.ts";
import { waitFor } from "../helpers/processes.ts";
import { capturedCreate, signedGet, testRoutes } from "../helpers/rate-limit.ts";

const REDIS_URL = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";

describe("rate limit, shared in Redis", () => {
  let svc: TestService;
  let probe: Redis;
  let deps: Deps;
  const wall = new ManualClock(Date.now());

  before(async () => {
    probe = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await probe.connect();
      await probe.ping();
    } catch (err) {
      probe.disconnect();
      throw new Error(
        `Redis is required for these tests and is not reachable at ${REDIS_URL} ` +
          `(set TEST_REDIS_URL or start Redis): ${(err as Error).message}`,
      );
    }
    svc = await startService({ env: { RATE_LIMIT_PER_MINUTE: "5", REDIS_URL } });
    deps = svc.depsWith({ wallClock: wall });
  });
  after(async () => {
    await svc?.close();
    probe?.disconnect();
  });

  it("shares one budget per integration between app instances", async () => {
    assert.equal(deps.config.redisUrl, REDIS_URL);
    const creds = await svc.newMerchant({ name: `Redis Shop ${randomUUID()}` });
    const key = `${RATE_LIMIT_REDIS_NAMESPACE}${creds.integrationId}`;
    const first = await buildApp(deps, { extraApiRoutes: testRoutes });
    const second = await buildApp(deps, { extraApiRoutes: testRoutes });
    try {
      await Promise.all([first.ready(), second.ready()]);
      const order = [first, second, first, second, first];
      for (const [i, app] of order.entries()) {
        const res = await signedGet(app, creds, wall);
        assert.equal(res.statusCode, 200, `request ${i + 1}: ${res.body}`);
        assert.equal(res.headers["x-ratelimit-remaining"], String(4 - i));
      }
      assert.equal(await probe.get(key), "5");
      const refused = await signedGet(second, creds, wall);
      assert.equal(refused.statusCode, 429, refused.body);
      const metadata = refused.json().error.metadata;
      assert.deepEqual(Object.keys(metadata).sort(), ["limit", "remaining", "resetAt", "retryAfter"]);
      assert.equal(metadata.limit, 5);
      assert.equal(metadata.remaining, 0);
      assert.ok(metadata.retryAfter >= 1 && metadata.retryAfter <= 60, String(metadata.retryAfter));
      assert.equal(new Date(metadata.resetAt).toISOString(), metadata.resetAt);
      assert.equal(refused.headers["retry-after"], String(metadata.retryAfter));
      assert.equal((await signedGet(first, creds, wall)).statusCode, 429);

      // Another integration keeps its own budget in the same Redis.
      const other = await svc.newMerchant({ name: "Quiet Redis Shop" });
      assert.equal((await signedGet(second, other, wall)).statusCode, 200);
      await probe.del(`${RATE_LIMIT_REDIS_NAMESPACE}${other.integrationId}`);
    } finally {
      await probe.del(key);
      await first.close();
      await second.close();
    }
  });

  it("gives back a replayed create in the shared window: the count is what the accepted requests spent", async () => {
    const creds = await svc.newMerchant({ name: `Replayed Redis Shop ${randomUUID()}` });
    const key = `${RATE_LIMIT_REDIS_NAMESPACE}${creds.integrationId}`;
    const first = await buildApp(deps, { extraApiRoutes: testRoutes });
    const second = await buildApp(deps, { extraApiRoutes: testRoutes });
    try {
      await Promise.all([first.ready(), second.ready()]);
      const send = capturedCreate(first, creds, wall);
      assert.equal((await send(first)).statusCode, 201);
      for (let i = 0; i < 8; i++) {
        const res = await send(i % 2 === 0 ? second : first);
        assert.equal(res.statusCode, 401, `replay ${i + 1}: ${res.body}`);
        assert.equal(res.headers["x-ratelimit-remaining"], undefined, `replay ${i + 1}`);
      }
      assert.equal(await probe.get(key), "1");
      const next = await signedGet(second, creds, wall);
      assert.equal(next.statusCode, 200, next.body);
      assert.equal(next.headers["x-ratelimit-remaining"], "3");
    } finally {
      await probe.del(key);
      await first.close();
      await second.close();
    }
  });

  it("starts while its Redis is down, lets requests through, and counts once Redis answers", async () => {
    const port = await freePort();
    const redisUrl = `redis://127.0.0.1:${port}`;
    const creds = await svc.newMerchant({ name: `Redis Down Shop ${randomUUID()}` });
    const app = await buildApp(
      { ...deps, config: { ...deps.config, redisUrl } },
      { extraApiRoutes: testRoutes },
    );
    let server: ChildProcess | undefined;
    try {
      await app.ready();
      // RATE_LIMIT_PER_MINUTE is 5: with no Redis, nothing is counted and nothing refused.
      for (let i = 0; i < 8; i += 1) {
        const res = await signedGet(app, creds, wall);
        assert.equal(res.statusCode, 200, `request ${i + 1} with Redis down: ${res.body}`);
      }
      server = spawn(
        process.env.REDIS_SERVER_PATH || "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdio: "ignore" },
      );
      // Redis is back: the node reconnects by itself and the limit holds again.
      const statuses: number[] = [];
      await waitFor(
        "the limit to hold once Redis answers",
        async () => {
          const res = await signedGet(app, creds, wall);
          statuses.push(res.statusCode);
          return res.statusCode === 429;
        },
        20_000,
      );
      // Requests answered before the reconnect were let through uncounted; then five were counted.
      assert.ok(statuses.filter((status) => status === 200).length >= 5, statuses.join(","));
    } finally {
      server?.kill("SIGKILL");
      await app.close();
    }
  });
});
