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
import type { CollectionPort, Connector } from "../../../src/providers/port.ts";
import type { Connectors } from "../../../src/providers/registry.ts";
import type { ScbConnector } from "../../../src/providers/scb/connector.ts";
import { ScbProvider } from "../../../src/providers/scb/provider.ts";
import { SimulatedBank } from "../../../src/providers/simulated/bank.ts";
import { SCB_TEST } from "../../helpers/scb/setup.ts";

/** The connector a new payment by `method` goes to first (the router's order, every breaker closed). */
function connectorFor(
  connectors: Connectors,
  method: "promptpay" | "bank_transfer",
): (Connector & { collection: CollectionPort }) | undefined {
  return connectors.all.find((c) => c.collection?.methods.includes(method)) as
    | (Connector & { collection: CollectionPort })
    | undefined;
}

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

/** The SCB connector of a deployment's registry. */
function scbOf(deps: { connectors: Connectors }): ScbConnector {
  const connector = deps.connectors.byName("scb");
  assert.ok(connector);
  return connector as ScbConnector;
}

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
    assert.deepEqual(deps.connectors.all, []);
    assert.equal(connectorFor(deps.connectors, "promptpay"), undefined);
  });

  it("refuses the simulated provider in live", () => {
    assert.throws(() => loadConfig({ ...LIVE, SATANG_PROVIDER: "simulated" }), /SATANG_PROVIDER=simulated/);
  });

  it("live with SCB: SCB pays withdraws, collects PromptPay, and has its confirmation path", async () => {
    const deps = depsOf({ ...LIVE, ...SCB_ENV });
    assert.ok(deps.provider instanceof ScbProvider);
    assert.equal(deps.provider?.name, "scb");
    assert.equal(deps.simulator, undefined);
    assert.equal(scbOf(deps).confirmationPath, `/providers/scb/confirmations/${"x".repeat(32)}`);
    const connector = connectorFor(deps.connectors, "promptpay");
    assert.equal(connector?.name, "scb");
    const instruction = await connector?.collection.instruct({
      paymentId: "p",
      merchantId: "m",
      method: "promptpay",
      amountSatang: 10_000n,
      reference: "ABC123",
      expiresAt: new Date(),
    });
    assert.equal(instruction?.status, "instructed");
    assert.match(
      instruction?.status === "instructed" ? (instruction.qrPayload ?? "") : "",
      new RegExp(SCB_TEST.billerId),
    );
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
    assert.equal(scbOf(deps).payouts, undefined);
    assert.equal(scbOf(deps).transfers, null);
    assert.equal(connectorFor(deps.connectors, "promptpay")?.name, "scb");
  });

  it("refuses a live start that names no provider, naming SATANG_PROVIDER", () => {
    assert.throws(() => depsOf(LIVE), /SATANG_PROVIDER is required/);
  });

  it("builds one connector per process: each buildDeps its own, no shared module state", () => {
    const a = depsOf({ ...LIVE, ...SCB_ENV });
    const b = depsOf({ ...LIVE, ...SCB_ENV });
    assert.notEqual(scbOf(a), scbOf(b));
    assert.notEqual(scbOf(a).client, scbOf(b).client);
  });
});
