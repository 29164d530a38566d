/**
 * HMAC authentication of the public API: every rule of interface.md "Authentication" and
 * CONTRACT 3. The app is built here over the harness's database with a manual wall clock, so
 * the timestamp tolerance is tested at its exact edges without waiting, and with a few
 * authenticated test routes inside the /api/v1 scope, so these tests do not depend on any
 * business route.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { FastifyInstance, FastifyPluginAsync, LightMyRequestResponse } from "fastify";
import { buildApp } from "../../src/app.ts";
import { openStore, type Store } from "../../src/db/connect.ts";
import type { Deps } from "../../src/deps.ts";
import { AUTH_FAILURE_REASONS } from "../../src/http/auth.ts";
import { revokeIntegration } from "../../src/integrations/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { BODY_SIZE_MAX_BYTES, TIMESTAMP_TOLERANCE_MS } from "../../src/lib/limits.ts";
import { updateMerchant } from "../../src/merchants/service.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";

const GENERIC_MESSAGE = "Invalid API credentials or signature";

/** Authenticated routes for these tests only; they answer with who the caller is. */
const testRoutes: FastifyPluginAsync = async (api) => {
  const whoami = async (request: { auth?: { merchant: { id: string }; integration: { id: string } } }) => ({
    success: true,
    data: { merchantId: request.auth?.merchant.id, integrationId: request.auth?.integration.id },
  });
  // The query the signing tests send (a route refuses a parameter it does not name).
  const query = { schema: { querystring: { type: "object", properties: { page: { type: "string" } } } } };
  api.get("/test/whoami", query, whoami);
  api.post("/test/whoami", query, whoami);
  api.get("/test/other", query, whoami);
  api.post(
    "/test/echo",
    {
      schema: {
        body: {
          type: "object",
          required: ["a"],
          properties: { a: { type: "string" } },
          additionalProperties: false,
        },
      },
    },
    async (request) => ({ success: true, data: request.body }),
  );
};

interface SendOptions {
  credentials?: Credentials;
  /** Exact body text to send; signed as is unless signBody says otherwise. */
  body?: string;
  /** Text the signature is computed over, when it should differ from the body sent. */
  signBody?: string;
  timestamp?: number | string;
  version?: "v1" | "v2";
  /** Method and path the v2 signature is computed over, when they should differ. */
  signMethod?: string;
  signPath?: string;
  /** Headers merged last: a value of undefined removes the header. */
  headers?: Record<string, string | undefined>;
  contentType?: string | undefined;
}

describe("HMAC authentication", () => {
  const wall = new ManualClock(Date.UTC(2026, 2, 1, 9, 0, 0));
  let svc: TestService;
  let deps: Deps;
  let app: FastifyInstance;
  let other: Credentials;
  // Each request gets its own timestamp, so signed writes never collide with the replay rule
  // unless a test means them to.
  let tick = 0;
  const freshTimestamp = () => wall.now().getTime() - 1000 + (tick++ % 1000);

  const send = async (method: string, url: string, options: SendOptions = {}) => {
    const creds = options.credentials ?? svc.credentials;
    const body = options.body ?? "";
    const signed = signRequest({
      apiKey: creds.apiKey,
      apiSecret: creds.apiSecret,
      body: options.signBody ?? body,
      method: options.signMethod ?? method,
      path: options.signPath ?? url,
      timestamp: freshTimestamp(),
      version: options.version ?? "v1",
    });
    if (options.timestamp !== undefined) {
      // Re-sign over the given timestamp text, exactly as a client would.
      const text = String(options.timestamp);
      const message =
        options.version === "v2"
          ? `${text}.${(options.signMethod ?? method).toUpperCase()}.${options.signPath ?? url}.${options.signBody ?? body}`
          : `${text}.${options.signBody ?? body}`;
      const hex = createHmac("sha256", creds.apiSecret).update(message).digest("hex");
      signed["X-Timestamp"] = text;
      signed["X-Signature"] = `${options.version === "v2" ? "v2" : "sha256"}=${hex}`;
    }
    const headers: Record<string, string> = {};
    const merged: Record<string, string | undefined> = {
      "x-api-key": signed["X-API-Key"],
      "x-timestamp": signed["X-Timestamp"],
      "x-signature": signed["X-Signature"],
      ...(body !== ""
        ? { "content-type": "contentType" in options ? options.contentType : "application/json" }
        : {}),
      ...options.headers,
    };
    for (const [name, value] of Object.entries(merged)) if (value !== undefined) headers[name] = value;
    return app.inject({ method: method as "GET", url, payload: body, headers });
  };

  /** The generic 401; in sandbox (this service) with a reason from the closed list. */
  const assertInvalid = (res: LightMyRequestResponse) => {
    assert.equal(res.statusCode, 401, res.body);
    const { error, ...rest } = res.json();
    assert.deepEqual(rest, { success: false });
    assert.equal(error.code, "INVALID_CREDENTIALS");
    assert.equal(error.message, GENERIC_MESSAGE);
    assert.ok((AUTH_FAILURE_REASONS as readonly string[]).includes(error.metadata?.reason), res.body);
  };

  before(async () => {
    svc = await startService();
    deps = svc.depsWith({ wallClock: wall });
    app = await buildApp(deps, { extraApiRoutes: testRoutes });
    await app.ready();
    other = await svc.newMerchant({ name: "Other Shop" });
  });
  after(async () => {
    await app?.close();
    await svc?.close();
  });

  it("accepts a correctly signed GET and POST and names the key's own merchant", async () => {
    const get = await send("GET", "/api/v1/test/whoami");
    assert.equal(get.statusCode, 200, get.body);
    assert.deepEqual(get.json().data, {
      merchantId: svc.credentials.merchantId,
      integrationId: svc.credentials.integrationId,
    });
    const post = await send("POST", "/api/v1/test/echo", { body: '{"a":"x"}' });
    assert.equal(post.statusCode, 200, post.body);
    assert.deepEqual(post.json().data, { a: "x" });
  });

  it("refuses a request missing any one of the three headers with 401 INVALID_CREDENTIALS", async () => {
    for (const name of ["x-api-key", "x-timestamp", "x-signature"]) {
      assertInvalid(await send("GET", "/api/v1/test/whoami", { headers: { [name]: undefined } }));
      assertInvalid(await send("GET", "/api/v1/test/whoami", { headers: { [name]: "" } }));
    }
    assertInvalid(await app.inject({ method: "GET", url: "/api/v1/test/whoami" }));
  });

  it("answers every kind of credential failure with one identical body", async () => {
    const revoked = await svc.newMerchant({ name: "Revoked Shop" });
    await revokeIntegration(deps, revoked.integrationId);
    const failures = [
      await send("GET", "/api/v1/test/whoami", { headers: { "x-api-key": undefined } }),
      await send("GET", "/api/v1/test/whoami", { timestamp: "not-a-number" }),
      await send("GET", "/api/v1/test/whoami", { timestamp: wall.now().getTime() - 301_000 }),
      await send("GET", "/api/v1/test/whoami", { headers: { "x-api-key": "sk_test_unknown" } }),
      await send("GET", "/api/v1/test/whoami", { credentials: revoked }),
      await send("GET", "/api/v1/test/whoami", { signBody: "tampered" }),
      await send("GET", "/api/v1/test/whoami", { headers: { "x-signature": "sha256=abc" } }),
    ];
    for (const res of failures) assertInvalid(res);
    // One code and one message; only sandbox's metadata.reason tells them apart.
    const withoutReason = failures.map((res) => {
      const { metadata: _metadata, ...error } = res.json().error;
      return JSON.stringify(error);
    });
    assert.equal(new Set(withoutReason).size, 1);
  });

  it("refuses malformed timestamps", async () => {
    const nowMs = wall.now().getTime();
    for (const timestamp of [
      "abc",
      "1.7e12",
      `${nowMs}.5`,
      "-1",
      `+${nowMs}`,
      `0x${nowMs.toString(16)}`,
      String(Math.floor(nowMs / 1000)), // seconds instead of milliseconds
      "1".repeat(17),
    ]) {
      assertInvalid(await send("GET", "/api/v1/test/whoami", { timestamp }));
    }
  });

  it("accepts a timestamp exactly 300 s old or ahead and refuses 301 s", async () => {
    const nowMs = wall.now().getTime();
    assert.equal(TIMESTAMP_TOLERANCE_MS, 300_000);
    for (const timestamp of [nowMs - 300_000, nowMs + 300_000]) {
      const res = await send("GET", "/api/v1/test/whoami", { timestamp });
      assert.equal(res.statusCode, 200, `timestamp offset ${timestamp - nowMs}: ${res.body}`);
    }
    for (const timestamp of [nowMs - 301_000, nowMs + 301_000, nowMs - 300_001, nowMs + 300_001]) {
      assertInvalid(await send("GET", "/api/v1/test/whoami", { timestamp }));
    }
  });

  it("measures the tolerance on the wall clock, never the business clock", async () => {
    const before = svc.clock.now().getTime();
    svc.clock.advance(24 * 3600_000);
    try {
      const res = await send("GET", "/api/v1/test/whoami", { timestamp: wall.now().getTime() });
      assert.equal(res.statusCode, 200, res.body);
      assertInvalid(await send("GET", "/api/v1/test/whoami", { timestamp: svc.clock.now().getTime() }));
    } finally {
      svc.clock.set(before);
    }
  });

  it("refuses an unknown API key", async () => {
    assertInvalid(await send("GET", "/api/v1/test/whoami", { headers: { "x-api-key": "sk_test_nope" } }));
    assertInvalid(
      await send("GET", "/api/v1/test/whoami", {
        credentials: { ...svc.credentials, apiKey: `${svc.credentials.apiKey}x` },
      }),
    );
  });

  it("refuses a revoked key at once", async () => {
    const creds = await svc.newMerchant({ name: "Soon Revoked" });
    assert.equal((await send("GET", "/api/v1/test/whoami", { credentials: creds })).statusCode, 200);
    await revokeIntegration(deps, creds.integrationId);
    assertInvalid(await send("GET", "/api/v1/test/whoami", { credentials: creds }));
  });

  it("refuses a wrong signature", async () => {
    assertInvalid(
      await send("GET", "/api/v1/test/whoami", {
        credentials: { ...svc.credentials, apiSecret: "sec_wrong" },
      }),
    );
    assertInvalid(await send("POST", "/api/v1/test/echo", { body: '{"a":"x"}', signBody: '{"a":"y"}' }));
    assertInvalid(await send("GET", "/api/v1/test/whoami", { headers: { "x-signature": "sha256=" } }));
    assertInvalid(
      await send("GET", "/api/v1/test/whoami", { headers: { "x-signature": `sha256=${"0".repeat(64)}` } }),
    );
  });

  it("never lets one merchant's key authenticate with another merchant's secret", async () => {
    assertInvalid(
      await send("GET", "/api/v1/test/whoami", {
        credentials: { ...svc.credentials, apiSecret: other.apiSecret },
      }),
    );
    const res = await send("GET", "/api/v1/test/whoami", { credentials: other });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.merchantId, other.merchantId);
    assert.notEqual(res.json().data.merchantId, svc.credentials.merchantId);
  });

  it("signs the raw body text exactly as sent, whitespace included", async () => {
    const spaced = '{ "a" :   "spaced" }\n';
    const ok = await send("POST", "/api/v1/test/echo", { body: spaced });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().data, { a: "spaced" });
    // A client that signs a re-serialized object instead of the bytes it sends is refused.
    assertInvalid(
      await send("POST", "/api/v1/test/echo", { body: spaced, signBody: JSON.stringify({ a: "spaced" }) }),
    );
  });

  it("accepts only lowercase hex after the sha256= prefix", async () => {
    const timestamp = String(freshTimestamp());
    const hex = createHmac("sha256", svc.credentials.apiSecret).update(`${timestamp}.`).digest("hex");
    const headers = { "x-timestamp": timestamp };
    assertInvalid(
      await send("GET", "/api/v1/test/whoami", {
        headers: { ...headers, "x-signature": `sha256=${hex.toUpperCase()}` },
      }),
    );
    assertInvalid(
      await send("GET", "/api/v1/test/whoami", { headers: { ...headers, "x-signature": `SHA256=${hex}` } }),
    );
    assertInvalid(await send("GET", "/api/v1/test/whoami", { headers: { ...headers, "x-signature": hex } }));
    const res = await send("GET", "/api/v1/test/whoami", {
      headers: { ...headers, "x-signature": `sha256=${hex}` },
    });
    assert.equal(res.statusCode, 200, res.body);
  });

  it("leaves method, path and query unsigned in v1", async () => {
    const timestamp = String(freshTimestamp());
    const hex = createHmac("sha256", svc.credentials.apiSecret).update(`${timestamp}.`).digest("hex");
    const headers = {
      "x-api-key": svc.credentials.apiKey,
      "x-timestamp": timestamp,
      "x-signature": `sha256=${hex}`,
    };
    for (const url of ["/api/v1/test/whoami", "/api/v1/test/other", "/api/v1/test/whoami?page=2"]) {
      const res = await app.inject({ method: "GET", url, headers });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
  });

  it("accepts v2 signatures, which bind the method, the path and the query", async () => {
    const ok = await send("GET", "/api/v1/test/whoami?page=1", { version: "v2" });
    assert.equal(ok.statusCode, 200, ok.body);
    const post = await send("POST", "/api/v1/test/echo", { version: "v2", body: '{"a":"v2"}' });
    assert.equal(post.statusCode, 200, post.body);

    assertInvalid(
      await send("GET", "/api/v1/test/other", { version: "v2", signPath: "/api/v1/test/whoami" }),
    );
    assertInvalid(
      await send("GET", "/api/v1/test/whoami?page=2", {
        version: "v2",
        signPath: "/api/v1/test/whoami?page=1",
      }),
    );
    assertInvalid(
      await send("GET", "/api/v1/test/whoami?page=1", { version: "v2", signPath: "/api/v1/test/whoami" }),
    );
    assertInvalid(await send("POST", "/api/v1/test/whoami", { version: "v2", signMethod: "GET" }));
    assertInvalid(
      await send("POST", "/api/v1/test/echo", { version: "v2", body: '{"a":"v2"}', signBody: '{"a":"v1"}' }),
    );
  });

  it("refuses v1 for an integration that requires v2, and accepts its v2", async () => {
    const strict = await svc.newMerchant({ name: "Strict Shop" }, { requireSignatureV2: true });
    assertInvalid(await send("GET", "/api/v1/test/whoami", { credentials: strict }));
    assertInvalid(await send("POST", "/api/v1/test/echo", { credentials: strict, body: '{"a":"x"}' }));
    const res = await send("GET", "/api/v1/test/whoami", { credentials: strict, version: "v2" });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.merchantId, strict.merchantId);
  });

  it("accepts a signed write once, even across app instances sharing the database", async () => {
    const timestamp = String(freshTimestamp());
    const body = '{"a":"once"}';
    const hex = createHmac("sha256", svc.credentials.apiSecret).update(`${timestamp}.${body}`).digest("hex");
    const headers = {
      "x-api-key": svc.credentials.apiKey,
      "x-timestamp": timestamp,
      "x-signature": `sha256=${hex}`,
      "content-type": "application/json",
    };
    const post = () => ({ method: "POST" as const, url: "/api/v1/test/echo", payload: body, headers });
    assert.equal((await app.inject(post())).statusCode, 200);
    assertInvalid(await app.inject(post()));

    // A second instance, with its own connection pool when the store is PostgreSQL (a second
    // process would be no different): the replay record lives in the database.
    let secondStore: Store | undefined;
    if (svc.store.databaseUrl) secondStore = await openStore({ databaseUrl: svc.store.databaseUrl });
    const second = await buildApp(svc.depsWith({ wallClock: wall, db: secondStore?.db ?? deps.db }), {
      extraApiRoutes: testRoutes,
    });
    try {
      await second.ready();
      assertInvalid(await second.inject(post()));
      // A fresh write signed for the second instance is then refused by the first.
      const fresh = String(freshTimestamp());
      const freshHex = createHmac("sha256", svc.credentials.apiSecret)
        .update(`${fresh}.${body}`)
        .digest("hex");
      const freshRequest = {
        ...post(),
        headers: { ...headers, "x-timestamp": fresh, "x-signature": `sha256=${freshHex}` },
      };
      assert.equal((await second.inject(freshRequest)).statusCode, 200);
      assertInvalid(await app.inject(freshRequest));
    } finally {
      await second.close();
      await secondStore?.close();
    }
  });

  it("lets a signed GET repeat", async () => {
    const timestamp = String(freshTimestamp());
    const hex = createHmac("sha256", svc.credentials.apiSecret).update(`${timestamp}.`).digest("hex");
    const headers = {
      "x-api-key": svc.credentials.apiKey,
      "x-timestamp": timestamp,
      "x-signature": `sha256=${hex}`,
    };
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: "GET", url: "/api/v1/test/whoami", headers });
      assert.equal(res.statusCode, 200, res.body);
    }
  });

  it("answers 401 AUTHENTICATION_ERROR for valid credentials of a disabled merchant", async () => {
    const creds = await svc.newMerchant({ name: "Closing Shop" });
    await updateMerchant(deps, creds.merchantId, { status: "disabled" });
    const res = await send("GET", "/api/v1/test/whoami", { credentials: creds });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, "AUTHENTICATION_ERROR");
    // Without the secret, nobody learns that the key belongs to a disabled merchant.
    assertInvalid(
      await send("GET", "/api/v1/test/whoami", { credentials: { ...creds, apiSecret: "sec_guess" } }),
    );
    await updateMerchant(deps, creds.merchantId, { status: "active" });
    assert.equal((await send("GET", "/api/v1/test/whoami", { credentials: creds })).statusCode, 200);
  });

  it("spends a signed write refused for a disabled merchant: it is not accepted once the merchant is active", async () => {
    const creds = await svc.newMerchant({ name: "Paused Shop" });
    await updateMerchant(deps, creds.merchantId, { status: "disabled" });
    const timestamp = String(freshTimestamp());
    const body = '{"a":"while disabled"}';
    const hex = createHmac("sha256", creds.apiSecret).update(`${timestamp}.${body}`).digest("hex");
    const post = () => ({
      method: "POST" as const,
      url: "/api/v1/test/echo",
      payload: body,
      headers: {
        "x-api-key": creds.apiKey,
        "x-timestamp": timestamp,
        "x-signature": `sha256=${hex}`,
        "content-type": "application/json",
      },
    });
    const refused = await app.inject(post());
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, "AUTHENTICATION_ERROR");
    await updateMerchant(deps, creds.merchantId, { status: "active" });
    assertInvalid(await app.inject(post()));
  });

  it("authenticates before the body is parsed or validated", async () => {
    const badAuth = { credentials: { ...svc.credentials, apiSecret: "sec_wrong" } };
    assertInvalid(await send("POST", "/api/v1/test/echo", { ...badAuth, body: "{not json" }));
    assertInvalid(await send("POST", "/api/v1/test/echo", { ...badAuth, body: '{"b":1}' }));
    assertInvalid(await send("POST", "/api/v1/test/echo", { ...badAuth, body: "[1,2]" }));

    const malformed = await send("POST", "/api/v1/test/echo", { body: "{not json" });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().error.code, "VALIDATION_ERROR");
    assert.equal(malformed.json().error.metadata.field, "body");

    const notObject = await send("POST", "/api/v1/test/echo", { body: "[1,2]" });
    assert.equal(notObject.statusCode, 400);
    assert.equal(notObject.json().error.code, "VALIDATION_ERROR");

    const unknownField = await send("POST", "/api/v1/test/echo", { body: '{"a":"x","b":1}' });
    assert.equal(unknownField.statusCode, 400);
    assert.deepEqual(unknownField.json().error.metadata, { field: "b" });
  });

  it("refuses a body over 64 KiB with 413 PAYLOAD_TOO_LARGE", async () => {
    const big = JSON.stringify({ a: "x".repeat(BODY_SIZE_MAX_BYTES) });
    const signed = await send("POST", "/api/v1/test/echo", { body: big });
    assert.equal(signed.statusCode, 413);
    assert.equal(signed.json().error.code, "PAYLOAD_TOO_LARGE");
    const unsigned = await app.inject({
      method: "POST",
      url: "/api/v1/test/echo",
      payload: big,
      headers: { "content-type": "application/json" },
    });
    assert.equal(unsigned.statusCode, 413);
    // The limit is the body size itself: a body of exactly 64 KiB is read and authenticated.
    const exact = `{"a":"${"y".repeat(BODY_SIZE_MAX_BYTES - 8)}"}`;
    assert.equal(Buffer.byteLength(exact), BODY_SIZE_MAX_BYTES);
    assert.equal((await send("POST", "/api/v1/test/echo", { body: exact })).statusCode, 200);
  });

  it("refuses a body sent with another Content-Type, after authentication", async () => {
    const body = '{"a":"x"}';
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", undefined]) {
      const res = await send("POST", "/api/v1/test/echo", { body, contentType });
      assert.equal(res.statusCode, 400, `${contentType}: ${res.body}`);
      assert.equal(res.json().error.code, "VALIDATION_ERROR");
      assertInvalid(
        await send("POST", "/api/v1/test/echo", {
          body,
          contentType,
          credentials: { ...svc.credentials, apiSecret: "sec_wrong" },
        }),
      );
    }
    for (const contentType of [
      "application/json; charset=utf-8",
      "application/json;charset=UTF-8",
      'application/json; charset="utf8"',
    ]) {
      const res = await send("POST", "/api/v1/test/echo", { body, contentType });
      assert.equal(res.statusCode, 200, `${contentType}: ${res.body}`);
    }
    // JSON is UTF-8 and is read so: a body declared in another charset is refused, not misread.
    for (const contentType of [
      "application/json; charset=utf-16",
      "application/json; charset=iso-8859-1",
      'application/json; charset="windows-874"',
      "application/json; charset=",
    ]) {
      const res = await send("POST", "/api/v1/test/echo", { body, contentType });
      assert.equal(res.statusCode, 400, `${contentType}: ${res.body}`);
      assert.equal(res.json().error.code, "VALIDATION_ERROR");
      assert.deepEqual(res.json().error.metadata, { field: "Content-Type" }, contentType);
    }
  });

  it("refuses a body its Content-Encoding says is compressed, and takes identity or none", async () => {
    const body = JSON.stringify({ a: "1" });
    for (const encoding of ["gzip", "br", "deflate", "GZIP, identity"]) {
      const res = await send("POST", "/api/v1/test/echo", {
        body,
        headers: { "content-encoding": encoding },
      });
      assert.equal(res.statusCode, 400, `${encoding}: ${res.body}`);
      assert.equal(res.json().error.code, "VALIDATION_ERROR");
      assert.deepEqual(res.json().error.metadata, { field: "Content-Encoding" }, encoding);
      assert.match(res.json().error.message, /not supported: send the JSON body uncompressed/);
    }
    for (const encoding of ["identity", "Identity", " ", "identity, identity"]) {
      const res = await send("POST", "/api/v1/test/echo", {
        body,
        headers: { "content-encoding": encoding },
      });
      assert.equal(res.statusCode, 200, `${encoding}: ${res.body}`);
    }
  });

  it("puts X-Request-Id on every response, error or not", async () => {
    const responses = [
      await send("GET", "/api/v1/test/whoami"),
      await send("GET", "/api/v1/test/whoami", { headers: { "x-api-key": undefined } }),
      await send("POST", "/api/v1/test/echo", { body: "{" }),
      await send("POST", "/api/v1/test/echo", { body: JSON.stringify({ a: "x".repeat(70_000) }) }),
      await app.inject({ method: "GET", url: "/api/v1/nowhere" }),
    ];
    assert.deepEqual(
      responses.map((res) => res.statusCode),
      [200, 401, 400, 413, 404],
    );
    for (const res of responses) {
      assert.match(String(res.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
      assert.match(String(res.headers["content-type"]), /application\/json/);
    }
  });
});

describe("HMAC authentication on the payments routes", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  const wrongSecret = () => ({ credentials: { ...svc.credentials, apiSecret: "sec_wrong" } });

  it("lets a signed GET /api/v1/payments through and refuses an unsigned or mis-signed one", async () => {
    const ok = await svc.request("GET", "/api/v1/payments");
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.success, true);
    const unsigned = await svc.app.inject({ method: "GET", url: "/api/v1/payments" });
    assert.equal(unsigned.statusCode, 401);
    assert.equal(unsigned.json().error.code, "INVALID_CREDENTIALS");
    const wrong = await svc.request("GET", "/api/v1/payments", undefined, wrongSecret());
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.message, GENERIC_MESSAGE);
  });

  it("authenticates POST /api/v1/payments before its body is parsed or validated", async () => {
    const badJson = { rawBody: "{oops" };
    const refused = await svc.request("POST", "/api/v1/payments", undefined, {
      ...badJson,
      ...wrongSecret(),
    });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, "INVALID_CREDENTIALS");
    const malformed = await svc.request("POST", "/api/v1/payments", undefined, badJson);
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.code, "VALIDATION_ERROR");

    const invalid = await svc.request("POST", "/api/v1/payments", {}, wrongSecret());
    assert.equal(invalid.status, 401);
    const missing = await svc.request("POST", "/api/v1/payments", {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, "VALIDATION_ERROR");
  });

  it("refuses a replayed POST /api/v1/payments", async () => {
    const payload = JSON.stringify({ referenceId: "replay-me" });
    const headers = {
      ...signRequest({ apiKey: svc.credentials.apiKey, apiSecret: svc.credentials.apiSecret, body: payload }),
      "content-type": "application/json",
    };
    const first = await svc.app.inject({ method: "POST", url: "/api/v1/payments", payload, headers });
    // Refused for its body, but authenticated: the signature is spent.
    assert.equal(first.statusCode, 400);
    const replay = await svc.app.inject({ method: "POST", url: "/api/v1/payments", payload, headers });
    assert.equal(replay.statusCode, 401);
    assert.equal(replay.json().error.code, "INVALID_CREDENTIALS");
  });
});
