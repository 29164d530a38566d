/**
 * Cancel of a processing withdraw when the payout connector's transfers cannot be recalled
 * (`irrevocablePayouts`, a capability of the payout Provider; SCB's credit transfer is one): 409
 * STATE_CONFLICT with reason `payout_in_flight`, the withdraw still processing and its hold kept,
 * whatever the connector's name. With a connector that does not say so, the rule of
 * interface.md stays: 400 VALIDATION_ERROR. A pending withdraw is canceled either way.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AppError } from "../../src/lib/errors.ts";
import type { Provider } from "../../src/providers/provider.ts";
import { ScbProvider } from "../../src/providers/scb/provider.ts";
import { cancelWithdraw, type WithdrawContext } from "../../src/withdraws/service.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { ledgerBalances } from "../helpers/ledger.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
let merchant: Credentials;

before(async () => {
  svc = await startService();
  merchant = await fundedMerchant(svc);
});
after(async () => {
  await svc.close();
});

/** The deployment's payout provider (the simulated bank), under another name and flagged. */
function payoutProvider(flags: { name: string; irrevocablePayouts?: boolean }): Provider {
  const simulated = svc.deps.provider;
  assert.ok(simulated, "the sandbox has a payout provider");
  return Object.assign(Object.create(simulated) as Provider, flags);
}

async function newWithdraw(status: "pending" | "processing") {
  const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "1500" }), {
    credentials: merchant,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const id = res.body.data.id as string;
  if (status === "processing") {
    await svc.deps.db.updateTable("withdraws").set({ status }).where("id", "=", id).execute();
  }
  return id;
}

async function cancelWith(provider: Provider, id: string) {
  const ctx: WithdrawContext = { ...svc.deps, provider };
  const row = await svc.deps.db
    .selectFrom("merchants")
    .select(["id", "clock_offset_ms"])
    .where("id", "=", merchant.merchantId)
    .executeTakeFirstOrThrow();
  try {
    return { withdraw: await cancelWithdraw(ctx, row, id) };
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return { error };
  }
}

async function statusOf(id: string) {
  const row = await svc.deps.db
    .selectFrom("withdraws")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe("cancel of a processing withdraw, by the payout connector's capability", () => {
  it("refuses with 409 STATE_CONFLICT (payout_in_flight) when the connector's payouts are irrevocable, keeping the hold", async () => {
    const id = await newWithdraw("processing");
    const balances = await ledgerBalances(svc.deps.db, merchant.merchantId);
    const { error } = await cancelWith(payoutProvider({ name: "any-bank", irrevocablePayouts: true }), id);
    assert.ok(error, "the cancel is refused");
    assert.equal(error.code, "STATE_CONFLICT");
    assert.equal(error.status, 409);
    assert.deepEqual(error.metadata, { status: "processing", reason: "payout_in_flight" });
    assert.equal(await statusOf(id), "processing");
    assert.deepEqual(await ledgerBalances(svc.deps.db, merchant.merchantId), balances);
  });

  it("refuses with 400 VALIDATION_ERROR when the connector does not say its payouts are irrevocable", async () => {
    const id = await newWithdraw("processing");
    for (const provider of [
      payoutProvider({ name: "scb" }),
      payoutProvider({ name: "any-bank", irrevocablePayouts: false }),
    ]) {
      const { error } = await cancelWith(provider, id);
      assert.ok(error, "the cancel is refused");
      assert.equal(error.code, "VALIDATION_ERROR");
      assert.equal(error.status, 400);
    }
    assert.equal(await statusOf(id), "processing");
  });

  it("cancels a pending withdraw whatever the connector", async () => {
    const id = await newWithdraw("pending");
    const { withdraw } = await cancelWith(payoutProvider({ name: "any-bank", irrevocablePayouts: true }), id);
    assert.equal(withdraw?.status, "canceled");
  });

  it("SCB's payouts are irrevocable: its credit transfer has no recall", () => {
    const scb = new ScbProvider({
      db: svc.deps.db,
      clock: svc.clock,
      collection: null as never,
      payouts: null,
      reconcileIntervalMs: 60_000,
    });
    assert.equal(scb.irrevocablePayouts, true);
  });
});
