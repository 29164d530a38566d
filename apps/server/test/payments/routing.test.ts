/**
 * New live payments through the router (docs/providers/routing.md), with Opn's simulator as the
 * connector: the payment records its connector and shows Opn's QR image; a replay or a reuse
 * never instructs twice; Opn down answers 503 with nothing made, opens the breaker (skipped, on
 * the metrics and /readyz); a merchant's pin is validated against SATANG_PROVIDER.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { CONNECTOR_BREAKER_FAILURES_MAX } from "../../src/lib/limits.ts";
import { ADMIN_TOKEN, type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { paymentBody as anyPaymentBody } from "../helpers/lifecycle.ts";
import { OpnSimulator } from "../helpers/opn/simulator.ts";

const OPN_SECRET_KEY = "skey_test_satangrouting";

async function startLive(sim: OpnSimulator): Promise<TestService> {
  return startService({
    env: {
      SATANG_ENV: "live",
      SECRET_KEY: "cd".repeat(32),
      SATANG_PROVIDER: "opn",
      OPN_API_BASE_URL: sim.url,
      OPN_SECRET_KEY,
      OPN_CALLBACK_TOKEN: "opn_cb_token_0123456789abcdefghijklmnopqrst",
      OPN_TIMEOUT_MS: "20000",
    },
  });
}

/** Amounts are satang: 50,000 (500 THB) is above Opn's PromptPay minimum of 2,000. */
const paymentBody = (overrides: Record<string, unknown> = {}) =>
  anyPaymentBody({ amount: "50000.00", ...overrides });

const chargeCreates = (sim: OpnSimulator) =>
  sim.requests.filter((request) => request.method === "POST" && request.path === "/charges").length;

async function paymentsOf(svc: TestService, merchant: Credentials): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from payments
    where merchant_id = ${merchant.merchantId}`.execute(svc.deps.db);
  return Number(rows[0]!.n);
}

function metricSample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("live payments through the router (Opn)", () => {
  let sim: OpnSimulator;
  let svc: TestService;
  let merchant: Credentials;

  before(async () => {
    sim = await OpnSimulator.start({ secretKey: OPN_SECRET_KEY });
    svc = await startLive(sim);
    merchant = await svc.newMerchant({ settlementDelayHours: 0 });
  });
  after(async () => {
    await svc?.close();
    await sim?.close();
  });

  it("gives a new PromptPay payment to Opn: its charge, Opn's QR image, the connector on the operator's view", async () => {
    const res = await svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: merchant });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const payment = res.body.data;
    assert.equal(sim.charges.size >= 1, true);
    const charge = [...sim.charges.values()].find((c) => c.metadata.satang_payment_id === payment.id);
    assert.ok(charge, "Opn has a charge for the payment");
    assert.equal(charge.amount, 50_000);
    const image = (charge.source as any).scannable_code.image.download_uri;
    assert.equal(payment.nextAction.qrImageUrl, image);
    assert.equal(payment.nextAction.qrCode, undefined, "Opn gives no EMVCo payload");
    assert.match(payment.nextAction.paymentAppUrl, /\/pay\//);

    const qrOnly = await svc.request(
      "GET",
      `/api/v1/payments/${payment.id}?responseMode=qr_code`,
      undefined,
      {
        credentials: merchant,
      },
    );
    assert.deepEqual(qrOnly.body.data.nextAction, { type: "use_payment_app", qrImageUrl: image });

    // The hosted page shows Opn's image, and its CSP lets images load from Opn's origin only.
    const page = await svc.app.inject({
      method: "GET",
      url: `/pay/${payment.id}`,
      headers: { accept: "text/html" },
    });
    assert.equal(page.statusCode, 200);
    assert.ok(page.body.includes(`src="${image}"`), "the page shows the connector's QR image");
    const csp = String(page.headers["content-security-policy"]);
    assert.ok(csp.includes(`img-src 'self' ${new URL(image).origin};`), csp);

    const operator = await svc.admin("GET", `/admin/v1/payments/${payment.id}`);
    assert.equal(operator.status, 200, JSON.stringify(operator.body));
    assert.equal(operator.body.data.provider, "opn");
    assert.equal(operator.body.data.providerPaymentId, charge.id);
    assert.equal(operator.body.data.merchantId, merchant.merchantId);
    assert.equal(operator.body.data.collectionReference, charge.metadata.satang_reference);
  });

  it("answers 404 on the operator's view for an unknown or malformed payment id", async () => {
    assert.equal(
      (await svc.admin("GET", "/admin/v1/payments/00000000-0000-4000-8000-000000000000")).status,
      404,
    );
    assert.equal((await svc.admin("GET", "/admin/v1/payments/not-a-uuid")).status, 404);
  });

  it("makes one payment and one Opn charge for six concurrent creates with one idempotency key", async () => {
    const body = paymentBody({ idempotencyKey: `idem-${Date.now()}` });
    const before = chargeCreates(sim);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        svc.request("POST", "/api/v1/payments", body, { credentials: merchant }),
      ),
    );
    for (const answer of answers) assert.ok([200, 201].includes(answer.status), JSON.stringify(answer.body));
    assert.equal(answers.filter((answer) => answer.status === 201).length, 1);
    assert.equal(new Set(answers.map((answer) => answer.body.data.id)).size, 1);
    assert.equal(new Set(answers.map((answer) => answer.body.data.nextAction.qrImageUrl)).size, 1);
    assert.ok(answers[0]!.body.data.nextAction.qrImageUrl);
    assert.equal(chargeCreates(sim) - before, 1);
  });

  it("returns the open payment for a PromptPay reuse without a second charge", async () => {
    const customer = { customerBankAccountNumber: "5550001112", amount: "32100.00" };
    const before = chargeCreates(sim);
    const first = await svc.request("POST", "/api/v1/payments", paymentBody(customer), {
      credentials: merchant,
    });
    const again = await svc.request("POST", "/api/v1/payments", paymentBody(customer), {
      credentials: merchant,
    });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.data.id, first.body.data.id);
    assert.equal(again.body.data.nextAction.qrImageUrl, first.body.data.nextAction.qrImageUrl);
    assert.equal(chargeCreates(sim) - before, 1);
  });

  it("validates a merchant's pin against SATANG_PROVIDER, shows it, and unpins with null", async () => {
    const path = `/admin/v1/merchants/${merchant.merchantId}`;
    for (const name of ["scb", "simulated", "kbank"]) {
      const refused = await svc.admin("PATCH", path, { provider: name });
      assert.equal(refused.status, 400, name);
      assert.equal(refused.body.error.code, "VALIDATION_ERROR");
      assert.equal(refused.body.error.metadata.field, "provider");
    }
    const pinned = await svc.admin("PATCH", path, { provider: "opn" });
    assert.equal(pinned.status, 200, JSON.stringify(pinned.body));
    assert.equal(pinned.body.data.provider, "opn");
    const res = await svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: merchant });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(
      (await svc.admin("GET", `/admin/v1/payments/${res.body.data.id}`)).body.data.provider,
      "opn",
    );
    const unpinned = await svc.admin("PATCH", path, { provider: null });
    assert.equal(unpinned.body.data.provider, null);
  });

  it("answers 503 with Retry-After and makes nothing when Opn is down, then skips Opn once its breaker opens", async () => {
    const other = await svc.newMerchant({ settlementDelayHours: 0 });
    sim.failNext({ method: "POST", path: "/charges", status: 503, times: 1000 });
    const ready = await svc.app.inject({ method: "GET", url: "/readyz" });
    assert.deepEqual(ready.json().data.connectors, [{ name: "opn", breaker: "closed" }]);

    for (let i = 0; i < CONNECTOR_BREAKER_FAILURES_MAX; i++) {
      const res = await svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: other });
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.headers["retry-after"], "30");
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, "SERVICE_UNAVAILABLE");
    }
    assert.equal(await paymentsOf(svc, other), 0, "no payment row is left behind");

    const calls = sim.requests.length;
    const skipped = await svc.request("POST", "/api/v1/payments", paymentBody(), { credentials: other });
    assert.equal(skipped.status, 503);
    assert.equal(sim.requests.length, calls, "an open breaker sends nothing to Opn");
    assert.equal(await paymentsOf(svc, other), 0);

    // Readiness does not fail because a connector is open: it lists it for the operator.
    const readyz = await svc.app.inject({ method: "GET", url: "/readyz" });
    assert.equal(readyz.statusCode, 200);
    assert.deepEqual(readyz.json().data, { status: "ready", connectors: [{ name: "opn", breaker: "open" }] });
    const metrics = await svc.app.inject({
      method: "GET",
      url: "/metrics",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(metricSample(metrics.body, 'satang_connector_breaker_state{connector="opn"}'), 2);
  });
});

describe("sandbox readiness and metrics without connectors", () => {
  it("keeps /readyz's answer and has no breaker gauge", async () => {
    const svc = await startService();
    try {
      const ready = await svc.app.inject({ method: "GET", url: "/readyz" });
      assert.deepEqual(ready.json().data, { status: "ready" });
      assert.equal(svc.deps.router, undefined);
      const metrics = await svc.app.inject({
        method: "GET",
        url: "/metrics",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.ok(!metrics.body.includes("satang_connector_breaker_state"));
    } finally {
      await svc.close();
    }
  });
});
