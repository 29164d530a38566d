import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startService, type TestService } from "../helpers/harness.ts";

describe("envelope and routing", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("answers an unknown route with a 404 envelope and a request id", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/nope" });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().success, false);
    assert.equal(res.json().error.code, "RESOURCE_NOT_FOUND");
    assert.ok(res.headers["x-request-id"]);
  });

  it("keeps a sane caller request id", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/nope", headers: { "x-request-id": "abc-123" } });
    assert.equal(res.headers["x-request-id"], "abc-123");
  });

  it("refuses an unsigned API request with INVALID_CREDENTIALS", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/payments" });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
  });
});

/** Every route of the app as [METHOD, path], read from fastify's own route listing. */
function listRoutes(app: TestService["app"]): Array<[string, string]> {
  const routes: Array<[string, string]> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const match = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (stack[depth - 1] ?? "") + match[2]!;
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of match[3]?.split(", ") ?? []) routes.push([method, path]);
  }
  return routes;
}

/** `/payments/:payment_id/` as the document writes it: `/payments/{payment_id}`. */
const asOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/(.)\/$/, "$1");

interface Operation {
  security?: unknown;
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; description: string };
  servers: Array<{ url: string }>;
  components: { securitySchemes: Record<string, Record<string, string>> };
  paths: Record<string, Record<string, Operation>>;
}

describe("OpenAPI document and docs", () => {
  let svc: TestService;
  let doc: OpenApiDocument;
  before(async () => {
    svc = await startService();
    doc = (await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
  });
  after(async () => {
    await svc.close();
  });

  it("serves an OpenAPI 3.1 document at /api/v1/openapi.json without credentials", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers["content-type"]), /application\/json/);
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.title, "Satang API");
    assert.deepEqual(
      doc.servers.map((server: { url: string }) => server.url),
      ["http://pay.test"],
    );
  });

  it("describes the HMAC headers and the signature rule, and the operator bearer token", () => {
    const schemes = doc.components.securitySchemes;
    assert.deepEqual(schemes.ApiKey, { ...schemes.ApiKey, type: "apiKey", in: "header", name: "X-API-Key" });
    assert.deepEqual(schemes.Timestamp, {
      ...schemes.Timestamp,
      type: "apiKey",
      in: "header",
      name: "X-Timestamp",
    });
    assert.deepEqual(schemes.Signature, {
      ...schemes.Signature,
      type: "apiKey",
      in: "header",
      name: "X-Signature",
    });
    assert.deepEqual(schemes.AdminToken, { ...schemes.AdminToken, type: "http", scheme: "bearer" });
    const description: string = doc.info.description;
    assert.match(description, /HMAC-SHA256\(secret, timestamp \+ "\." \+ raw body\)/);
    assert.match(description, /300 seconds/);
    assert.match(description, /v2=/);
  });

  it("lists every /api/v1 and /admin route of the app, with its security", () => {
    const routes = listRoutes(svc.app).filter(
      ([method, path]) =>
        method !== "HEAD" &&
        (path.startsWith("/api/v1/") || path.startsWith("/admin/")) &&
        path !== "/api/v1/openapi.json" &&
        // The by-reference lookup with an empty reference, which answers 400 (http/empty-reference.ts):
        // the documented by-reference operation with its parameter left out, not one of its own.
        !path.endsWith("/by-reference"),
    );
    assert.ok(
      routes.some(([, path]) => path.startsWith("/api/v1/")),
      "the app has /api/v1 routes",
    );
    for (const [method, path] of routes) {
      const operation = doc.paths[asOpenApiPath(path)]?.[method.toLowerCase()];
      assert.ok(operation, `${method} ${path} is missing from the document`);
      // The dashboard login takes a password and logout the session token it returns
      // (dashboard/auth-routes.ts); everything else under /api/v1 is HMAC-signed.
      const security =
        path === "/api/v1/auth/login"
          ? []
          : path === "/api/v1/auth/logout"
            ? [{ DashboardSession: [] }]
            : path.startsWith("/api/")
              ? [{ ApiKey: [], Timestamp: [], Signature: [] }]
              : [{ AdminToken: [] }];
      assert.deepEqual(operation.security, security, `${method} ${path}`);
      assert.ok(operation.responses["401"], `${method} ${path} has no 401 response`);
    }
    for (const path of Object.keys(doc.paths)) {
      assert.match(path, /^\/(api|admin)\//, `${path} should not be in the API document`);
    }
  });

  it("lists the payments endpoints of interface.md with their schemas", () => {
    const expected: Array<[string, string]> = [
      ["post", "/api/v1/payments"],
      ["get", "/api/v1/payments"],
      ["get", "/api/v1/payments/{payment_id}"],
      ["get", "/api/v1/payments/by-reference/{referenceId}"],
      ["post", "/api/v1/payments/{payment_id}/cancel"],
    ];
    for (const [method, path] of expected) assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
    const create = doc.paths["/api/v1/payments"]!.post!;
    const body = create.requestBody!.content["application/json"]!.schema;
    assert.ok(
      body.properties.amount && body.properties.referenceId,
      "create body schema comes from the route",
    );
    assert.ok(create.responses["429"], "rate-limit refusal is documented");
  });

  it("serves human docs at /docs from local assets only", async () => {
    const page = await svc.app.inject({ method: "GET", url: "/docs" });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers["content-type"]), /text\/html/);
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /default-src 'self'/);
    assert.doesNotMatch(csp, /https?:/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 4, "the page loads its scripts and styles");
    for (const asset of assets) {
      assert.ok(asset.startsWith("/docs/"), `${asset} is not served by this server`);
      const res = await svc.app.inject({ method: "GET", url: asset });
      assert.equal(res.statusCode, 200, asset);
    }
    const initializer = await svc.app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
    assert.match(initializer.body, /validatorUrl: null/);
    const json = await svc.app.inject({ method: "GET", url: "/docs/json" });
    assert.deepEqual(json.json(), doc);
  });
});

describe("router-level errors", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("answers a malformed URL with a 400 envelope and a request id", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/payments/by-reference/%E0%A4%A" });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, "VALIDATION_ERROR");
    assert.ok(res.headers["x-request-id"]);
  });

  it("answers an over-long path parameter with a 400 envelope, not a bare 414", async () => {
    const res = await svc.app.inject({
      method: "GET",
      url: `/api/v1/payments/by-reference/${"a".repeat(2000)}`,
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, "VALIDATION_ERROR");
    assert.ok(res.headers["x-request-id"]);
  });
});

describe("request ids in logs", () => {
  it("logs one line per request at info with the request, status and time, under the request id (the caller's own)", async () => {
    const svc = await startService();
    const lines: string[] = [];
    const stream = { write: (line: string) => lines.push(line) };
    const { buildApp } = await import("../../src/app.ts");
    const app = await buildApp(svc.deps, { logger: { level: "info", stream } });
    try {
      const res = await app.inject({
        method: "GET",
        url: "/healthz",
        headers: { "x-request-id": "trace-42" },
      });
      assert.equal(res.headers["x-request-id"], "trace-42");
      const records = lines.map(
        (line) =>
          JSON.parse(line) as {
            reqId?: string;
            msg?: string;
            req?: { method?: string; url?: string };
            res?: { statusCode?: number };
            responseTime?: number;
          },
      );
      // One line per request at info: the request, its status and its time (http/request-log.ts).
      const ofRequest = records.filter((record) => record.msg === "request completed");
      assert.equal(ofRequest.length, 1);
      assert.equal(records.filter((record) => record.msg === "incoming request").length, 0);
      const [completed] = ofRequest;
      assert.equal(completed!.reqId, "trace-42");
      assert.equal(completed!.req?.method, "GET");
      assert.equal(completed!.req?.url, "/healthz");
      assert.equal(completed!.res?.statusCode, 200);
      assert.equal(typeof completed!.responseTime, "number");

      const fresh = await app.inject({ method: "GET", url: "/healthz" });
      const generated = String(fresh.headers["x-request-id"]);
      assert.match(generated, /^[0-9a-f-]{36}$/);
      assert.ok(lines.some((line) => line.includes(`"reqId":"${generated}"`)));
    } finally {
      await app.close();
      await svc.close();
    }
  });
});

describe("readable validation messages", () => {
  it("explains an unparsable date in words, not with the pattern", async () => {
    const svc = await startService();
    try {
      const res = await svc.request("GET", "/api/v1/payments?dateTo=yesterday");
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, "dateTo");
      assert.match(res.body.error.message, /^dateTo must be an ISO 8601 date/);
      assert.doesNotMatch(res.body.error.message, /pattern/);
      // An offset's + written into the URL unencoded arrives as a space: said so, with the fix.
      const plus = await svc.request("GET", "/api/v1/payments?dateFrom=2026-12-01T00:00:00+07:00");
      assert.equal(plus.status, 400);
      assert.equal(plus.body.error.metadata.field, "dateFrom");
      assert.equal(
        plus.body.error.message,
        "dateFrom has a space where a + was: a + in a query string must be sent as %2B (2026-12-01T00:00:00%2B07:00)",
      );
      const fixed = await svc.request("GET", "/api/v1/payments?dateFrom=2026-12-01T00:00:00%2B07:00");
      assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
      const other = await svc.request("GET", "/api/v1/payments?dateFrom=2026-12-01%20nonsense");
      assert.match(
        other.body.error.message,
        /^dateFrom must be an ISO 8601 date/,
        "a space that is not a + is not",
      );
    } finally {
      await svc.close();
    }
  });
});
