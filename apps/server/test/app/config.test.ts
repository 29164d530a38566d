import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { inspect } from "node:util";
import { ConfigError, isLoopbackHost, loadConfig } from "../../src/config.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

describe("configuration", () => {
  it("defaults to a sandbox on 127.0.0.1:3000 with the embedded store", () => {
    const config = loadConfig({});
    assert.equal(config.env, "sandbox");
    assert.equal(config.port, 3000);
    assert.equal(config.host, "127.0.0.1");
    assert.equal(config.publicBaseUrl, "http://127.0.0.1:3000");
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, "./data");
    assert.equal(config.rateLimitPerMinute, 100);
  });

  it("uses 1000 requests per minute in live and lets RATE_LIMIT_PER_MINUTE override", () => {
    const key = "a".repeat(64);
    assert.equal(
      loadConfig({ ...LIVE_PROVIDER_ENV, SATANG_ENV: "live", SECRET_KEY: key }).rateLimitPerMinute,
      1000,
    );
    assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: "7" }).rateLimitPerMinute, 7);
  });

  it("limits failed operator tokens to 20 a minute by default, 1 to 1,000,000 when set", () => {
    assert.equal(loadConfig({}).operatorAuthFailuresPerMinute, 20);
    assert.equal(loadConfig({ OPERATOR_AUTH_FAILURES_PER_MINUTE: "1" }).operatorAuthFailuresPerMinute, 1);
    assert.equal(
      loadConfig({ OPERATOR_AUTH_FAILURES_PER_MINUTE: "1000000" }).operatorAuthFailuresPerMinute,
      1_000_000,
    );
    // The limit cannot be turned off: 0 is refused, as is anything past the bound or not a whole number.
    for (const value of ["0", "1000001", "-1", "1.5", "abc"]) {
      assert.throws(
        () => loadConfig({ OPERATOR_AUTH_FAILURES_PER_MINUTE: value }),
        (error: unknown) =>
          error instanceof ConfigError && /OPERATOR_AUTH_FAILURES_PER_MINUTE/.test(error.message),
        value,
      );
    }
  });

  it("refuses to start live without SECRET_KEY", () => {
    assert.throws(() => loadConfig({ SATANG_ENV: "live" }), /SECRET_KEY is required/);
  });

  it("names the variable in every refusal", () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ SATANG_ENV: "prod" }, /SATANG_ENV/],
      [{ PORT: "70000" }, /PORT/],
      [{ PORT: "abc" }, /PORT/],
      [{ HOST: "not a host" }, /HOST/],
      [{ METRICS_PORT: "3000" }, /METRICS_PORT must differ from PORT/],
      [{ METRICS_PORT: "8080", PORT: "8080" }, /METRICS_PORT must differ from PORT/],
      [{ HOST: "http://example.com" }, /HOST/],
      [{ HOST: "300.1.2.3:80" }, /HOST/],
      [{ HOST: "fe80::1%eth0" }, /HOST/],
      [{ HOST: "256.0.0.1" }, /HOST/],
      [{ HOST: "999.1.1.1" }, /HOST/],
      [{ HOST: "1.2.3.4.5" }, /HOST/],
      [{ HOST: "example.0x7f" }, /HOST/],
      [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL/],
      [{ REDIS_URL: "nope" }, /REDIS_URL/],
      [{ RATE_LIMIT_PER_MINUTE: "0" }, /RATE_LIMIT_PER_MINUTE/],
      [{ SECRET_KEY: "short" }, /SECRET_KEY/],
      [{ ADMIN_TOKEN: "short" }, /ADMIN_TOKEN/],
      [{ ADMIN_TOKEN: "my operator token 2026" }, /ADMIN_TOKEN must be visible ASCII/],
      [{ ADMIN_TOKEN: " ".repeat(16) }, /ADMIN_TOKEN must be visible ASCII/],
      [{ ADMIN_TOKEN: "tab\tinside-the-token" }, /ADMIN_TOKEN must be visible ASCII/],
      [{ ADMIN_TOKEN: "โทเค็นของผู้ดูแลระบบยาว" }, /ADMIN_TOKEN must be visible ASCII/],
      [{ METRICS_TOKEN: "metrics token 2026!" }, /METRICS_TOKEN must be visible ASCII/],
      [{ PUBLIC_BASE_URL: "ftp://x" }, /PUBLIC_BASE_URL/],
      [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    ];
    for (const [env, pattern] of cases) {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && pattern.test(error.message),
      );
    }
  });

  it("never repeats a URL setting's password in a refusal", () => {
    for (const [name, value] of [
      ["DATABASE_URL", "postgres://u:paSECRET@127.0.0.1:99999/db"],
      ["DATABASE_URL", "postgres://user:PW SECRET123@@"],
      ["DATABASE_DIRECT_URL", "postgres://u:paSECRET@127.0.0.1:99999/db"],
      ["REDIS_URL", "redis://:paSECRET@[bad"],
      ["PUBLIC_BASE_URL", "https://user:paSECRET@pay.example"],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: unknown) =>
          error instanceof ConfigError && error.message.includes(name) && !error.message.includes("SECRET"),
        `${name}=${value}`,
      );
    }
    assert.throws(
      () => loadConfig({ DATABASE_URL: "not a url" }),
      /DATABASE_URL must be a URL, got "not a url"/,
    );
  });

  it("refuses a PUBLIC_BASE_URL with a query, a fragment or credentials, and keeps a path", () => {
    for (const value of [
      "https://pay.example?src=x",
      "https://pay.example/#frag",
      "https://pay.example/?",
      "https://u@pay.example",
    ]) {
      assert.throws(() => loadConfig({ PUBLIC_BASE_URL: value }), /PUBLIC_BASE_URL must not/, value);
    }
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: "https://pay.example/satang/" }).publicBaseUrl,
      "https://pay.example/satang",
    );
  });

  it("accepts HOST as an IPv4 or IPv6 address or a host name, and builds PUBLIC_BASE_URL from it", () => {
    assert.equal(loadConfig({ HOST: "0.0.0.0" }).publicBaseUrl, "http://0.0.0.0:3000");
    assert.equal(loadConfig({ HOST: "::" }).publicBaseUrl, "http://[::]:3000");
    assert.equal(loadConfig({ HOST: "::1", PORT: "8080" }).publicBaseUrl, "http://[::1]:8080");
    assert.equal(loadConfig({ HOST: "api.example.co.th" }).host, "api.example.co.th");
    assert.equal(loadConfig({ HOST: "localhost" }).publicBaseUrl, "http://localhost:3000");
    assert.equal(loadConfig({ HOST: "db-1.internal" }).host, "db-1.internal");
    assert.equal(loadConfig({ HOST: "255.255.255.255" }).host, "255.255.255.255");
    for (const config of [loadConfig({ HOST: "::" }), loadConfig({ HOST: "localhost" })]) {
      assert.doesNotThrow(() => new URL(config.publicBaseUrl));
    }
  });

  it("accepts ADMIN_TOKEN and METRICS_TOKEN of 16 visible ASCII characters, punctuation included", () => {
    const token = "a!b#c$d%e&f'g(h)~";
    assert.equal(loadConfig({ ADMIN_TOKEN: token }).adminToken, token);
    assert.equal(loadConfig({ METRICS_TOKEN: "0123456789abcdef" }).metrics.token, "0123456789abcdef");
  });

  it("accepts SECRET_KEY as hex or base64 of 32 bytes", () => {
    assert.equal(loadConfig({ SECRET_KEY: "ab".repeat(32) }).secretKey?.length, 32);
    assert.equal(loadConfig({ SECRET_KEY: Buffer.alloc(32, 1).toString("base64") }).secretKey?.length, 32);
  });

  it("strips a trailing slash from PUBLIC_BASE_URL", () => {
    assert.equal(
      loadConfig({ PUBLIC_BASE_URL: "https://pay.example.com/" }).publicBaseUrl,
      "https://pay.example.com",
    );
  });
});

const SCB_ENV = {
  SATANG_PROVIDER: "scb",
  SCB_API_BASE_URL: "https://api-sandbox.partners.scb/partners/sandbox/",
  SCB_API_KEY: "l7key0123456789abcdef",
  SCB_API_SECRET: "secret-abcdef0123456789",
  SCB_BILLER_ID: "010556012345678",
  SCB_CALLBACK_TOKEN: "cbtoken-0123456789abcdefghijklmnopqrstuv",
  SCB_PAYER_ACCOUNT_NUMBER: "1234567890",
  SCB_PAYER_TAX_ID: "0105560123456",
  SCB_CORPORATE_ID: "CORP01",
};
const LIVE = { SATANG_ENV: "live", SECRET_KEY: "a".repeat(64) };
const OPN_SETTINGS = {
  OPN_SECRET_KEY: "skey_test_5x0abcdefghij",
  OPN_CALLBACK_TOKEN: "opn-cb-0123456789abcdefghijklmnopqrstuv",
};

describe("provider configuration", () => {
  it("uses the simulated provider in sandbox unless one is named", () => {
    assert.equal(loadConfig({}).provider, "simulated");
    assert.equal(loadConfig({}).payouts, "provider");
    assert.equal(loadConfig({}).scb, undefined);
    assert.equal(loadConfig({ ...SCB_ENV }).provider, "scb");
  });

  it("refuses a live start that names no provider, naming SATANG_PROVIDER", () => {
    for (const provider of [undefined, ""]) {
      const env: Record<string, string> = { ...LIVE };
      if (provider !== undefined) env.SATANG_PROVIDER = provider;
      assert.throws(
        () => loadConfig(env),
        (error: unknown) =>
          error instanceof ConfigError &&
          /SATANG_PROVIDER is required when SATANG_ENV=live/.test(error.message),
      );
    }
    assert.equal(loadConfig({ ...LIVE, ...SCB_ENV }).provider, "scb");
  });

  it("refuses an http SCB base URL in live unless it is a loopback address, naming SCB_API_BASE_URL", () => {
    for (const url of [
      "http://api-sandbox.partners.scb/partners/sandbox",
      "http://10.0.0.5:8080",
      "http://128.0.0.1",
      "http://[::2]:8080",
      "http://localhost.example.com",
      "http://127.0.0.1.nip.io",
    ]) {
      assert.throws(
        () => loadConfig({ ...LIVE, ...SCB_ENV, SCB_API_BASE_URL: url }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.includes("SCB_API_BASE_URL") &&
          error.message.includes("https"),
        url,
      );
      // The sandbox keeps accepting it (a developer's own SCB stand-in).
      assert.equal(
        loadConfig({ ...SCB_ENV, SCB_API_BASE_URL: url }).scb!.apiBaseUrl,
        url.replace(/\/+$/, ""),
      );
    }
    for (const url of [
      "https://api.partners.scb/partners",
      "http://127.0.0.1:7799",
      "http://127.255.255.254",
      "http://127.1:80",
      "http://[::1]:8080",
      "http://localhost:3000/scb",
      "http://LOCALHOST",
    ]) {
      assert.ok(loadConfig({ ...LIVE, ...SCB_ENV, SCB_API_BASE_URL: url }).scb, url);
    }
    assert.equal(isLoopbackHost("[::1]"), true);
    assert.equal(isLoopbackHost("127.0.0.1"), true);
    assert.equal(isLoopbackHost("126.255.255.255"), false);
  });

  it("refuses the simulated provider in live", () => {
    assert.throws(
      () => loadConfig({ ...LIVE, SATANG_PROVIDER: "simulated" }),
      (error: unknown) => error instanceof ConfigError && /SATANG_PROVIDER/.test(error.message),
    );
  });

  it("reads every SCB setting with its default", () => {
    const config = loadConfig({ ...LIVE, ...SCB_ENV });
    assert.equal(config.provider, "scb");
    const scb = config.scb!;
    assert.equal(scb.apiBaseUrl, "https://api-sandbox.partners.scb/partners/sandbox");
    assert.equal(scb.billerId, "010556012345678");
    assert.equal(scb.ref2, null);
    assert.deepEqual(scb.payer, {
      accountNumber: "1234567890",
      taxId: "0105560123456",
      corporateId: "CORP01",
    });
    assert.equal(scb.reconcileIntervalMs, 60_000);
    assert.equal(scb.inquiryDelayMs, 2_700_000);
    assert.equal(scb.requestTimeoutMs, 15_000);
    assert.equal(scb.tokenRefreshMarginMs, 120_000);
  });

  it("accepts timing settings at their bounds and refuses them one past", () => {
    const at = (name: string, value: string) => loadConfig({ ...SCB_ENV, [name]: value }).scb!;
    assert.equal(at("SCB_INQUIRY_DELAY_S", "0").inquiryDelayMs, 0);
    assert.equal(at("SCB_INQUIRY_DELAY_S", "2700").inquiryDelayMs, 2_700_000);
    assert.equal(at("SCB_RECONCILE_INTERVAL_S", "1").reconcileIntervalMs, 1_000);
    assert.equal(at("SCB_TIMEOUT_MS", "100").requestTimeoutMs, 100);
    assert.equal(at("SCB_REF2", "A".repeat(20)).ref2, "A".repeat(20));
    assert.equal(at("SCB_REF3_PREFIX", "SCB").ref3Prefix, "SCB");
    assert.equal(at("SCB_REF3_PREFIX", "A".repeat(8)).ref3Prefix, "A".repeat(8));
    assert.equal(loadConfig({ ...SCB_ENV }).scb!.ref3Prefix, null);
    for (const [name, value] of [
      ["SCB_INQUIRY_DELAY_S", "2701"],
      ["SCB_RECONCILE_INTERVAL_S", "0"],
      ["SCB_TIMEOUT_MS", "99"],
      ["SCB_TOKEN_REFRESH_MARGIN_S", "901"],
      ["SCB_REF2", "A".repeat(21)],
      ["SCB_REF2", "abc"],
      ["SCB_REF3_PREFIX", "A".repeat(9)],
      ["SCB_REF3_PREFIX", "scb"],
      ["SCB_REF3_PREFIX", "SC-B"],
    ]) {
      assert.throws(
        () => loadConfig({ ...SCB_ENV, [name!]: value! }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name!),
        `${name}=${value}`,
      );
    }
  });

  it("names the variable of every missing or malformed SCB setting without printing its value", () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ SCB_API_BASE_URL: "" }, "SCB_API_BASE_URL"],
      [{ SCB_API_BASE_URL: "ftp://scb.example" }, "SCB_API_BASE_URL"],
      [{ SCB_API_BASE_URL: "https://user:hunter2pass@scb.example" }, "SCB_API_BASE_URL"],
      [{ SCB_API_KEY: "" }, "SCB_API_KEY"],
      [{ SCB_API_SECRET: "" }, "SCB_API_SECRET"],
      [{ SCB_API_SECRET: "has space secret" }, "SCB_API_SECRET"],
      [{ SCB_BILLER_ID: "12345678901234" }, "SCB_BILLER_ID"],
      [{ SCB_BILLER_ID: "1234567890123456" }, "SCB_BILLER_ID"],
      [{ SCB_CALLBACK_TOKEN: "t".repeat(31) }, "SCB_CALLBACK_TOKEN"],
      [{ SCB_CALLBACK_TOKEN: `${"t".repeat(31)}/` }, "SCB_CALLBACK_TOKEN"],
      [{ SCB_PAYER_ACCOUNT_NUMBER: "12345" }, "SCB_PAYER_ACCOUNT_NUMBER"],
      [{ SCB_PAYER_TAX_ID: "123" }, "SCB_PAYER_TAX_ID"],
      [{ SCB_CORPORATE_ID: "x".repeat(36) }, "SCB_CORPORATE_ID"],
      [{ SATANG_PROVIDER: "kbank" }, "SATANG_PROVIDER"],
      [{ SATANG_PAYOUTS: "later" }, "SATANG_PAYOUTS"],
    ];
    const secrets = ["hunter2pass", "has space secret"];
    for (const [override, name] of cases) {
      assert.throws(
        () => loadConfig({ ...SCB_ENV, ...override }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.includes(name) &&
          secrets.every((secret) => !error.message.includes(secret)),
        name,
      );
    }
  });

  it("accepts a callback token of exactly 32 characters", () => {
    const token = "t".repeat(32);
    assert.equal(loadConfig({ ...SCB_ENV, SCB_CALLBACK_TOKEN: token }).scb!.callbackToken, token);
  });

  it("refuses SCB payouts without the payer settings unless payouts are manual", () => {
    const { SCB_PAYER_TAX_ID: _omit, ...withoutTaxId } = SCB_ENV;
    assert.throws(
      () => loadConfig(withoutTaxId),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes("SCB_PAYER_TAX_ID") &&
        error.message.includes("SATANG_PAYOUT_PROVIDER") &&
        error.message.includes("SATANG_PAYOUTS=manual"),
    );
    const manual = loadConfig({ ...withoutTaxId, SATANG_PAYOUTS: "manual" });
    assert.equal(manual.payouts, "manual");
    assert.equal(manual.scb!.payer, null);
  });

  it("checks a payer setting that is set even when SCB does not pay out", () => {
    const others = [
      { SATANG_PAYOUTS: "manual" },
      { SATANG_PROVIDER: "scb,opn", SATANG_PAYOUT_PROVIDER: "opn", ...OPN_SETTINGS },
    ];
    for (const other of others) {
      for (const [name, bad] of [
        ["SCB_PAYER_ACCOUNT_NUMBER", "12345"],
        ["SCB_PAYER_TAX_ID", "12-34"],
        ["SCB_CORPORATE_ID", "has space"],
      ] as const) {
        assert.throws(
          () => loadConfig({ ...SCB_ENV, ...other, [name]: bad }),
          (error: unknown) => error instanceof ConfigError && error.message.startsWith(`${name} must be`),
          `${name} with ${JSON.stringify(other)}`,
        );
      }
      // Kept, so SCB can still be asked about the transfers it holds (lifecycle/context.ts).
      assert.equal(
        loadConfig({ ...SCB_ENV, ...other }).scb!.payer?.accountNumber,
        SCB_ENV.SCB_PAYER_ACCOUNT_NUMBER,
      );
      const { SCB_CORPORATE_ID: _left, ...partial } = SCB_ENV;
      assert.equal(loadConfig({ ...partial, ...other }).scb!.payer, null);
    }
  });

  it("never prints the SCB secrets when the configuration is logged", () => {
    const config = loadConfig({ ...SCB_ENV });
    for (const text of [JSON.stringify(config), inspect(config, { depth: 5 })]) {
      for (const secret of [SCB_ENV.SCB_API_KEY, SCB_ENV.SCB_API_SECRET, SCB_ENV.SCB_CALLBACK_TOKEN]) {
        assert.ok(!text.includes(secret), "a secret appears in the printed configuration");
      }
      assert.ok(text.includes("010556012345678"), "the biller id, not a secret, is still shown");
    }
  });
});
