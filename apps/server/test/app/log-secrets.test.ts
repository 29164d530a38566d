/**
 * No log line carries a secret or an unmasked account number, whatever the error. A scenario
 * creates every kind of secret (API key and secret, payment client secret, webhook signing
 * secret, dashboard session token, the operator token) and account numbers, then breaks the
 * database under some writes so they fail unexpectedly (PGlite errors carry the SQL parameters,
 * PostgreSQL's carry the failing row), and every log line of the run is searched for each of
 * them.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { buildApp } from "../../src/app.ts";
import { scbTables } from "../../src/providers/scb/db.ts";
import { loggerOptions } from "../../src/server.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";
import { SCB_TEST } from "../helpers/scb/setup.ts";
import { tableResolver } from "../helpers/webhooks.ts";

describe("secrets in logs", () => {
  let svc: TestService;
  let app: FastifyInstance;
  const lines: string[] = [];
  before(async () => {
    svc = await startService({
      deps: { webhooks: { resolve: tableResolver({ "hooks.example": ["93.184.216.34"] }) } },
    });
    const options = loggerOptions({ ...svc.deps.config, logLevel: "debug" });
    app = await buildApp(svc.deps, {
      logger: { ...options, stream: { write: (line: string) => lines.push(line) } },
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await svc.close();
  });

  const signed = async (method: string, url: string, body: unknown, creds = svc.credentials) => {
    const payload = JSON.stringify(body);
    const headers = signRequest({
      apiKey: creds.apiKey,
      apiSecret: creds.apiSecret,
      body: payload,
      method,
      path: url,
      version: "v2",
    });
    const res = await app.inject({
      method: method as "POST",
      url,
      payload,
      headers: { ...headers, "content-type": "application/json" },
    });
    return { status: res.statusCode, body: res.json() };
  };
  const admin = async (method: string, url: string, body?: unknown) => {
    const res = await app.inject({
      method: method as "POST",
      url,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    });
    return { status: res.statusCode, body: res.json() };
  };

  it("holds none of the run's secrets, whatever failed", async () => {
    const secrets: string[] = [ADMIN_TOKEN, svc.credentials.apiSecret];
    const accounts = ["1029384756", "5647382910123", "987-654-3210-55"];
    const names = ["Kanyarat Leakcheck", "Boonmee Leakcheck"];

    const payment = await signed("POST", "/api/v1/payments", {
      amount: "100.00",
      referenceId: "leak-1",
      paymentMethod: "promptpay",
      customerBankAccountName: names[0],
      customerBankAccountNumber: accounts[0],
      customerBankCode: "014",
    });
    assert.equal(payment.status, 201, JSON.stringify(payment.body));
    secrets.push(payment.body.data.clientSecret);
    const endpoint = await signed("POST", "/api/v1/webhook-endpoints", {
      url: "https://hooks.example/in",
      events: ["*"],
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    secrets.push(endpoint.body.data.secret);
    const integration = await admin(
      "POST",
      `/admin/v1/merchants/${svc.credentials.merchantId}/integrations`,
      {},
    );
    assert.equal(integration.status, 201, JSON.stringify(integration.body));
    secrets.push(integration.body.data.apiKey, integration.body.data.apiSecret);
    const user = await admin("POST", `/admin/v1/merchants/${svc.credentials.merchantId}/users`, {
      email: "leak@shop.example",
      password: "leak-check-password-1",
    });
    assert.equal(user.status, 201, JSON.stringify(user.body));
    secrets.push("leak-check-password-1");
    const login = await app.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      payload: { email: "leak@shop.example", password: "leak-check-password-1" },
    });
    assert.equal(login.statusCode, 200, login.body);
    secrets.push(login.json().data.token);
    // A secret in a URL lands in the access log unless it is redacted there.
    await app.inject({
      method: "GET",
      url: `/pay/${payment.body.data.id}/status?clientSecret=${payment.body.data.clientSecret}`,
    });
    await app.inject({
      method: "GET",
      url: "/dashboard/api/me",
      headers: { authorization: `Bearer ${login.json().data.token}` },
    });

    // Writes that now fail in the database, unexpectedly for the service: 500, logged.
    await sql`ALTER TABLE payments ADD CONSTRAINT leak_check CHECK (description IS DISTINCT FROM 'boom') NOT VALID`.execute(
      svc.store.db,
    );
    await sql`ALTER TABLE webhook_endpoints ADD CONSTRAINT leak_check CHECK (description IS DISTINCT FROM 'boom') NOT VALID`.execute(
      svc.store.db,
    );
    await sql`ALTER TABLE merchants ADD CONSTRAINT leak_check CHECK (name <> 'boom') NOT VALID`.execute(
      svc.store.db,
    );
    const failedPayment = await signed("POST", "/api/v1/payments", {
      amount: "100.00",
      referenceId: "leak-2",
      paymentMethod: "promptpay",
      description: "boom",
      customerBankAccountName: names[1],
      customerBankAccountNumber: accounts[1],
      customerBankCode: "014",
    });
    assert.equal(failedPayment.status, 500, JSON.stringify(failedPayment.body));
    const failedEndpoint = await signed("POST", "/api/v1/webhook-endpoints", {
      url: "https://hooks.example/b",
      events: ["*"],
      description: "boom",
    });
    assert.equal(failedEndpoint.status, 500, JSON.stringify(failedEndpoint.body));
    const failedMerchant = await admin("POST", "/admin/v1/merchants", {
      name: "boom",
      promptpayId: "0812345678",
      collectionAccount: { bankCode: "014", accountNumber: accounts[2], accountName: names[1] },
    });
    assert.equal(failedMerchant.status, 500, JSON.stringify(failedMerchant.body));

    const text = lines.join("");
    assert.ok(text.includes("unexpected error"), "the failures were logged");
    const digitsOnly = accounts.map((account) => account.replace(/-/g, ""));
    for (const secret of [...secrets, ...accounts, ...digitsOnly, ...names]) {
      assert.ok(!text.includes(secret), `${secret} is in the logs`);
    }
    // The secrets the failed writes generated were never returned: no line has their shape.
    assert.doesNotMatch(text, /_secret_[A-Za-z0-9_-]{8}/);
    assert.doesNotMatch(text, /whsec_[A-Za-z0-9+/]{8}/);
    assert.doesNotMatch(text, /sec_[A-Za-z0-9_-]{8}/);
    // Request ids stay readable.
    assert.match(text, /"reqId":"[0-9a-f-]{36}"/);
  });
});

describe("SCB's secrets in logs and records", () => {
  // A UUID is a valid SCB_CALLBACK_TOKEN that no shape rule hides (a UUID is an id and stays
  // readable in logs): the token must be hidden because it is named, not because of its shape.
  const callbackToken = randomUUID();
  const strangerToken = randomUUID();
  let svc: TestService;
  let app: FastifyInstance;
  const lines: string[] = [];
  before(async () => {
    svc = await startService({
      env: {
        SATANG_PROVIDER: "scb",
        SCB_API_BASE_URL: "http://127.0.0.1:9",
        SCB_API_KEY: SCB_TEST.apiKey,
        SCB_API_SECRET: SCB_TEST.apiSecret,
        SCB_BILLER_ID: SCB_TEST.billerId,
        SCB_CALLBACK_TOKEN: callbackToken,
        SATANG_PAYOUTS: "manual",
        SCB_TIMEOUT_MS: "2000",
      },
    });
    const options = loggerOptions({ ...svc.deps.config, logLevel: "debug" });
    app = await buildApp(svc.deps, {
      logger: { ...options, stream: { write: (line: string) => lines.push(line) } },
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await svc.close();
  });

  it("logs the confirmation route with the token's name, and records no token", async () => {
    const body = {
      transactionId: "20260115SIM00000001",
      amount: "100.00",
      transactionDateandTime: "2026-01-15T12:00:00+07:00",
      billPaymentRef1: "ABC123",
      payeeProxyId: SCB_TEST.billerId,
      currencyCode: "764",
    };
    const right = await app.inject({
      method: "POST",
      url: `/providers/scb/confirmations/${callbackToken}`,
      payload: body,
    });
    assert.equal(right.statusCode, 200, right.body);
    const wrong = await app.inject({
      method: "POST",
      url: `/providers/scb/confirmations/${strangerToken}?probe=1`,
      payload: body,
    });
    assert.equal(wrong.statusCode, 404);
    // A log line that quotes the token (a message, an error) hides it by value.
    app.log.warn({ note: `configured ${callbackToken}` }, `token ${callbackToken} in a message`);

    const text = lines.join("");
    assert.match(
      text,
      /\/providers\/scb\/confirmations\/\{SCB_CALLBACK_TOKEN\}/,
      "the route is logged by name",
    );
    for (const secret of [callbackToken, strangerToken, SCB_TEST.apiSecret, SCB_TEST.apiKey]) {
      assert.ok(!text.includes(secret), `${secret.slice(0, 6)}... is in the logs`);
    }
    const recorded = JSON.stringify(
      await scbTables(svc.deps.db).selectFrom("scb_exchanges").selectAll().execute(),
      (_key, value) => (typeof value === "bigint" ? String(value) : value),
    );
    assert.ok(recorded.includes("payment_confirmation"), "the confirmation was recorded");
    for (const secret of [callbackToken, SCB_TEST.apiSecret, SCB_TEST.apiKey]) {
      assert.ok(!recorded.includes(secret), `${secret.slice(0, 6)}... is in the recorded exchanges`);
    }
  });
});
