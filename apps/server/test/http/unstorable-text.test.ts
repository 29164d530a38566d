/**
 * Text PostgreSQL cannot store (NUL, unpaired surrogates) is refused by validation, on every
 * route, with 400 VALIDATION_ERROR naming the field: every string field of every route's body,
 * query string and path parameters is tried, walking the schemas the routes are validated with.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { deflateSync, gzipSync } from "node:zlib";
import { type Schema, sampleOne, stringFieldPaths, validValue } from "../../../../reliability/fuzz-schema.ts";
import { fillPath, queryString, send, type Target } from "../../../../reliability/fuzz-target.ts";
import { dashboardUser } from "../helpers/dashboard.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";

const BAD_TEXTS = ["a\u0000b", "\ud800x"];

function setAt(target: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(target);
  let node: Record<string, unknown> = copy;
  for (const segment of path.slice(0, -1)) {
    if (typeof node[segment] !== "object" || node[segment] === null) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
  return copy;
}

function schemaAt(schema: Schema, path: string[]): Schema {
  let node: Schema | undefined = schema;
  for (const segment of path) {
    const object: Schema | undefined = node?.properties ? node : node?.anyOf?.find((s) => s.properties);
    node = object?.properties?.[segment];
  }
  return node ?? {};
}

describe("text the database cannot store", () => {
  let svc: TestService;
  let target: Target;
  before(async () => {
    svc = await startService();
    target = { svc, dashboardToken: (await dashboardUser(svc)).token };
  });
  after(async () => {
    await svc.close();
  });

  it("is refused in every string field of every body, naming the field", async () => {
    let tried = 0;
    for (const route of svc.app.routeCatalog) {
      const bodySchema = route.schema?.body as Schema | undefined;
      if (!bodySchema) continue;
      const url = fillPath(route, sampleOne(validValue((route.schema?.params as Schema) ?? {}), 1) as never);
      const valid = sampleOne(validValue(bodySchema, true), 7) as Record<string, unknown>;
      for (const path of stringFieldPaths(bodySchema)) {
        const field = schemaAt(bodySchema, path);
        const freeForm = field.type === "object" && !field.properties;
        const values = freeForm ? BAD_TEXTS.flatMap((bad) => [{ [bad]: "value" }, { key: bad }]) : BAD_TEXTS;
        for (const value of values) {
          const res = await send(target, { method: route.method, url, body: setAt(valid, path, value) });
          const where = `${route.method} ${route.url} ${path.join(".")} ${JSON.stringify(value)}`;
          assert.equal(res.statusCode, 400, `${where}: ${res.body}`);
          assert.equal(res.json().error.code, "VALIDATION_ERROR", where);
          assert.equal(res.json().error.metadata.field, path.join("."), `${where}: ${res.body}`);
          tried += 1;
        }
      }
    }
    // The login email, names, descriptions, metadata, reasons: dozens of fields in all.
    assert.ok(tried > 60, `only ${tried} fields tried`);
  });

  it("is refused in every string query parameter and path parameter", async () => {
    let tried = 0;
    for (const route of svc.app.routeCatalog) {
      const querySchema = route.schema?.querystring as Schema | undefined;
      const paramsSchema = route.schema?.params as Schema | undefined;
      const params = sampleOne(validValue(paramsSchema ?? {}), 3) as Record<string, unknown>;
      // Every other parameter valid (a missing required one would fail first, by field order).
      const validQuery = querySchema
        ? (sampleOne(validValue(querySchema, true), 5) as Record<string, unknown>)
        : {};
      for (const path of querySchema ? stringFieldPaths(querySchema) : []) {
        const url = fillPath(route, params) + queryString({ ...validQuery, [path[0]!]: "a\u0000b" });
        const res = await send(target, {
          method: route.method,
          url,
          ...(route.schema?.body ? { body: {} } : {}),
        });
        assert.equal(res.statusCode, 400, `${route.url} ?${path[0]}: ${res.body}`);
        assert.equal(res.json().error.metadata.field, path[0], `${route.url} ?${path[0]}: ${res.body}`);
        tried += 1;
      }
      for (const name of Object.keys(paramsSchema?.properties ?? {})) {
        const url = fillPath(route, { ...params, [name]: "a\u0000b" });
        const res = await send(target, {
          method: route.method,
          url,
          ...(route.schema?.body ? { body: {} } : {}),
        });
        assert.equal(res.statusCode, 400, `${route.method} ${route.url} :${name}: ${res.body}`);
        assert.equal(res.json().error.metadata.field, name, `${route.url} :${name}: ${res.body}`);
        tried += 1;
      }
    }
    assert.ok(tried > 30, `only ${tried} parameters tried`);
  });
});

describe("a body that is not UTF-8", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  // "name" with an invalid byte (0xff) and a truncated two-byte sequence (0xc3) in its value.
  const bytes = Buffer.concat([
    Buffer.from('{"amount":"100.00","paymentMethod":"promptpay","description":"a'),
    Buffer.from([0xff, 0xc3]),
    Buffer.from('"}'),
  ]);

  it("is 400 VALIDATION_ERROR on a signed route, even when the signature is over those bytes", async () => {
    const { apiKey, apiSecret } = svc.credentials;
    const timestamp = String(Date.now());
    const signature = createHmac("sha256", apiSecret)
      .update(Buffer.concat([Buffer.from(`${timestamp}.`), bytes]))
      .digest("hex");
    const res = await svc.app.inject({
      method: "POST",
      url: "/api/v1/payments",
      payload: bytes,
      headers: {
        "content-type": "application/json",
        "x-api-key": apiKey,
        "x-timestamp": timestamp,
        "x-signature": `sha256=${signature}`,
      },
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error.code, "VALIDATION_ERROR");
    assert.equal(res.json().error.metadata.field, "body");
  });

  it("a body that really is compressed is refused for its Content-Encoding, signed over its bytes", async () => {
    const { apiKey, apiSecret } = svc.credentials;
    for (const [encoding, compressed, contentType] of [
      ["gzip", gzipSync(Buffer.from('{"amount":"100.00"}')), "application/json"],
      ["deflate", deflateSync(Buffer.from('{"amount":"100.00"}')), "application/json"],
      ["gzip", gzipSync(Buffer.from('{"amount":"100.00"}')), "text/plain"],
    ] as const) {
      const timestamp = String(Date.now());
      const signature = createHmac("sha256", apiSecret)
        .update(Buffer.concat([Buffer.from(`${timestamp}.`), compressed]))
        .digest("hex");
      const res = await svc.app.inject({
        method: "POST",
        url: "/api/v1/payments",
        payload: compressed,
        headers: {
          "content-type": contentType,
          "content-encoding": encoding,
          "x-api-key": apiKey,
          "x-timestamp": timestamp,
          "x-signature": `sha256=${signature}`,
        },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error.code, "VALIDATION_ERROR");
      assert.equal(res.json().error.metadata.field, "Content-Encoding", `${encoding} as ${contentType}`);
    }
  });

  it("is refused after authentication and routing: 401 unsigned or mis-signed, 404 on an unknown route", async () => {
    const timestamp = String(Date.now());
    // Signed over the text a lenient decoder would make of the bytes: not what was sent.
    const lenient = createHmac("sha256", svc.credentials.apiSecret)
      .update(`${timestamp}.${bytes.toString("utf8")}`)
      .digest("hex");
    const json = { "content-type": "application/json" };
    const cases: [string, Record<string, string>, number, string][] = [
      ["/api/v1/payments", json, 401, "INVALID_CREDENTIALS"],
      [
        "/api/v1/payments",
        {
          ...json,
          "x-api-key": svc.credentials.apiKey,
          "x-timestamp": timestamp,
          "x-signature": `sha256=${lenient}`,
        },
        401,
        "INVALID_CREDENTIALS",
      ],
      [
        "/admin/v1/merchants",
        { ...json, authorization: "Bearer wrong-token-0123456789" },
        401,
        "INVALID_CREDENTIALS",
      ],
      ["/api/v1/no-such-route", json, 404, "RESOURCE_NOT_FOUND"],
    ];
    for (const [url, headers, status, code] of cases) {
      const res = await svc.app.inject({ method: "POST", url, payload: bytes, headers });
      assert.equal(res.statusCode, status, `${url}: ${res.body}`);
      assert.equal(res.json().error.code, code, `${url}: ${res.body}`);
    }
  });

  it("is 400 VALIDATION_ERROR on login, the operator API and with another content type", async () => {
    const cases = [
      { url: "/api/v1/auth/login", headers: { "content-type": "application/json" } },
      {
        url: "/admin/v1/merchants",
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
      },
      { url: "/api/v1/auth/login", headers: { "content-type": "text/plain" } },
    ];
    for (const { url, headers } of cases) {
      const res = await svc.app.inject({ method: "POST", url, payload: bytes, headers });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.equal(res.json().error.code, "VALIDATION_ERROR");
      assert.equal(res.json().error.metadata.field, "body");
    }
  });
});
