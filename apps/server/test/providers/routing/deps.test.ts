/**
 * The router and the payout connector in the composition root (docs/providers/routing.md): built
 * once from the configuration, from the same connector objects.
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
  SCB_API_BASE_URL: "http://127.0.0.1:7799",
  SCB_API_KEY: SCB_TEST.apiKey,
  SCB_API_SECRET: SCB_TEST.apiSecret,
  SCB_BILLER_ID: SCB_TEST.billerId,
  SCB_CALLBACK_TOKEN: "x".repeat(32),
  SCB_PAYER_ACCOUNT_NUMBER: SCB_TEST.payer.accountNumber,
  SCB_PAYER_TAX_ID: SCB_TEST.payer.taxId,
  SCB_CORPORATE_ID: SCB_TEST.payer.corporateId,
};
const OPN_ENV = {
  OPN_API_BASE_URL: "http://127.0.0.1:7798",
  OPN_SECRET_KEY: "skey_test_abc",
  OPN_CALLBACK_TOKEN: "o".repeat(32),
};
const LIVE = { SATANG_ENV: "live", SECRET_KEY: "ab".repeat(32) };

/** The store is never touched while the dependencies are built. */
const db = {} as Kysely<Database>;

const depsOf = (env: Record<string, string>) =>
  buildDeps({
    config: loadConfig(env),
    db,
    storeKind: "embedded",
    secrets: new SecretBox(Buffer.alloc(32, 1)),
  });

describe("router and payout connector in the composition root", () => {
  it("has no router in the sandbox; routes over SCB alone, which pays withdraws", () => {
    const sandbox = depsOf({});
    assert.equal(sandbox.router, undefined);
    assert.ok(sandbox.provider instanceof SimulatedBank);
    const scb = depsOf({ ...LIVE, ...SCB_ENV, SATANG_PROVIDER: "scb" });
    assert.deepEqual(scb.router?.names(), ["scb"]);
    assert.ok(scb.provider instanceof ScbProvider);
  });

  it("routes over Opn and pays withdraws through the same connector's payouts", () => {
    const deps = depsOf({ ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn" });
    assert.deepEqual(deps.router?.names(), ["opn"]);
    assert.deepEqual(deps.router?.health(), [{ connector: "opn", state: "closed" }]);
    assert.ok(deps.provider, "Opn pays withdraws");
    assert.ok(!(deps.provider instanceof SimulatedBank));
  });

  it("leaves withdraws to the desk with SATANG_PAYOUTS=manual", () => {
    const deps = depsOf({ ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn", SATANG_PAYOUTS: "manual" });
    assert.equal(deps.provider, undefined);
    assert.deepEqual(deps.router?.names(), ["opn"]);
    // What Opn was sent before the desk took over is still asked about through Opn.
    assert.equal(deps.heldPayouts("opn")?.name, "opn");
  });

  it("keeps the payouts each connector holds with it, whoever takes new payouts", () => {
    const env = { ...LIVE, ...SCB_ENV, ...OPN_ENV, SATANG_PROVIDER: "scb,opn" };
    const opnPays = depsOf({ ...env, SATANG_PAYOUT_PROVIDER: "opn" });
    assert.ok(opnPays.heldPayouts("scb") instanceof ScbProvider, "SCB's transfers are asked of SCB");
    assert.equal(opnPays.heldPayouts("opn"), opnPays.provider);
    const scbPays = depsOf(env);
    assert.equal(scbPays.heldPayouts("scb"), scbPays.provider);
    assert.equal(scbPays.heldPayouts("opn")?.name, "opn", "Opn's transfers are asked of Opn");
    const manual = depsOf({ ...env, SATANG_PAYOUTS: "manual" });
    assert.ok(manual.heldPayouts("scb") instanceof ScbProvider);
    assert.equal(manual.heldPayouts("elsewhere"), undefined);
    const opnOnly = depsOf({ ...LIVE, ...OPN_ENV, SATANG_PROVIDER: "opn" });
    assert.equal(opnOnly.heldPayouts("scb"), undefined, "SCB not configured: nobody is asked in its place");
  });

  it("pays through Opn, not SCB, when SATANG_PAYOUT_PROVIDER=opn", () => {
    const deps = depsOf({
      ...LIVE,
      ...SCB_ENV,
      ...OPN_ENV,
      SATANG_PROVIDER: "scb,opn",
      SATANG_PAYOUT_PROVIDER: "opn",
    });
    assert.ok(deps.provider);
    assert.ok(!(deps.provider instanceof ScbProvider));
    assert.deepEqual(deps.router?.names(), ["scb", "opn"], "the failover order");
    const scbPays = depsOf({ ...LIVE, ...SCB_ENV, ...OPN_ENV, SATANG_PROVIDER: "scb,opn" });
    assert.ok(scbPays.provider instanceof ScbProvider);
    const reversed = depsOf({ ...LIVE, ...SCB_ENV, ...OPN_ENV, SATANG_PROVIDER: "opn,scb" });
    assert.deepEqual(reversed.router?.names(), ["opn", "scb"]);
    assert.ok(!(reversed.provider instanceof ScbProvider), "the first that pays out: Opn");
  });
});
