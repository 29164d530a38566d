/**
 * Provider selection (CONTRACT 15) in the composition root: which provider a deployment's
 * configuration builds, once, with nothing in module state.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Kysely } from "kysely";
import { loadConfig } from "../../../src/config.ts";
import type { Database } from "../../../src/db/types.ts";
import { buildDeps } from "../../../src/deps.ts";
import { SecretBox } from "../../../src/lib/crypto.ts";
import { ScbProvider } from "../../../src/providers/scb/provider.ts";
import { SimulatedBank } from "../../../src/providers/simulated/bank.ts";
import { SCB_TEST } from "../../helpers/scb/setup.ts";

const SCB_ENV = {
  SATANG_PROVIDER: "scb",
  SCB_API_BASE_URL: "http://127.0.0.1:7799",
  SCB_API_KEY: SCB_TEST.apiKey,
  SCB_API_SECRET: SCB_TEST.apiSecret,
  SCB_BILLER_ID: SCB_TEST.billerId,
  SCB_CALLBACK_TOKEN: "x".repeat(32),
  SCB_PAYER_ACCOUNT_NUMBER: SCB_TEST.payer.accountNumber,
  SCB_PAYER_TAX_ID: SCB_TEST.payer.taxId,
  SCB_CORPORATE_ID: SCB_TEST.payer.corporateId,
};
const LIVE = { SATANG_ENV: "live", SECRET_KEY: "ab".repeat(32) };

/** The store is never touched while the dependencies are built. */
const db = {} as Kysely<Database>;

function depsOf(env: Record<string, string>) {
  return buildDeps({
    config: loadConfig(env),
    db,
    storeKind: "embedded",
    secrets: new SecretBox(Buffer.alloc(32, 1)),
  });
}

describe("provider selection", () => {
  it("sandbox: the simulated provider by default, no SCB, PromptPay paid to the merchant's id", () => {
    const deps = depsOf({});
    assert.ok(deps.provider instanceof SimulatedBank);
    assert.equal(deps.scb, undefined);
    assert.equal(deps.collector, undefined);
  });

  it("refuses the simulated provider in live", () => {
    assert.throws(() => loadConfig({ ...LIVE, SATANG_PROVIDER: "simulated" }), /SATANG_PROVIDER=simulated/);
  });

  it("live with SCB: SCB pays withdraws, collects PromptPay, and has its confirmation path", () => {
    const deps = depsOf({ ...LIVE, ...SCB_ENV });
    assert.ok(deps.provider instanceof ScbProvider);
    assert.equal(deps.provider?.name, "scb");
    assert.equal(deps.simulator, undefined);
    assert.equal(deps.scb?.confirmationPath, `/providers/scb/confirmations/${"x".repeat(32)}`);
    assert.match(deps.collector?.qrPayload("ABC123", 10_000n) ?? "", new RegExp(SCB_TEST.billerId));
  });

  it("live with SCB and SATANG_PAYOUTS=manual: no payout provider, collection still through SCB", () => {
    const deps = depsOf({
      ...LIVE,
      ...SCB_ENV,
      SATANG_PAYOUTS: "manual",
      SCB_PAYER_ACCOUNT_NUMBER: "",
      SCB_PAYER_TAX_ID: "",
      SCB_CORPORATE_ID: "",
    });
    assert.equal(deps.provider, undefined);
    assert.equal(deps.scb?.payouts, null);
    assert.ok(deps.collector);
  });

  it("refuses a live start that names no provider, naming SATANG_PROVIDER", () => {
    assert.throws(() => depsOf(LIVE), /SATANG_PROVIDER is required/);
  });

  it("builds one connector per process: each buildDeps its own, no shared module state", () => {
    const a = depsOf({ ...LIVE, ...SCB_ENV });
    const b = depsOf({ ...LIVE, ...SCB_ENV });
    assert.notEqual(a.scb, b.scb);
    assert.notEqual(a.scb?.client, b.scb?.client);
  });
});
