/**
 * GET /: in sandbox a small HTML page linking to /docs, /dashboard and the OpenAPI document, with
 * the first request's shape and no credentials; in live an unknown route (envelope 404).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEMO_LOGIN_EMAIL } from "../../src/sandbox/demo.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

describe("GET / in sandbox", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("serves a landing page that links to the docs, the dashboard and the OpenAPI document", async () => {
    const response = await svc.app.inject({ method: "GET", url: "/" });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers["content-type"]), /^text\/html/);
    assert.match(String(response.headers["content-security-policy"]), /default-src 'none'/);
    const html = response.body;
    for (const href of ["/docs", "/dashboard", "/api/v1/openapi.json"]) {
      assert.ok(html.includes(`href="${href}"`), `links to ${href}`);
    }
    // The linked pages exist.
    for (const url of ["/docs", "/api/v1/openapi.json"]) {
      const linked = await svc.app.inject({ method: "GET", url });
      assert.ok(linked.statusCode < 400, `${url} answers ${linked.statusCode}`);
    }
  });

  it("shows the first signed request with placeholders, never a key or secret", async () => {
    const demo = await svc.newMerchant();
    const html = (await svc.app.inject({ method: "GET", url: "/" })).body;
    assert.ok(html.includes("curl -sS -X POST &#39;http://pay.test/api/v1/payments&#39;"));
    assert.ok(html.includes("API_KEY=&#39;&lt;your API key&gt;&#39;"));
    assert.ok(html.includes("API_SECRET=&#39;&lt;your API secret&gt;&#39;"));
    assert.ok(html.includes("first start"), "points to the first-start output");
    assert.ok(!html.includes(demo.apiKey));
    assert.ok(!html.includes(demo.apiSecret));
    assert.ok(!/<script/i.test(html));
  });
});

describe("GET / in sandbox, the way into the dashboard", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("names the demo login printed at first start and the command that makes another", async () => {
    const html = (await svc.app.inject({ method: "GET", url: "/" })).body;
    assert.ok(html.includes(`<code>${DEMO_LOGIN_EMAIL}</code>`), "the demo login's email");
    assert.match(html, /printed its email .* and a generated password,\s+once, in its output/);
    assert.ok(
      html.includes("npx satang user create --merchant &lt;merchant id&gt; --email"),
      "the command for another login",
    );
  });
});

describe("GET / in live", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService({
      env: { SATANG_ENV: "live", SECRET_KEY: "ab".repeat(32), ...LIVE_PROVIDER_ENV },
    });
  });
  after(async () => {
    await svc.close();
  });

  it("answers a plain 404 in the error envelope", async () => {
    const response = await svc.app.inject({ method: "GET", url: "/" });
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers["content-type"]), /^application\/json/);
    assert.deepEqual(response.json(), {
      success: false,
      error: { code: "RESOURCE_NOT_FOUND", message: "Route GET / not found" },
    });
  });
});
