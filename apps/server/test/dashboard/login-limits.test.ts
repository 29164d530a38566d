/**
 * Login throttling beyond the per-email lockout: a per-address limit per minute (429 with
 * Retry-After) and a bounded queue in front of argon2 (at most LOGIN_HASHES_MAX checks at once,
 * at most LOGIN_QUEUE_MAX waiting, then 503 with Retry-After). The wall clock is injected, so
 * the minute passes without waiting.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  createPasswordQueue,
  PASSWORD_QUEUE_RETRY_AFTER_S,
  passwordQueueOf,
} from "../../src/dashboard/password-queue.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import type { AppError } from "../../src/lib/errors.ts";
import { startService, type TestService } from "../helpers/harness.ts";

const PER_ADDRESS = 3;
const HASHES_MAX = 2;
const QUEUE_MAX = 3;

let svc: TestService;
let wall: ManualClock;
let counter = 0;

before(async () => {
  wall = new ManualClock(Date.now());
  svc = await startService({
    deps: { wallClock: wall },
    config: { login: { perAddressPerMinute: PER_ADDRESS, hashesMax: HASHES_MAX, queueMax: QUEUE_MAX } },
  });
});
after(async () => {
  await svc.close();
});

function uniqueEmail(): string {
  counter += 1;
  return `limits-${process.pid}-${counter}@shop.example`;
}

async function login(address: string, email = uniqueEmail()) {
  const raw = await svc.app.inject({
    method: "POST",
    url: "/api/v1/auth/login",
    payload: JSON.stringify({ email, password: "not the password" }),
    headers: { "content-type": "application/json" },
    remoteAddress: address,
  });
  return { status: raw.statusCode, body: raw.json(), retryAfter: raw.headers["retry-after"] };
}

describe("per-address login limit", () => {
  it("admits exactly the limit per minute, refuses one more with 429 and Retry-After", async () => {
    const address = "192.0.2.10";
    for (let i = 0; i < PER_ADDRESS; i++) {
      assert.equal((await login(address)).status, 401, `attempt ${i + 1} is within the limit`);
    }
    const over = await login(address);
    assert.equal(over.status, 429);
    assert.equal(over.body.error.code, "RATE_LIMIT_EXCEEDED");
    assert.equal(over.body.error.metadata.limit, PER_ADDRESS);
    assert.ok(
      Number(over.retryAfter) >= 1 && Number(over.retryAfter) <= 60,
      `Retry-After ${over.retryAfter}`,
    );
    // Another address is not affected.
    assert.equal((await login("192.0.2.11")).status, 401);
    // A refused attempt is not counted: once the minute has passed the address may try again.
    wall.advance(60_000);
    assert.equal((await login(address)).status, 401);
  });
});

describe("bounded password-check queue", () => {
  it("never runs more than LOGIN_HASHES_MAX checks at once and refuses the excess with 503", async () => {
    const queue = passwordQueueOf(svc.deps, { running: HASHES_MAX, waiting: QUEUE_MAX });
    const flood = 24;
    const results = await Promise.all(Array.from({ length: flood }, (_, i) => login(`198.51.100.${i + 1}`)));
    assert.ok(queue.peakInFlight() <= HASHES_MAX, `peak ${queue.peakInFlight()} checks at once`);
    assert.equal(queue.inFlight(), 0);
    assert.equal(queue.waiting(), 0);
    const refused = results.filter((r) => r.status === 503);
    const checked = results.filter((r) => r.status === 401);
    assert.equal(refused.length + checked.length, flood, JSON.stringify(results.map((r) => r.status)));
    assert.ok(checked.length >= HASHES_MAX + QUEUE_MAX, `${checked.length} logins were checked`);
    for (const r of refused) {
      assert.equal(r.body.error.code, "SERVICE_UNAVAILABLE");
      assert.ok(Number(r.retryAfter) >= 1, `Retry-After ${r.retryAfter}`);
    }
  });

  it("holds exactly LOGIN_HASHES_MAX running and LOGIN_QUEUE_MAX waiting; one more is 503", async () => {
    const queue = createPasswordQueue({ running: HASHES_MAX, waiting: QUEUE_MAX });
    const releases: Array<() => void> = [];
    const check = () => new Promise<void>((resolve) => releases.push(resolve));
    const admitted = Array.from({ length: HASHES_MAX + QUEUE_MAX }, () => queue.run(check));
    assert.equal(queue.inFlight(), HASHES_MAX);
    assert.equal(queue.waiting(), QUEUE_MAX);
    await assert.rejects(queue.run(check), (error: AppError<"SERVICE_UNAVAILABLE">) => {
      assert.equal(error.code, "SERVICE_UNAVAILABLE");
      assert.equal(error.metadata?.retryAfter, PASSWORD_QUEUE_RETRY_AFTER_S);
      return true;
    });
    // Finishing checks hands turns to the waiting ones, never more than the bound at once.
    while (releases.length > 0 || queue.inFlight() > 0) {
      assert.ok(queue.inFlight() <= HASHES_MAX);
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(admitted);
    assert.equal(queue.peakInFlight(), HASHES_MAX);
    assert.equal(queue.waiting(), 0);
  });
});
