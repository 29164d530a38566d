/**
 * One bank reference pays one withdraw, whichever way it is recorded (lifecycle/bank-references.ts):
 * an operator's `paid` resolution of an undecided payout is refused a reference another resolution
 * or a desk line holds (compared case-insensitively), and a desk line is refused one a resolution
 * holds. Each refusal is 409 STATE_CONFLICT `bank_reference_in_use`, and nothing is booked.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createWithdraw, simulateWithdrawRequest } from "../helpers/lifecycle.ts";
import { fundedMerchant } from "../helpers/withdraws.ts";

describe("a bank reference between the desk and resolutions", () => {
  let svc: TestService;
  let shop: Credentials;
  before(async () => {
    svc = await startService();
    shop = await fundedMerchant(svc);
  });
  after(async () => {
    await svc?.close();
  });

  async function undecided(amount: string): Promise<string> {
    const withdraw = await createWithdraw(svc, shop, { amount });
    const res = await simulateWithdrawRequest(svc, shop, withdraw.id, "indeterminate");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return withdraw.id;
  }
  const resolve = (id: string, bankReference: string) =>
    svc.admin("POST", `/admin/v1/withdraws/${id}/resolve`, {
      outcome: "paid",
      reason: "the bank's statement shows it paid",
      bankReference,
    });

  it("refuses a resolution a reference another resolution holds", async () => {
    const first = await undecided("1111.00");
    const second = await undecided("2222.00");
    assert.equal((await resolve(first, "KB-77")).status, 200);
    const refused = await resolve(second, "kb-77");
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.metadata.reason, "bank_reference_in_use");
    assert.equal(refused.body.error.metadata.withdrawId, first);
    const still = await svc.request("GET", `/api/v1/withdraws/${second}`, undefined, { credentials: shop });
    assert.equal(still.body.data.status, "processing", "nothing booked");
  });
});

describe("a bank reference between resolutions and the desk", () => {
  let svc: TestService;
  let shop: Credentials;
  before(async () => {
    svc = await startService({ env: { SATANG_PAYOUTS: "manual" } });
    shop = await fundedMerchant(svc);
  });
  after(async () => {
    await svc?.close();
  });

  it("refuses a desk line a reference a resolution holds", async () => {
    // A resolution recorded before the desk was turned on (the deployment paid through a connector).
    const resolved = await createWithdraw(svc, shop, { amount: "3333.00" });
    await svc.deps.db
      .insertInto("payout_resolutions")
      .values({
        withdraw_id: resolved.id,
        refund_id: null,
        merchant_id: shop.merchantId,
        provider: "sandbox",
        outcome: "paid",
        reason: "the bank's statement shows it paid",
        bank_reference: "RES-77",
        actor: "operator:test",
        evidence: null,
        request_id: null,
        created_at: new Date(),
      })
      .execute();
    const line = await createWithdraw(svc, shop, { amount: "4444.00" });
    const batch = await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId });
    assert.equal(batch.status, 201, JSON.stringify(batch.body));
    const record = (bankReference: string) =>
      svc.admin("POST", `/admin/v1/payout-batches/${batch.body.data.id}/items/${line.id}/outcome`, {
        outcome: "paid",
        bankReference,
      });
    const refused = await record("res-77");
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error.metadata.reason, "bank_reference_in_use");
    assert.equal(refused.body.error.metadata.withdrawId, resolved.id);
    assert.equal(refused.body.error.metadata.batchId, undefined, "a resolution has no batch");
    const still = await svc.request("GET", `/api/v1/withdraws/${line.id}`, undefined, { credentials: shop });
    assert.equal(still.body.data.status, "processing", "nothing booked");
    assert.equal((await record("RES-78")).status, 200, "another reference pays it");
  });
});
