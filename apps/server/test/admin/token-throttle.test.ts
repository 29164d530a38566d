/**
 * Failed operator tokens per client address (admin/auth.ts): 20 missing or wrong tokens in a
 * sliding minute of the wall clock, then every operator request of that address, right token or
 * wrong, answers 429 RATE_LIMIT_EXCEEDED with Retry-After until its oldest failure is a minute
 * old. Right tokens never count; other addresses are not touched; /metrics shares the window.
 * The wall clock is injected, so the minute passes without waiting.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { ManualClock } from "../../src/lib/clock.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";

/** The default limit (config.ts); the test starts the service with its defaults. */
const OPERATOR_AUTH_FAILURES_PER_MINUTE = 20;

let svc: TestService;
let wall: ManualClock;

before(async () => {
  wall = new ManualClock(Date.now());
  svc = await startService({ deps: { wallClock: wall } });
});
after(async () => {
  await svc.close();
});

async function operator(address: string, token: string | undefined, url = "/admin/v1/operator-tokens") {
  const raw = await svc.app.inject({
    method: "GET",
    url,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    remoteAddress: address,
  });
  const json = String(raw.headers["content-type"]).includes("application/json");
  return {
    status: raw.statusCode,
    body: json ? raw.json() : raw.body,
    retryAfter: raw.headers["retry-after"],
  };
}

/** `GET /metrics` of `service` from `address` with `token`. */
function scrapeMetrics(service: TestService, address: string, token: string) {
  return service.app.inject({
    method: "GET",
    url: "/metrics",
    headers: { authorization: `Bearer ${token}` },
    remoteAddress: address,
  });
}

describe("failed METRICS_TOKENs", () => {
  it("count in the same limit: a wrong one 20 times, then 429 for the address, the right one too", async () => {
    const metricsWall = new ManualClock(Date.now());
    const metrics = await startService({
      deps: { wallClock: metricsWall },
      env: { METRICS_TOKEN: "metrics-0123456789abcdef" },
    });
    try {
      const scrape = (token: string) => scrapeMetrics(metrics, "192.0.2.30", token);
      for (let i = 0; i < OPERATOR_AUTH_FAILURES_PER_MINUTE; i++) {
        assert.equal((await scrape(`wrong-${i}`)).statusCode, 401);
      }
      const refused = await scrape("metrics-0123456789abcdef");
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().error.code, "RATE_LIMIT_EXCEEDED");
      assert.equal(refused.headers["retry-after"], "60");
      metricsWall.advance(60_000);
      assert.equal((await scrape("metrics-0123456789abcdef")).statusCode, 200);
    } finally {
      await metrics.close();
    }
  });
});

describe("failed operator tokens per address", () => {
  it("refuses the address after the limit's failures, the right token too, until the minute passes", async () => {
    const address = "192.0.2.21";
    for (let i = 0; i < OPERATOR_AUTH_FAILURES_PER_MINUTE; i++) {
      // Every kind of failure counts: a wrong token, a missing one.
      const failed = await operator(address, i % 2 === 0 ? `sat_op_wrong${i}` : undefined);
      assert.equal(failed.status, 401, `failure ${i + 1} is within the limit`);
      assert.equal(failed.body.error.code, "INVALID_CREDENTIALS");
      wall.advance(1_000);
    }
    const refused = await operator(address, ADMIN_TOKEN);
    assert.equal(refused.status, 429, "the right token is refused once the address is over its failures");
    assert.equal(refused.body.error.code, "RATE_LIMIT_EXCEEDED");
    const metadata = refused.body.error.metadata;
    assert.equal(metadata.limit, OPERATOR_AUTH_FAILURES_PER_MINUTE);
    assert.equal(metadata.remaining, 0);
    // The first failure was 20 s ago: its minute ends in 40 s.
    assert.equal(metadata.retryAfter, 40);
    assert.equal(refused.retryAfter, "40");
    assert.equal(new Date(metadata.resetAt).getTime(), wall.now().getTime() + 40_000);

    // A refused request is not a failure of its own: the window still ends when the first does.
    assert.equal((await operator(address, "sat_op_wrong")).status, 429);
    wall.advance(39_000);
    assert.equal((await operator(address, ADMIN_TOKEN)).status, 429, "one second before the oldest leaves");
    wall.advance(1_000);
    const again = await operator(address, ADMIN_TOKEN);
    assert.equal(again.status, 200, "the oldest failure left the window");
    // Nineteen failures are still inside it: one more fills it again.
    assert.equal((await operator(address, "sat_op_wrong")).status, 401);
    assert.equal((await operator(address, ADMIN_TOKEN)).status, 429);
    wall.advance(61_000);
    assert.equal((await operator(address, ADMIN_TOKEN)).status, 200);
  });

  it("does not count the right token, and one address's failures leave the others alone", async () => {
    const busy = "192.0.2.22";
    for (let i = 0; i < OPERATOR_AUTH_FAILURES_PER_MINUTE * 2; i++) {
      assert.equal((await operator(busy, ADMIN_TOKEN)).status, 200, `right token ${i + 1}`);
    }
    const attacker = "192.0.2.23";
    for (let i = 0; i < OPERATOR_AUTH_FAILURES_PER_MINUTE; i++) await operator(attacker, "sat_op_guess");
    assert.equal((await operator(attacker, ADMIN_TOKEN)).status, 429);
    assert.equal((await operator(busy, ADMIN_TOKEN)).status, 200, "another address is not refused");
    for (let i = 0; i < OPERATOR_AUTH_FAILURES_PER_MINUTE - 1; i++) {
      assert.equal((await operator(busy, "sat_op_typo")).status, 401);
    }
    assert.equal((await operator(busy, ADMIN_TOKEN)).status, 200, "one failure short of the limit");
    wall.advance(61_000);
  });

  it("counts /metrics's operator check in the same window", async () => {
    const address = "192.0.2.24";
    for (let i = 0; i < OPERATOR_AUTH_FAILURES_PER_MINUTE; i++) {
      assert.equal((await operator(address, "sat_op_guess", "/metrics")).status, 401);
    }
    assert.equal(
      (await operator(address, ADMIN_TOKEN)).status,
      429,
      "the operator API refuses the address too",
    );
    assert.equal((await operator(address, ADMIN_TOKEN, "/metrics")).status, 429);
    wall.advance(61_000);
    assert.equal((await operator(address, ADMIN_TOKEN, "/metrics")).status, 200);
  });

  it("checks no more than the limit's worth of wrong tokens sent at once; the rest are 429, the right one too", async () => {
    const address = "192.0.2.25";
    // The right token 71st of 80 sent together: before the failures were counted, it was checked.
    const tokens = Array.from({ length: 80 }, (_, i) => (i === 70 ? ADMIN_TOKEN : `sat_op_burst${i}`));
    const answers = await Promise.all(tokens.map((token) => operator(address, token)));
    const statuses = answers.map((answer) => answer.status);
    assert.equal(statuses.filter((status) => status === 401).length, OPERATOR_AUTH_FAILURES_PER_MINUTE);
    assert.equal(statuses.filter((status) => status === 429).length, 80 - OPERATOR_AUTH_FAILURES_PER_MINUTE);
    assert.equal(
      statuses[70],
      429,
      "the right token sent after the limit's worth of wrong ones is not checked",
    );
    wall.advance(61_000);
  });

  it("lets many right tokens sent at once through", async () => {
    const answers = await Promise.all(
      Array.from({ length: OPERATOR_AUTH_FAILURES_PER_MINUTE * 2 }, () =>
        operator("192.0.2.26", ADMIN_TOKEN),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array(OPERATOR_AUTH_FAILURES_PER_MINUTE * 2).fill(200),
    );
  });

  it("documents the refusal on every operator operation", async () => {
    const raw = await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    const doc = raw.json();
    const operation = doc.paths["/admin/v1/operator-tokens"].get;
    const tooMany = operation.responses["429"];
    assert.ok(tooMany, "the operator API's 429 is documented");
    assert.match(JSON.stringify(tooMany), /RATE_LIMIT_EXCEEDED/);
    assert.match(
      JSON.stringify(tooMany),
      new RegExp(`${OPERATOR_AUTH_FAILURES_PER_MINUTE} times within a minute`),
    );
  });
});

describe("tokens the store could not check", () => {
  it("count as failures, so while the store fails a wrong token is no cheaper and ADMIN_TOKEN (checked in memory) is not told apart", async () => {
    const outageWall = new ManualClock(Date.now());
    const outage = await startService({ deps: { wallClock: outageWall } });
    try {
      const metrics = (token: string) => scrapeMetrics(outage, "192.0.2.40", token);
      assert.equal((await metrics(ADMIN_TOKEN)).statusCode, 200);
      // The named tokens' lookup fails: every token but ADMIN_TOKEN is answered with an error.
      await sql`ALTER TABLE operator_tokens RENAME TO operator_tokens_away`.execute(outage.deps.db);
      try {
        for (let i = 0; i < OPERATOR_AUTH_FAILURES_PER_MINUTE; i++) {
          const faulted = await metrics(`wrong-token-${i}`);
          assert.ok(faulted.statusCode >= 500, `${faulted.statusCode} ${faulted.body}`);
        }
        const right = await metrics(ADMIN_TOKEN);
        assert.equal(right.statusCode, 429, right.body);
        assert.equal(right.headers["retry-after"], "60");
      } finally {
        await sql`ALTER TABLE operator_tokens_away RENAME TO operator_tokens`.execute(outage.deps.db);
      }
      outageWall.advance(60_000);
      assert.equal((await metrics(ADMIN_TOKEN)).statusCode, 200);
    } finally {
      await outage.close();
    }
  });
});
