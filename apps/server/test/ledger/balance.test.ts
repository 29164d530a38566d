/**
 * The balance through the SDK, the way a merchant's backend reads it; the envelope and the
 * refusal of an unsigned request are checked on the wire.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { AuthenticationError, type CreateWithdrawParams } from "@satang/sdk";
import { postPaymentSucceeded, settle } from "../../src/ledger/postings.ts";
import { newId } from "../../src/lib/ids.ts";
import { updateMerchant } from "../../src/merchants/service.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, fundWallet } from "../helpers/ledger.ts";
import { withdrawBody } from "../helpers/withdraws.ts";

describe("GET /api/v1/balance", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  afterEach(async () => {
    await assertLedgerConsistent(svc.deps.db);
  });
  after(async () => {
    await svc.close();
  });

  const balanceOf = (credentials = svc.credentials) => svc.sdkFor(credentials).balance.retrieve();

  it("answers a new merchant with zero balances as JSON numbers, THB and its wallet status", async () => {
    const merchant = await svc.newMerchant();
    const res = await svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(res.status, 200);
    assert.equal(res.body.success, true);
    assert.deepEqual(res.body.data, {
      walletBalance: 0,
      settlementBalance: 0,
      currency: "THB",
      status: "active",
    });
  });

  it("reports the wallet minus holds: a pending withdraw lowers walletBalance, its cancel restores it", async () => {
    const merchant = await svc.newMerchant();
    await fundWallet(svc.deps, merchant.merchantId, 100_000n);
    assert.equal((await balanceOf(merchant)).walletBalance, 100_000);
    const sdk = svc.sdkFor(merchant);
    const created = await sdk.withdraws.create(withdrawBody({ amount: "30000" }) as CreateWithdrawParams);
    const held = await balanceOf(merchant);
    assert.equal(held.walletBalance, 70_000);
    assert.equal(typeof held.walletBalance, "number");
    await sdk.withdraws.cancel(created.id);
    assert.equal((await balanceOf(merchant)).walletBalance, 100_000);
  });

  it("reports succeeded payments awaiting settlement as settlementBalance until they settle", async () => {
    const merchant = await svc.newMerchant();
    const at = svc.clock.now();
    const first = newId();
    const second = newId();
    await svc.deps.db.transaction().execute(async (trx) => {
      await postPaymentSucceeded(trx, {
        merchantId: merchant.merchantId,
        paymentId: first,
        amountSatang: 1_500n,
        at,
      });
      await postPaymentSucceeded(trx, {
        merchantId: merchant.merchantId,
        paymentId: second,
        amountSatang: 500n,
        at,
      });
    });
    assert.deepEqual(await balanceOf(merchant), {
      walletBalance: 0,
      settlementBalance: 2_000,
      currency: "THB",
      status: "active",
    });
    await svc.deps.db
      .transaction()
      .execute((trx) =>
        settle(trx, { merchantId: merchant.merchantId, paymentId: first, amountSatang: 1_500n, at }),
      );
    const settled = await balanceOf(merchant);
    assert.equal(settled.walletBalance, 1_500);
    assert.equal(settled.settlementBalance, 500);
  });

  it("shows a frozen or closed wallet's status", async () => {
    const merchant = await svc.newMerchant();
    await updateMerchant(svc.deps, merchant.merchantId, { walletStatus: "frozen" });
    assert.equal((await balanceOf(merchant)).status, "frozen");
    await updateMerchant(svc.deps, merchant.merchantId, { walletStatus: "closed" });
    assert.equal((await balanceOf(merchant)).status, "closed");
  });

  it("shows only the authenticated merchant's balance", async () => {
    const rich = await svc.newMerchant();
    const poor = await svc.newMerchant();
    await fundWallet(svc.deps, rich.merchantId, 9_999n);
    assert.equal((await balanceOf(rich)).walletBalance, 9_999);
    assert.equal((await balanceOf(poor)).walletBalance, 0);
  });

  it("refuses an unsigned request with 401 INVALID_CREDENTIALS", async () => {
    const res = await svc.app.inject({ method: "GET", url: "/api/v1/balance" });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error.code, "INVALID_CREDENTIALS");
  });

  it("answers 401 AUTHENTICATION_ERROR when the merchant context is not available", async () => {
    const merchant = await svc.newMerchant();
    await updateMerchant(svc.deps, merchant.merchantId, { status: "disabled" });
    await assert.rejects(balanceOf(merchant), (error) => {
      assert.ok(error instanceof AuthenticationError);
      assert.equal(error.status, 401);
      assert.equal(error.code, "AUTHENTICATION_ERROR");
      return true;
    });
  });
});
