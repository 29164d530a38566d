/**
 * Operations endpoints (CONTRACT 14): liveness, readiness against the database, Prometheus
 * metrics. None needs authentication.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance } from "fastify";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { buildApp } from "../../src/app.ts";
import type { Database } from "../../src/db/types.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";

const OPERATOR = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** A database that refuses every connection: nothing listens on port 1. */
function unreachableDatabase(): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/none", max: 1 });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort();
  for (const line of metrics.split("\n")) {
    const match = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2]!.split(",").sort();
    if (wanted.every((pair) => present.includes(pair)) && present.length === wanted.length) {
      return Number(match[3]);
    }
  }
  return undefined;
}

describe("operations endpoints", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("answers /healthz with 200 and the envelope, without credentials", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/healthz" });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { success: true, data: { status: "ok" } });
    assert.ok(res.headers["x-request-id"]);
  });

  it("answers /readyz with 200 when the database answers", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/readyz" });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().success, true);
    assert.equal(res.json().data.status, "ready");
  });

  it("answers /readyz with 503 SERVICE_UNAVAILABLE while /healthz stays 200 when the database is down", async () => {
    const db = unreachableDatabase();
    const app = await buildApp({ ...svc.deps, db, databaseReachable: undefined });
    try {
      const ready = await app.inject({ method: "GET", url: "/readyz" });
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.json().success, false);
      assert.equal(ready.json().error.code, "SERVICE_UNAVAILABLE");
      assert.doesNotMatch(ready.body, /ECONNREFUSED|127\.0\.0\.1/);
      assert.ok(ready.headers["x-request-id"]);
      const live = await app.inject({ method: "GET", url: "/healthz" });
      assert.equal(live.statusCode, 200);
    } finally {
      await app.close();
      await db.destroy();
    }
  });

  it("serves Prometheus metrics with process metrics and requests by method, route pattern and status", async () => {
    const app: FastifyInstance = await buildApp(svc.deps, {
      extraApiRoutes: async (api) => {
        api.get("/test/items/:id", async () => ({ success: true, data: {} }));
      },
    });
    try {
      for (let i = 0; i < 3; i++) await app.inject({ method: "GET", url: "/healthz" });
      await app.inject({ method: "GET", url: "/api/v1/test/items/abc" });
      await app.inject({ method: "GET", url: "/api/v1/test/items/def" });
      await app.inject({ method: "GET", url: "/no/such/route" });

      const res = await app.inject({ method: "GET", url: "/metrics", headers: OPERATOR });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
      const text = res.body;
      assert.match(text, /^process_cpu_user_seconds_total /m);
      assert.match(text, /^nodejs_heap_size_used_bytes /m);
      assert.match(text, /^# TYPE satang_http_request_duration_seconds histogram$/m);

      const counter = "satang_http_requests_total";
      assert.equal(sample(text, counter, { method: "GET", route: "/healthz", status_code: "200" }), 3);
      // Unauthenticated, so refused: counted under the route pattern, never the raw path.
      assert.equal(
        sample(text, counter, { method: "GET", route: "/api/v1/test/items/:id", status_code: "401" }),
        2,
      );
      assert.doesNotMatch(text, /items\/abc/);
      assert.equal(sample(text, counter, { method: "GET", route: "unmatched", status_code: "404" }), 1);
      assert.equal(
        sample(text, "satang_http_request_duration_seconds_count", {
          method: "GET",
          route: "/healthz",
          status_code: "200",
        }),
        3,
      );
      // The app built by the harness counts its own requests only.
      const own = await svc.app.inject({ method: "GET", url: "/metrics", headers: OPERATOR });
      assert.equal(
        sample(own.body, counter, { method: "GET", route: "/api/v1/test/items/:id", status_code: "401" }),
        undefined,
      );
    } finally {
      await app.close();
    }
  });

  it("answers /metrics only to the operator token, or to METRICS_TOKEN when it is set", async () => {
    for (const headers of [{}, { authorization: "Bearer wrong-token-0123456789" }]) {
      const res = await svc.app.inject({ method: "GET", url: "/metrics", headers });
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
    }
    const token = "metrics-token-0123456789";
    const app = await buildApp({
      ...svc.deps,
      config: { ...svc.deps.config, metrics: { token, port: undefined } },
    });
    try {
      const own = await app.inject({
        method: "GET",
        url: "/metrics",
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(own.statusCode, 200);
      const operator = await app.inject({ method: "GET", url: "/metrics", headers: OPERATOR });
      assert.equal(operator.statusCode, 401, "METRICS_TOKEN replaces the operator token here");
    } finally {
      await app.close();
    }
  });

  it("leaves /metrics off the API port when METRICS_PORT is set", async () => {
    const app = await buildApp({
      ...svc.deps,
      config: { ...svc.deps.config, metrics: { token: undefined, port: 0 } },
    });
    try {
      const res = await app.inject({ method: "GET", url: "/metrics", headers: OPERATOR });
      assert.equal(res.statusCode, 404);
      assert.match((await app.renderMetrics()).text, /^process_cpu_user_seconds_total /m);
    } finally {
      await app.close();
    }
  });

  it("keeps the operations endpoints out of the API document", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    const paths = Object.keys(res.json().paths ?? {});
    for (const path of ["/healthz", "/readyz", "/metrics"]) assert.ok(!paths.includes(path), path);
  });
});
