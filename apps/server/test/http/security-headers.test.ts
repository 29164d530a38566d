/**
 * Headers on every answer: nosniff on JSON (and everything else), no-store on answers that carry
 * secrets or records (and by default), Strict-Transport-Security in live behind https only.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HSTS_VALUE } from "../../src/http/security-headers.ts";
import { startService, type TestService } from "../helpers/harness.ts";

const PAYMENT = {
  amount: "10000.00",
  referenceId: "headers-1",
  paymentMethod: "promptpay",
  customerBankAccountName: "Somchai Jaidee",
  customerBankAccountNumber: "1234567890",
  customerBankCode: "004",
};

describe("security headers", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("answers that carry secrets are no-store and nosniff: a payment's clientSecret, an apiSecret, a CSV export", async () => {
    const payment = await svc.request("POST", "/api/v1/payments", PAYMENT);
    assert.equal(payment.status, 201);
    assert.ok(payment.body.data.clientSecret);
    const merchant = await svc.admin("POST", "/admin/v1/merchants", { name: "Headers Shop" });
    const integration = await svc.admin(
      "POST",
      `/admin/v1/merchants/${merchant.body.data.id}/integrations`,
      {},
    );
    assert.ok(integration.body.data.apiSecret);
    const from = new Date(Date.now() - 86_400_000).toISOString();
    const to = new Date(Date.now() + 86_400_000).toISOString();
    const csv = await svc.request("GET", `/api/v1/reports/payments.csv?dateFrom=${from}&dateTo=${to}`);
    assert.equal(csv.status, 200);
    for (const [name, answer] of [
      ["payment create", payment],
      ["integration create", integration],
      ["payments.csv", csv],
    ] as const) {
      assert.equal(answer.headers["cache-control"], "no-store", name);
      assert.equal(answer.headers["x-content-type-options"], "nosniff", name);
    }
  });

  it("errors, unknown routes and health checks carry nosniff too", async () => {
    for (const url of ["/api/v1/payments/nope", "/no-such-route", "/healthz"]) {
      const response = await svc.app.inject({ method: "GET", url });
      assert.equal(response.headers["x-content-type-options"], "nosniff", url);
      assert.equal(response.headers["cache-control"], "no-store", url);
    }
  });

  it("the router's own refusals (an undecodable URL, a path parameter too long) carry them too", async () => {
    const config = svc.deps.config;
    const saved = { env: config.env, publicBaseUrl: config.publicBaseUrl };
    try {
      config.env = "live";
      config.publicBaseUrl = "https://pay.example.com";
      for (const url of [
        "/api/v1/payments/%ZZ",
        "/pay/%ZZ",
        "/admin/v1/merchants/%ZZ",
        `/api/v1/payments/by-reference/${"a".repeat(800)}`,
      ]) {
        const response = await svc.app.inject({ method: "GET", url });
        assert.equal(response.statusCode, 400, url);
        assert.equal(response.json().error.code, "VALIDATION_ERROR", url);
        assert.ok(response.headers["x-request-id"], url);
        assert.equal(response.headers["x-content-type-options"], "nosniff", url);
        assert.equal(response.headers["cache-control"], "no-store", url);
        assert.equal(response.headers["strict-transport-security"], HSTS_VALUE, url);
      }
    } finally {
      Object.assign(config, saved);
    }
  });

  it("sends Strict-Transport-Security in live behind https, and not over http or in sandbox", async () => {
    const hsts = async () =>
      (await svc.app.inject({ method: "GET", url: "/healthz" })).headers["strict-transport-security"];
    const config = svc.deps.config;
    const saved = { env: config.env, publicBaseUrl: config.publicBaseUrl };
    try {
      assert.equal(await hsts(), undefined, "sandbox");
      config.env = "live";
      config.publicBaseUrl = "http://pay.test";
      assert.equal(await hsts(), undefined, "live over http");
      config.publicBaseUrl = "https://pay.example.com";
      assert.equal(await hsts(), HSTS_VALUE, "live over https");
    } finally {
      Object.assign(config, saved);
    }
  });
});
