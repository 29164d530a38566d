import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { signRequest } from "@satang/sdk";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import { buildApp } from "../../src/app.ts";
import { bootstrap } from "../../src/bootstrap.ts";
import { ok } from "../../src/http/envelope.ts";
import { ADMIN_TOKEN, startService, type TestService } from "../helpers/harness.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

const MISSING_ID = "00000000-0000-4000-8000-000000000000";

/** A route inside the HMAC-authenticated scope that names the caller, to prove keys work. */
const probeRoutes: FastifyPluginAsync = async (api) => {
  api.get("/admin-probe/whoami", async (request) => ok({ merchantId: request.auth?.merchant.id ?? null }));
};

interface Keys {
  apiKey: string;
  apiSecret: string;
}

async function signedWhoami(app: FastifyInstance, keys: Keys, version: "v1" | "v2" = "v1") {
  const path = "/api/v1/admin-probe/whoami";
  const headers = signRequest({ ...keys, body: "", method: "GET", path, version });
  return app.inject({ method: "GET", url: path, headers });
}

describe("operator API authentication", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  it("refuses a request without Authorization with 401 INVALID_CREDENTIALS", async () => {
    const res = await svc.app.inject({
      method: "GET",
      url: `/admin/v1/merchants/${svc.credentials.merchantId}`,
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().success, false);
    assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
    assert.ok(res.headers["x-request-id"]);
  });

  it("refuses a wrong token, a token of another length and another scheme", async () => {
    for (const authorization of [
      `Bearer ${ADMIN_TOKEN.slice(0, -1)}x`,
      `Bearer ${ADMIN_TOKEN}0`,
      `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString("base64")}`,
      ADMIN_TOKEN,
      "Bearer",
    ]) {
      const res = await svc.app.inject({
        method: "GET",
        url: `/admin/v1/merchants/${svc.credentials.merchantId}`,
        headers: { authorization },
      });
      assert.equal(res.statusCode, 401, authorization);
      assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
    }
  });

  it("checks the token before the body, so an invalid body without a token is still 401", async () => {
    const res = await svc.admin("POST", "/admin/v1/merchants", { unknown: 1 }, "wrong-token-0123456789");
    assert.equal(res.status, 401);
    const malformed = await svc.app.inject({
      method: "POST",
      url: "/admin/v1/merchants",
      payload: "{not json",
      headers: { "content-type": "application/json" },
    });
    assert.equal(malformed.statusCode, 401);
  });

  it("answers malformed JSON from an operator with 400 VALIDATION_ERROR", async () => {
    const res = await svc.app.inject({
      method: "POST",
      url: "/admin/v1/merchants",
      payload: "{not json",
      headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, "VALIDATION_ERROR");
  });

  it("accepts the scheme name in any case", async () => {
    const res = await svc.app.inject({
      method: "GET",
      url: `/admin/v1/merchants/${svc.credentials.merchantId}`,
      headers: { authorization: `bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(res.statusCode, 200);
  });
});

describe("operator token generated at first start (no ADMIN_TOKEN)", () => {
  let svc: TestService;
  // Sandbox writes the generated token into DATA_DIR: keep it out of the working directory.
  const dataDir = mkdtempSync(join(tmpdir(), "satang-admin-"));
  before(async () => {
    svc = await startService({ config: { adminToken: undefined, dataDir } });
  });
  after(async () => {
    await svc?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("accepts only the generated token, whose hash alone is stored", async () => {
    const url = `/admin/v1/merchants/${svc.credentials.merchantId}`;
    const before = await svc.admin("GET", url);
    assert.equal(before.status, 401, "no token is valid before one is generated");

    const result = await bootstrap(svc.deps, { print: () => {} });
    assert.ok(result.adminToken);
    assert.equal(result.demo, undefined, "a database with merchants gets no demo merchant");
    assert.equal(readFileSync(join(dataDir, "admin-token"), "utf8").trim(), result.adminToken);
    const rows = await svc.deps.db.selectFrom("server_settings").selectAll().execute();
    assert.ok(
      rows.every((row) => !row.value.includes(result.adminToken!)),
      "the token is stored only hashed",
    );

    assert.equal((await svc.admin("GET", url, undefined, result.adminToken)).status, 200);
    assert.equal((await svc.admin("GET", url, undefined, ADMIN_TOKEN)).status, 401);
    assert.equal((await svc.admin("GET", url, undefined, `${result.adminToken}x`)).status, 401);

    const again = await bootstrap(svc.deps, { print: () => {} });
    assert.equal(again.adminToken, undefined, "a second start does not replace the token");
    assert.equal(again.message, "");
    assert.equal((await svc.admin("GET", url, undefined, result.adminToken)).status, 200);
  });
});

describe("operator API: merchants", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc?.close();
  });

  const create = (body: unknown) => svc.admin("POST", "/admin/v1/merchants", body);

  it("creates a merchant from a name alone, with sandbox defaults and every field present", async () => {
    const res = await create({ name: "Noodle House" });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    const m = res.body.data;
    assert.match(m.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      { ...m, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        name: "Noodle House",
        status: "active",
        settlementDelayHours: 0,
        collectionAccount: null,
        promptpayId: null,
        promptpayReuse: true,
        provider: null,
        walletStatus: "active",
        dailyWithdrawLimit: null,
        monthlyWithdrawLimit: null,
        withdrawVerificationThreshold: null,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.match(m.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(m.updatedAt, m.createdAt);
  });

  it("creates a merchant with every field and normalizes numbers and names", async () => {
    const res = await create({
      name: "  Som Tam Co.  ",
      dailyWithdrawLimit: "5000000",
      monthlyWithdrawLimit: "100000000.0",
      settlementDelayHours: 48,
      collectionAccount: {
        bankCode: "004",
        accountNumber: "123-4 56-7890",
        accountName: "Som Tam Co., Ltd.",
      },
      promptpayId: "081-234\u00a05678",
      promptpayReuse: false,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const m = res.body.data;
    assert.equal(m.name, "Som Tam Co.");
    assert.equal(m.dailyWithdrawLimit, "5000000.00");
    assert.equal(m.monthlyWithdrawLimit, "100000000.00");
    assert.equal(m.settlementDelayHours, 48);
    assert.deepEqual(m.collectionAccount, {
      bankCode: "004",
      accountNumber: "1234567890",
      accountName: "Som Tam Co., Ltd.",
    });
    assert.equal(m.promptpayId, "0812345678");
    assert.equal(m.promptpayReuse, false);

    const got = await svc.admin("GET", `/admin/v1/merchants/${m.id}`);
    assert.equal(got.status, 200);
    const { wallet, ...merchant } = got.body.data;
    assert.deepEqual(merchant, m);
    assert.deepEqual(wallet, { walletBalance: 0, settlementBalance: 0, currency: "THB", status: "active" });

    // The wallet is the merchant's balance, as its own GET /api/v1/balance reads it.
    const funded = await svc.admin("POST", `/admin/v1/merchants/${m.id}/wallet/adjustments`, {
      amount: "2500.00",
      reason: "opening float",
    });
    assert.equal(funded.status, 201, JSON.stringify(funded.body));
    const after = await svc.admin("GET", `/admin/v1/merchants/${m.id}`);
    assert.equal(after.body.data.wallet.walletBalance, 2500);
  });

  it("accepts national ids (13 digits with their check digit) and e-wallet ids (15 digits) as PromptPay ids", async () => {
    assert.equal(
      (await create({ name: "A", promptpayId: "1234567890121" })).body.data.promptpayId,
      "1234567890121",
    );
    assert.equal(
      (await create({ name: "B", promptpayId: "123456789012345" })).body.data.promptpayId,
      "123456789012345",
    );
    // Mobile numbers of every prefix in use: 06, 08 and 09.
    for (const mobile of ["0612345678", "0812345678", "0912345678"]) {
      assert.equal((await create({ name: "M", promptpayId: mobile })).body.data.promptpayId, mobile);
    }
  });

  it("refuses invalid fields with the field's code and its path", async () => {
    const valid = { bankCode: "014", accountNumber: "1234567890", accountName: "X" };
    const cases: Array<[unknown, string, string]> = [
      [{}, "VALIDATION_ERROR", "name"],
      [{ name: "" }, "VALIDATION_ERROR", "name"],
      [{ name: "   " }, "VALIDATION_ERROR", "name"],
      [{ name: 12 }, "VALIDATION_ERROR", "name"],
      [{ name: "x".repeat(201) }, "VALIDATION_ERROR", "name"],
      [{ name: "A", status: "active" }, "VALIDATION_ERROR", "status"],
      [{ name: "A", merchantId: MISSING_ID }, "VALIDATION_ERROR", "merchantId"],
      [{ name: "A", dailyWithdrawLimit: 1000 }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ name: "A", dailyWithdrawLimit: "0" }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ name: "A", dailyWithdrawLimit: "0.00" }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ name: "A", dailyWithdrawLimit: "10.50" }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ name: "A", dailyWithdrawLimit: "-5" }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ name: "A", dailyWithdrawLimit: "1e5" }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ name: "A", dailyWithdrawLimit: "12345678901234" }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ name: "A", monthlyWithdrawLimit: "abc" }, "INVALID_AMOUNT", "monthlyWithdrawLimit"],
      [{ name: "A", settlementDelayHours: -1 }, "VALIDATION_ERROR", "settlementDelayHours"],
      [{ name: "A", settlementDelayHours: 1.5 }, "VALIDATION_ERROR", "settlementDelayHours"],
      [{ name: "A", settlementDelayHours: "24" }, "VALIDATION_ERROR", "settlementDelayHours"],
      [
        { name: "A", collectionAccount: { ...valid, accountName: 7 } },
        "VALIDATION_ERROR",
        "collectionAccount.accountName",
      ],
      [{ name: "A", settlementDelayHours: 721 }, "VALIDATION_ERROR", "settlementDelayHours"],
      [{ name: "A", collectionAccount: "014-1234567890" }, "VALIDATION_ERROR", "collectionAccount"],
      [{ name: "A", collectionAccount: null }, "VALIDATION_ERROR", "collectionAccount"],
      [
        { name: "A", collectionAccount: { ...valid, bankCode: "999" } },
        "INVALID_BANK_CODE",
        "collectionAccount.bankCode",
      ],
      [
        { name: "A", collectionAccount: { ...valid, bankCode: 14 } },
        "VALIDATION_ERROR",
        "collectionAccount.bankCode",
      ],
      [
        { name: "A", collectionAccount: { ...valid, accountNumber: "12345" } },
        "VALIDATION_ERROR",
        "collectionAccount.accountNumber",
      ],
      [
        { name: "A", collectionAccount: { ...valid, accountNumber: "1234567890123456" } },
        "VALIDATION_ERROR",
        "collectionAccount.accountNumber",
      ],
      [
        { name: "A", collectionAccount: { bankCode: "014", accountNumber: "1234567890" } },
        "VALIDATION_ERROR",
        "collectionAccount.accountName",
      ],
      [
        { name: "A", collectionAccount: { ...valid, branch: "Silom" } },
        "VALIDATION_ERROR",
        "collectionAccount.branch",
      ],
      [{ name: "A", promptpayId: "12345" }, "VALIDATION_ERROR", "promptpayId"],
      [{ name: "A", promptpayId: "1812345678" }, "VALIDATION_ERROR", "promptpayId"],
      // A landline (02 Bangkok, 05 the north, 07 the south) is not a PromptPay mobile number.
      [{ name: "A", promptpayId: "0712345678" }, "VALIDATION_ERROR", "promptpayId"],
      [{ name: "A", promptpayId: "0212345678" }, "VALIDATION_ERROR", "promptpayId"],
      [{ name: "A", promptpayId: "053-123-456" }, "VALIDATION_ERROR", "promptpayId"],
      // A national id whose last digit is not its check digit (1234567890121 is).
      [{ name: "A", promptpayId: "1234567890123" }, "VALIDATION_ERROR", "promptpayId"],
      [{ name: "A", promptpayId: "1-2345-67890-12-0" }, "VALIDATION_ERROR", "promptpayId"],
      [{ name: "A", promptpayId: 812345678 }, "VALIDATION_ERROR", "promptpayId"],
      // Tabs and line breaks are not the spaces an id or account number may carry.
      [{ name: "A", promptpayId: "081\t234\t5678" }, "VALIDATION_ERROR", "promptpayId"],
      [
        { name: "A", collectionAccount: { ...valid, accountNumber: "123\n4567890" } },
        "VALIDATION_ERROR",
        "collectionAccount.accountNumber",
      ],
      [{ name: "A", promptpayReuse: "yes" }, "VALIDATION_ERROR", "promptpayReuse"],
      // The first failing field in the order of the body table wins; an unknown field beats all.
      [{ name: "", dailyWithdrawLimit: "x" }, "VALIDATION_ERROR", "name"],
      [
        { name: "A", dailyWithdrawLimit: "x", collectionAccount: { ...valid, bankCode: "999" } },
        "INVALID_AMOUNT",
        "dailyWithdrawLimit",
      ],
      [
        { name: "A", collectionAccount: { ...valid, bankCode: "999", accountNumber: "1" }, promptpayId: "1" },
        "INVALID_BANK_CODE",
        "collectionAccount.bankCode",
      ],
      [{ name: "", dailyWithdrawLimit: "x", extra: true }, "VALIDATION_ERROR", "extra"],
    ];
    for (const [body, code, field] of cases) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, code, JSON.stringify(body));
      assert.equal(res.body.error.metadata?.field, field, JSON.stringify(body));
      assert.match(res.body.error.message, new RegExp(field.replace(/\./g, "\\.")));
    }
  });

  it("refuses a body that is not a JSON object", async () => {
    for (const payload of ["[]", '"name"', "null"]) {
      const res = await svc.app.inject({
        method: "POST",
        url: "/admin/v1/merchants",
        payload,
        headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(res.statusCode, 400, payload);
      assert.equal(res.json().error.code, "VALIDATION_ERROR");
      assert.equal(res.json().error.metadata.field, "body");
    }
    const none = await svc.admin("POST", "/admin/v1/merchants");
    assert.equal(none.status, 400);
    assert.equal(none.body.error.metadata.field, "body");
  });

  it("answers 404 RESOURCE_NOT_FOUND for unknown and malformed merchant ids", async () => {
    for (const id of [MISSING_ID, "not-a-uuid", "1"]) {
      const get = await svc.admin("GET", `/admin/v1/merchants/${id}`);
      assert.equal(get.status, 404, id);
      assert.equal(get.body.error.code, "RESOURCE_NOT_FOUND");
      const patch = await svc.admin("PATCH", `/admin/v1/merchants/${id}`, { name: "X" });
      assert.equal(patch.status, 404, id);
      assert.equal(patch.body.error.code, "RESOURCE_NOT_FOUND");
      const integration = await svc.admin("POST", `/admin/v1/merchants/${id}/integrations`, {});
      assert.equal(integration.status, 404, id);
      const list = await svc.admin("GET", `/admin/v1/merchants/${id}/integrations`);
      assert.equal(list.status, 404, id);
    }
  });

  it("updates every field, and null removes limits, threshold, account and PromptPay id", async () => {
    const created = (
      await create({
        name: "Patch Me",
        dailyWithdrawLimit: "1000.00",
        monthlyWithdrawLimit: "20000.00",
        collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Patch Me" },
        promptpayId: "0812345678",
      })
    ).body.data;
    const url = `/admin/v1/merchants/${created.id}`;
    svc.clock.advance(60_000);

    const changed = await svc.admin("PATCH", url, {
      name: "Patched",
      dailyWithdrawLimit: "3000",
      monthlyWithdrawLimit: "90000.00",
      settlementDelayHours: 12,
      collectionAccount: { bankCode: "002", accountNumber: "987 654 3210 12", accountName: "Patched Ltd." },
      promptpayId: "1234567890121",
      promptpayReuse: false,
      walletStatus: "frozen",
      withdrawVerificationThreshold: "500000.00",
      status: "disabled",
      provider: null,
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(
      { ...changed.body.data, updatedAt: undefined },
      {
        id: created.id,
        name: "Patched",
        status: "disabled",
        settlementDelayHours: 12,
        collectionAccount: { bankCode: "002", accountNumber: "987654321012", accountName: "Patched Ltd." },
        promptpayId: "1234567890121",
        promptpayReuse: false,
        provider: null,
        walletStatus: "frozen",
        dailyWithdrawLimit: "3000.00",
        monthlyWithdrawLimit: "90000.00",
        withdrawVerificationThreshold: "500000.00",
        createdAt: created.createdAt,
        updatedAt: undefined,
      },
    );
    assert.ok(changed.body.data.updatedAt > created.updatedAt, "updatedAt moves with the clock");

    const cleared = await svc.admin("PATCH", url, {
      dailyWithdrawLimit: null,
      monthlyWithdrawLimit: null,
      withdrawVerificationThreshold: null,
      collectionAccount: null,
      promptpayId: null,
    });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    const m = cleared.body.data;
    assert.equal(m.dailyWithdrawLimit, null);
    assert.equal(m.monthlyWithdrawLimit, null);
    assert.equal(m.withdrawVerificationThreshold, null);
    assert.equal(m.collectionAccount, null);
    assert.equal(m.promptpayId, null);
    assert.equal(m.name, "Patched", "fields left out stay as they were");
    assert.equal(m.walletStatus, "frozen");

    for (const walletStatus of ["closed", "active"]) {
      const res = await svc.admin("PATCH", url, { walletStatus });
      assert.equal(res.body.data.walletStatus, walletStatus);
    }
    const { wallet, ...retrieved } = (await svc.admin("GET", url)).body.data;
    assert.equal(wallet.status, "active");
    assert.deepEqual(retrieved, (await svc.admin("PATCH", url, { status: "disabled" })).body.data);
  });

  it("refuses invalid updates with the field's code", async () => {
    const id = svc.credentials.merchantId;
    const url = `/admin/v1/merchants/${id}`;
    const cases: Array<[unknown, string, string]> = [
      [{}, "VALIDATION_ERROR", "body"],
      [{ name: null }, "VALIDATION_ERROR", "name"],
      [{ walletStatus: "paused" }, "VALIDATION_ERROR", "walletStatus"],
      [{ status: "deleted" }, "VALIDATION_ERROR", "status"],
      [{ withdrawVerificationThreshold: "0" }, "INVALID_AMOUNT", "withdrawVerificationThreshold"],
      [{ withdrawVerificationThreshold: 100 }, "INVALID_AMOUNT", "withdrawVerificationThreshold"],
      [{ dailyWithdrawLimit: "1.5" }, "INVALID_AMOUNT", "dailyWithdrawLimit"],
      [{ settlementDelayHours: null }, "VALIDATION_ERROR", "settlementDelayHours"],
      [{ promptpayReuse: null }, "VALIDATION_ERROR", "promptpayReuse"],
      [
        { collectionAccount: { bankCode: "000", accountNumber: "1234567890", accountName: "X" } },
        "INVALID_BANK_CODE",
        "collectionAccount.bankCode",
      ],
      [{ id: MISSING_ID }, "VALIDATION_ERROR", "id"],
      [{ clockOffsetMs: 1 }, "VALIDATION_ERROR", "clockOffsetMs"],
    ];
    for (const [body, code, field] of cases) {
      const res = await svc.admin("PATCH", url, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, code, JSON.stringify(body));
      assert.equal(res.body.error.metadata?.field, field, JSON.stringify(body));
    }
    assert.equal((await svc.admin("GET", url)).body.data.name, "Test Shop", "nothing was changed");
  });
});

describe("operator API: merchants in live", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService({
      env: { SATANG_ENV: "live", SECRET_KEY: "ab".repeat(32), ...LIVE_PROVIDER_ENV },
    });
  });
  after(async () => {
    await svc?.close();
  });

  it("defaults the settlement delay to 24 hours and issues live keys", async () => {
    const res = await svc.admin("POST", "/admin/v1/merchants", { name: "Live Shop" });
    assert.equal(res.status, 201);
    assert.equal(res.body.data.settlementDelayHours, 24);
    const zero = await svc.admin("POST", "/admin/v1/merchants", { name: "Instant", settlementDelayHours: 0 });
    assert.equal(zero.body.data.settlementDelayHours, 0);
    const integration = await svc.admin("POST", `/admin/v1/merchants/${res.body.data.id}/integrations`, {});
    assert.equal(integration.status, 201);
    assert.equal(integration.body.data.environment, "live");
    assert.match(integration.body.data.apiKey, /^sk_live_/);
  });
});

describe("operator API: integrations", () => {
  let svc: TestService;
  let probe: FastifyInstance;
  before(async () => {
    svc = await startService();
    probe = await buildApp(svc.deps, { extraApiRoutes: probeRoutes });
    await probe.ready();
  });
  after(async () => {
    await probe?.close();
    await svc?.close();
  });

  const newMerchant = async (name = "Key Shop") =>
    (await svc.admin("POST", "/admin/v1/merchants", { name })).body.data.id as string;

  it("creates an integration whose key and secret sign requests, and shows the secret only then", async () => {
    const merchantId = await newMerchant();
    const res = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, {});
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const created = res.body.data;
    assert.match(created.id, /^[0-9a-f-]{36}$/);
    assert.match(created.apiKey, /^sk_test_/);
    assert.match(created.apiSecret, /^sec_/);
    assert.deepEqual(
      { ...created, id: undefined, apiKey: undefined, apiSecret: undefined, createdAt: undefined },
      {
        id: undefined,
        merchantId,
        name: null,
        apiKey: undefined,
        apiSecret: undefined,
        environment: "sandbox",
        redirectUrl: null,
        requireSignatureV2: false,
        revokedAt: null,
        createdAt: undefined,
      },
    );

    const who = await signedWhoami(probe, created);
    assert.equal(who.statusCode, 200, who.body);
    assert.equal(who.json().data.merchantId, merchantId);

    const wrong = await signedWhoami(probe, { apiKey: created.apiKey, apiSecret: `${created.apiSecret}x` });
    assert.equal(wrong.statusCode, 401);
  });

  it("stores the secret encrypted: the column holds no trace of it, yet opens to it", async () => {
    const merchantId = await newMerchant();
    const created = (await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, {})).body.data;
    const row = await svc.deps.db
      .selectFrom("integrations")
      .selectAll()
      .where("id", "=", created.id)
      .executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    assert.ok(!stored.includes(created.apiSecret));
    assert.ok(!stored.includes(created.apiSecret.slice(4)), "not even the random part");
    assert.ok(!stored.includes(Buffer.from(created.apiSecret).toString("base64")));
    assert.equal(svc.deps.secrets.open(row.secret_encrypted), created.apiSecret);
  });

  it("creates a named integration with a redirect URL that requires v2 signatures", async () => {
    const merchantId = await newMerchant();
    const res = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, {
      name: "Checkout",
      redirectUrl: "https://shop.example/thanks?from=satang",
      requireSignatureV2: true,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const created = res.body.data;
    assert.equal(created.name, "Checkout");
    assert.equal(created.redirectUrl, "https://shop.example/thanks?from=satang");
    assert.equal(created.requireSignatureV2, true);
    assert.equal((await signedWhoami(probe, created, "v1")).statusCode, 401);
    assert.equal((await signedWhoami(probe, created, "v2")).statusCode, 200);
  });

  it("creates an integration from a POST without a body", async () => {
    const merchantId = await newMerchant();
    const res = await svc.app.inject({
      method: "POST",
      url: `/admin/v1/merchants/${merchantId}/integrations`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().data.name, null);
  });

  it("refuses invalid integration fields", async () => {
    const merchantId = await newMerchant();
    const cases: Array<[unknown, string]> = [
      [{ name: "" }, "name"],
      [{ name: "x".repeat(201) }, "name"],
      [{ redirectUrl: "ftp://shop.example/x" }, "redirectUrl"],
      [{ redirectUrl: "not a url" }, "redirectUrl"],
      [{ redirectUrl: "/relative" }, "redirectUrl"],
      [{ redirectUrl: `https://shop.example/${"x".repeat(2048)}` }, "redirectUrl"],
      [{ requireSignatureV2: "true" }, "requireSignatureV2"],
      [{ environment: "live" }, "environment"],
      [{ apiSecret: "mine" }, "apiSecret"],
    ];
    for (const [body, field] of cases) {
      const res = await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.metadata.field, field, JSON.stringify(body));
    }
  });

  it("lists a merchant's integrations, revoked ones included, never with secrets", async () => {
    const merchantId = await newMerchant();
    const made = [];
    for (const name of ["one", "two", "three"]) {
      made.push(
        (await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, { name })).body.data,
      );
      svc.clock.advance(1000);
    }
    await svc.admin("DELETE", `/admin/v1/integrations/${made[1].id}`);

    const res = await svc.admin("GET", `/admin/v1/merchants/${merchantId}/integrations`);
    assert.equal(res.status, 200);
    const list = res.body.data;
    assert.equal(list.total, 3);
    assert.equal(list.page, 1);
    assert.equal(list.limit, 10);
    assert.equal(list.totalPages, 1);
    assert.deepEqual(
      list.data.map((i: { name: string }) => i.name),
      ["one", "two", "three"],
    );
    assert.equal(list.data[0].revokedAt, null);
    assert.ok(list.data[1].revokedAt);
    assert.equal(list.data[0].apiKey, made[0].apiKey);
    const text = JSON.stringify(res.body);
    for (const created of made) assert.ok(!text.includes(created.apiSecret));
    for (const item of list.data) {
      assert.ok(!("apiSecret" in item) && !("secret" in item) && !("secretEncrypted" in item));
    }

    const second = await svc.admin("GET", `/admin/v1/merchants/${merchantId}/integrations?page=2&limit=2`);
    assert.equal(second.status, 200);
    assert.deepEqual(
      second.body.data.data.map((i: { name: string }) => i.name),
      ["three"],
    );
    assert.equal(second.body.data.totalPages, 2);

    for (const query of ["limit=0", "limit=101", "page=0", "page=x", "sort=name"]) {
      const bad = await svc.admin("GET", `/admin/v1/merchants/${merchantId}/integrations?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.error.code, "VALIDATION_ERROR");
      assert.equal(bad.body.error.metadata.field, query.split("=")[0]);
    }
  });

  it("revokes an integration: its key fails at once with INVALID_CREDENTIALS, and revoking again is harmless", async () => {
    const merchantId = await newMerchant();
    const created = (await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, {})).body.data;
    const keep = (await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, {})).body.data;
    assert.equal((await signedWhoami(probe, created)).statusCode, 200);

    const res = await svc.admin("DELETE", `/admin/v1/integrations/${created.id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.id, created.id);
    assert.ok(res.body.data.revokedAt);
    assert.ok(!("apiSecret" in res.body.data));

    const after = await signedWhoami(probe, created);
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().error.code, "INVALID_CREDENTIALS");
    assert.equal((await signedWhoami(probe, keep)).statusCode, 200, "the merchant's other key still works");

    const again = await svc.admin("DELETE", `/admin/v1/integrations/${created.id}`);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.revokedAt, res.body.data.revokedAt);

    for (const id of [MISSING_ID, "nope"]) {
      const missing = await svc.admin("DELETE", `/admin/v1/integrations/${id}`);
      assert.equal(missing.status, 404, id);
      assert.equal(missing.body.error.code, "RESOURCE_NOT_FOUND");
    }
  });

  it("a disabled merchant's valid key gets 401 AUTHENTICATION_ERROR until it is enabled again", async () => {
    const merchantId = await newMerchant();
    const created = (await svc.admin("POST", `/admin/v1/merchants/${merchantId}/integrations`, {})).body.data;
    await svc.admin("PATCH", `/admin/v1/merchants/${merchantId}`, { status: "disabled" });
    const refused = await signedWhoami(probe, created);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, "AUTHENTICATION_ERROR");
    await svc.admin("PATCH", `/admin/v1/merchants/${merchantId}`, { status: "active" });
    assert.equal((await signedWhoami(probe, created)).statusCode, 200);
  });
});
