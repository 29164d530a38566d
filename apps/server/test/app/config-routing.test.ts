import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.ts";

const SCB_ENV = {
  SCB_API_BASE_URL: "https://api-sandbox.partners.scb/partners/sandbox/",
  SCB_API_KEY: "l7key0123456789abcdef",
  SCB_API_SECRET: "secret-abcdef0123456789",
  SCB_BILLER_ID: "010556012345678",
  SCB_CALLBACK_TOKEN: "cbtoken-0123456789abcdefghijklmnopqrstuv",
  SCB_PAYER_ACCOUNT_NUMBER: "1234567890",
  SCB_PAYER_TAX_ID: "0105560123456",
  SCB_CORPORATE_ID: "CORP01",
};
const OPN_ENV = {
  OPN_SECRET_KEY: "skey_test_5x0abcdefghij",
  OPN_CALLBACK_TOKEN: "o".repeat(40),
};
const LIVE = { SATANG_ENV: "live", SECRET_KEY: "a".repeat(64) };
const BOTH = { ...SCB_ENV, ...OPN_ENV };

function refuses(env: Record<string, string>, ...needles: string[]) {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) =>
      error instanceof ConfigError && needles.every((needle) => error.message.includes(needle)),
    JSON.stringify(env),
  );
}

describe("SATANG_PROVIDER as a failover order", () => {
  it("reads one name as an order of one, `provider` its first", () => {
    const opn = loadConfig({ ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn" });
    assert.deepEqual(opn.providers, ["opn"]);
    assert.equal(opn.provider, "opn");
    assert.equal(opn.opn?.apiBaseUrl, "https://api.omise.co");
    assert.equal(opn.scb, undefined);
    assert.deepEqual(loadConfig({}).providers, ["simulated"]);
  });

  it("reads a comma-separated order, trimming spaces, with each named connector's settings", () => {
    const config = loadConfig({ ...LIVE, ...BOTH, SATANG_PROVIDER: " scb , opn " });
    assert.deepEqual(config.providers, ["scb", "opn"]);
    assert.equal(config.provider, "scb");
    assert.ok(config.scb);
    assert.ok(config.opn);
    assert.deepEqual(loadConfig({ ...LIVE, ...BOTH, SATANG_PROVIDER: "opn,scb" }).providers, ["opn", "scb"]);
  });

  it("refuses a connector named twice", () => {
    refuses({ ...BOTH, SATANG_PROVIDER: "scb,opn,scb" }, "SATANG_PROVIDER", "twice");
    refuses({ ...BOTH, SATANG_PROVIDER: "opn,opn" }, "SATANG_PROVIDER", "twice");
  });

  it("refuses an unknown name or an empty entry in the order", () => {
    refuses({ ...BOTH, SATANG_PROVIDER: "scb,kbank" }, "SATANG_PROVIDER", "kbank");
    refuses({ ...BOTH, SATANG_PROVIDER: "scb,,opn" }, "SATANG_PROVIDER");
    refuses({ ...BOTH, SATANG_PROVIDER: "scb," }, "SATANG_PROVIDER");
  });

  it("keeps `simulated` alone: refused in an order, in sandbox as in live", () => {
    refuses({ ...BOTH, SATANG_PROVIDER: "simulated,opn" }, "SATANG_PROVIDER", "alone");
    refuses({ ...BOTH, SATANG_PROVIDER: "opn,simulated" }, "SATANG_PROVIDER", "alone");
    refuses({ ...LIVE, SATANG_PROVIDER: "simulated" }, "SATANG_PROVIDER", "live");
    assert.deepEqual(loadConfig({ SATANG_PROVIDER: "simulated" }).providers, ["simulated"]);
  });

  it("requires it in live, naming the variable, blank included", () => {
    refuses({ ...LIVE, ...BOTH }, "SATANG_PROVIDER is required");
    refuses({ ...LIVE, ...BOTH, SATANG_PROVIDER: " " }, "SATANG_PROVIDER is required");
  });

  it("requires the settings of every connector it names, the second one included", () => {
    refuses({ ...LIVE, ...SCB_ENV, SATANG_PROVIDER: "scb,opn" }, "OPN_SECRET_KEY");
    refuses({ ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn,scb" }, "SCB_API_BASE_URL");
  });
});

describe("SATANG_PAYOUT_PROVIDER", () => {
  it("defaults to the first connector of the order that pays out", () => {
    assert.equal(loadConfig({ ...LIVE, ...BOTH, SATANG_PROVIDER: "scb,opn" }).payoutProvider, "scb");
    assert.equal(loadConfig({ ...LIVE, ...BOTH, SATANG_PROVIDER: "opn,scb" }).payoutProvider, "opn");
    assert.equal(loadConfig({}).payoutProvider, "simulated");
  });

  it("takes any connector of the order, and refuses one the order does not name", () => {
    const config = loadConfig({
      ...LIVE,
      ...BOTH,
      SATANG_PROVIDER: "scb,opn",
      SATANG_PAYOUT_PROVIDER: "opn",
    });
    assert.equal(config.payoutProvider, "opn");
    refuses(
      { ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn", SATANG_PAYOUT_PROVIDER: "scb" },
      "SATANG_PAYOUT_PROVIDER",
      "opn",
    );
    refuses(
      { ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn", SATANG_PAYOUT_PROVIDER: "kbank" },
      "SATANG_PAYOUT_PROVIDER",
    );
  });

  it("is irrelevant with SATANG_PAYOUTS=manual: not read, and undefined", () => {
    const config = loadConfig({
      ...LIVE,
      ...OPN_ENV,
      SATANG_PROVIDER: "opn",
      SATANG_PAYOUTS: "manual",
      SATANG_PAYOUT_PROVIDER: "scb",
    });
    assert.equal(config.payoutProvider, undefined);
  });

  it("needs SCB's payer settings only when SCB pays withdraws", () => {
    const { SCB_PAYER_TAX_ID: _omit, ...withoutTaxId } = SCB_ENV;
    const opnPays = loadConfig({
      ...LIVE,
      ...withoutTaxId,
      ...OPN_ENV,
      SATANG_PROVIDER: "scb,opn",
      SATANG_PAYOUT_PROVIDER: "opn",
    });
    assert.equal(opnPays.scb?.payer, null);
    refuses({ ...LIVE, ...withoutTaxId, ...OPN_ENV, SATANG_PROVIDER: "scb,opn" }, "SCB_PAYER_TAX_ID");
  });
});

describe("connector base URLs in live", () => {
  it("refuses an http Opn base URL in live unless it is a loopback address, naming OPN_API_BASE_URL", () => {
    for (const url of ["http://api.omise.co", "http://10.0.0.5:8080", "http://128.0.0.1", "http://[::2]"]) {
      refuses(
        { ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn", OPN_API_BASE_URL: url },
        "OPN_API_BASE_URL",
        "https",
      );
      // The sandbox keeps accepting it.
      assert.ok(loadConfig({ ...OPN_ENV, SATANG_PROVIDER: "opn", OPN_API_BASE_URL: url }).opn, url);
    }
    for (const url of [
      "https://api.omise.co",
      "http://127.0.0.1:7799",
      "http://127.255.255.254",
      "http://[::1]:8080",
      "http://localhost:3000",
    ]) {
      assert.ok(loadConfig({ ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn", OPN_API_BASE_URL: url }).opn, url);
    }
  });

  it("checks the base URL of every connector of the order, not only the first", () => {
    refuses(
      { ...LIVE, ...BOTH, SATANG_PROVIDER: "opn,scb", SCB_API_BASE_URL: "http://scb.example" },
      "SCB_API_BASE_URL",
      "https",
    );
    refuses(
      { ...LIVE, ...BOTH, SATANG_PROVIDER: "scb,opn", OPN_API_BASE_URL: "http://opn.example" },
      "OPN_API_BASE_URL",
      "https",
    );
  });
});
