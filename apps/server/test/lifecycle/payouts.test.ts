/**
 * Withdraw lifecycle after admission (docs/lifecycle.md): sandbox simulation of the bank,
 * holds consumed or released, indeterminate results reconciled without a second payout, late
 * success, verification expiry at 24 hours, and the canceled events.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Deps } from "../../src/deps.ts";
import { payoutDispatchJob, payoutReconcileJob, verificationExpiryJob } from "../../src/jobs/lifecycle.ts";
import { AppError } from "../../src/lib/errors.ts";
import { PAYOUT_CHECK_DELAY_MIN_MS, PAYOUT_SEND_LEASE_MS } from "../../src/lib/limits.ts";
import { resolveWithdraw } from "../../src/lifecycle/undecided.ts";
import type {
  CancelPayoutResult,
  PayoutInput,
  PayoutLookup,
  Provider,
  SendPayoutResult,
} from "../../src/providers/provider.ts";
import { deferred } from "../helpers/deferred.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import {
  anomaliesOf,
  createPayment,
  createWithdraw,
  eventsOf,
  eventTypes,
  HOUR_MS,
  ledgerKinds,
  simulatePaymentRequest,
  simulateWithdrawRequest,
} from "../helpers/lifecycle.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

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

async function statusOf(deps: Deps, id: string): Promise<string> {
  const row = await deps.db
    .selectFrom("withdraws")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

async function bankBook(deps: Deps, id: string) {
  return deps.db.selectFrom("sandbox_payouts").selectAll().where("payout_key", "=", id).executeTakeFirst();
}

async function payoutRow(deps: Deps, id: string) {
  return deps.db.selectFrom("payouts").selectAll().where("withdraw_id", "=", id).executeTakeFirstOrThrow();
}

async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 10_000) throw new Error("waited 10 s for the provider to be called");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function drain(deps: Deps, job: { runOnce(deps: Deps): Promise<number> }): Promise<void> {
  while ((await job.runOnce(deps)) > 0) {}
}

const sorted = (list: string[]) => [...list].sort();

describe("simulated payout outcomes", () => {
  let merchant: Credentials;
  before(async () => {
    merchant = await fundedMerchant(svc, {}, 1_000_000n);
  });

  it("leaves a new withdraw pending until a simulate route moves it", async () => {
    const withdraw = await createWithdraw(svc, merchant);
    await drain(svc.deps, payoutDispatchJob);
    assert.equal(await statusOf(svc.deps, withdraw.id), "pending");
    assert.equal(await bankBook(svc.deps, withdraw.id), undefined);
  });

  it("hands nothing of a frozen or closed wallet to the simulated bank: 403 WALLET_INACTIVE, the withdraw pending", async () => {
    const own = await fundedMerchant(svc, {}, 1_000_000n);
    const withdraw = await createWithdraw(svc, own);
    for (const walletStatus of ["frozen", "closed"]) {
      const set = await svc.admin("PATCH", `/admin/v1/merchants/${own.merchantId}`, { walletStatus });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      for (const outcome of ["processing", "paid", "failed", "indeterminate"]) {
        const res = await simulateWithdrawRequest(svc, own, withdraw.id, outcome);
        assert.equal(res.status, 403, `${walletStatus} ${outcome}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, "WALLET_INACTIVE");
      }
      assert.equal(await statusOf(svc.deps, withdraw.id), "pending");
      assert.equal(await bankBook(svc.deps, withdraw.id), undefined);
    }
    await svc.admin("PATCH", `/admin/v1/merchants/${own.merchantId}`, { walletStatus: "active" });
    const res = await simulateWithdrawRequest(svc, own, withdraw.id, "processing");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "processing");
  });

  it("moves pending to processing with withdraw.processing, handing the payout to the bank once", async () => {
    const withdraw = await createWithdraw(svc, merchant);
    svc.clock.advance(1_000);
    const res = await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "processing");
    assert.equal(res.body.data.updatedAt, svc.clock.now().toISOString());
    const events = await eventsOf(svc.deps.db, withdraw.id);
    assert.deepEqual(
      events.map((e) => [e.type, e.status]),
      [["withdraw.processing", "processing"]],
    );
    assert.deepEqual(events[0]!.object, res.body.data);
    assert.equal((await bankBook(svc.deps, withdraw.id))?.send_count, 1);
    const payout = await payoutRow(svc.deps, withdraw.id);
    assert.equal(payout.state, "accepted");
    assert.equal(payout.idempotency_key, withdraw.id, "the provider's idempotency key is the withdraw id");
    assert.equal(payout.provider, "sandbox");
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), ["withdraw_hold"]);
  });

  it("pays a processing withdraw: paid, paidAt, hold consumed, withdraw.paid", async () => {
    const own = await fundedMerchant(svc, {}, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "4000.00" });
    await simulateWithdrawRequest(svc, own, withdraw.id, "processing");
    svc.clock.advance(5_000);
    const res = await simulateWithdrawRequest(svc, own, withdraw.id, "paid");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "paid");
    assert.equal(res.body.data.paidAt, svc.clock.now().toISOString());
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_available, 6_000n);
    assert.equal(balances.wallet_held, 0n, "the hold is consumed");
    assert.equal(balances.payout_clearing, 4_000n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    assert.deepEqual(await eventTypes(svc.deps.db, withdraw.id), ["withdraw.processing", "withdraw.paid"]);
    assert.equal((await payoutRow(svc.deps, withdraw.id)).state, "completed");
  });

  it("pays a pending withdraw through processing in one call", async () => {
    const withdraw = await createWithdraw(svc, merchant);
    const res = await simulateWithdrawRequest(svc, merchant, withdraw.id, "paid");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "paid");
    assert.deepEqual(sorted(await eventTypes(svc.deps.db, withdraw.id)), [
      "withdraw.paid",
      "withdraw.processing",
    ]);
    assert.equal((await bankBook(svc.deps, withdraw.id))?.send_count, 1);
  });

  it("fails a withdraw: failed, the hold released to the wallet, withdraw.failed", async () => {
    const own = await fundedMerchant(svc, {}, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "4000.00" });
    const res = await simulateWithdrawRequest(svc, own, withdraw.id, "failed");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "failed");
    assert.equal(res.body.data.paidAt, null);
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_available, 10_000n, "the hold is back in the wallet");
    assert.equal(balances.wallet_held, 0n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    const events = await eventsOf(svc.deps.db, withdraw.id);
    assert.deepEqual(sorted(events.map((e) => e.type)), ["withdraw.failed", "withdraw.processing"]);
    assert.equal(events.find((e) => e.type === "withdraw.failed")!.status, "failed");
  });

  it("keeps an indeterminate withdraw processing; a later reconcile resolves it without a second payout", async () => {
    const own = await fundedMerchant(svc, {}, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "3000.00" });
    const res = await simulateWithdrawRequest(svc, own, withdraw.id, "indeterminate");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "processing");
    assert.equal((await payoutRow(svc.deps, withdraw.id)).state, "unknown");
    assert.equal((await bankBook(svc.deps, withdraw.id))?.send_count, 1, "the bank did receive the payout");

    // The reconciler asks the bank, which still has the payout open: it stays processing.
    svc.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    await drain(svc.deps, payoutReconcileJob);
    assert.equal(await statusOf(svc.deps, withdraw.id), "processing");
    assert.equal((await payoutRow(svc.deps, withdraw.id)).state, "accepted");

    // The bank pays it and its callback is lost; the next check finds the outcome.
    await svc.deps.simulator!.decidePayout(withdraw.id, "paid", 3000n);
    svc.clock.advance(HOUR_MS);
    await drain(svc.deps, payoutReconcileJob);
    assert.equal(await statusOf(svc.deps, withdraw.id), "paid");
    assert.equal((await bankBook(svc.deps, withdraw.id))?.send_count, 1, "never sent a second time");
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    assert.deepEqual(await eventTypes(svc.deps.db, withdraw.id), ["withdraw.processing", "withdraw.paid"]);
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_held, 0n);
    assert.equal(balances.wallet_available, 7_000n);
  });

  it("keeps a processing withdraw processing on an indeterminate result", async () => {
    const withdraw = await createWithdraw(svc, merchant);
    await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
    const res = await simulateWithdrawRequest(svc, merchant, withdraw.id, "indeterminate");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "processing");
    assert.equal((await payoutRow(svc.deps, withdraw.id)).state, "unknown");
    assert.deepEqual(await eventTypes(svc.deps.db, withdraw.id), ["withdraw.processing"]);
  });

  it("refuses transitions the current status does not allow with 409 STATE_CONFLICT", async () => {
    const processing = await createWithdraw(svc, merchant);
    await simulateWithdrawRequest(svc, merchant, processing.id, "processing");
    const again = await simulateWithdrawRequest(svc, merchant, processing.id, "processing");
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "STATE_CONFLICT");
    assert.match(again.body.error.message, /only a pending withdraw can move to processing/);

    const paid = await createWithdraw(svc, merchant);
    await simulateWithdrawRequest(svc, merchant, paid.id, "paid");
    for (const outcome of ["paid", "processing", "indeterminate"]) {
      const res = await simulateWithdrawRequest(svc, merchant, paid.id, outcome);
      assert.equal(res.status, 409, outcome);
      assert.equal(res.body.error.metadata.status, "paid");
    }
    const failed = await createWithdraw(svc, merchant);
    await simulateWithdrawRequest(svc, merchant, failed.id, "failed");
    const failedAgain = await simulateWithdrawRequest(svc, merchant, failed.id, "failed");
    assert.equal(failedAgain.status, 409);
    assert.match(failedAgain.body.error.message, /already failed/);
    assert.deepEqual(await anomaliesOf(svc.deps.db, failed.id), []);
  });

  it("never answers 200 for a simulated send that a concurrent cancel overtook", async () => {
    const own = await fundedMerchant(svc);
    for (const outcome of ["processing", "indeterminate", "paid", "processing", "failed", "processing"]) {
      const withdraw = await createWithdraw(svc, own, { amount: "10.00" });
      const [cancel, simulated] = await Promise.all([
        svc.request("POST", `/api/v1/withdraws/${withdraw.id}/cancel`, {}, { credentials: own }),
        simulateWithdrawRequest(svc, own, withdraw.id, outcome),
      ]);
      const status = await statusOf(svc.deps, withdraw.id);
      if (cancel.status === 200) {
        assert.equal(status, "canceled");
        assert.equal(simulated.status, 409, `${outcome}: ${JSON.stringify(simulated.body)}`);
        assert.equal(simulated.body.error.metadata.status, "canceled");
        assert.equal(await bankBook(svc.deps, withdraw.id), undefined, "nothing reached the bank");
      } else {
        assert.equal(simulated.status, 200, JSON.stringify(simulated.body));
        assert.equal(simulated.body.data.status, status);
      }
    }
  });

  it("refuses to simulate a withdraw awaiting verification: the bank has not received it", async () => {
    const own = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 1_000n }, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "2000.00" });
    assert.equal(withdraw.status, "awaiting_verification");
    for (const outcome of ["processing", "paid", "failed", "indeterminate"]) {
      const res = await simulateWithdrawRequest(svc, own, withdraw.id, outcome);
      assert.equal(res.status, 409, outcome);
      assert.match(res.body.error.message, /awaiting the operator's verification/);
    }
    assert.equal(await bankBook(svc.deps, withdraw.id), undefined);
  });

  it("answers 404 for another merchant's withdraw and for unknown or malformed ids", async () => {
    const other = await fundedMerchant(svc);
    const theirs = await createWithdraw(svc, other);
    for (const id of [theirs.id, "00000000-0000-4000-8000-000000000000", "nope"]) {
      const res = await simulateWithdrawRequest(svc, merchant, id, "paid");
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body.error, { code: "RESOURCE_NOT_FOUND", message: "Withdraw not found" });
    }
    assert.equal(await statusOf(svc.deps, theirs.id), "pending");
  });

  it("refuses to cancel a processing withdraw: the bank cannot recall it", async () => {
    const withdraw = await createWithdraw(svc, merchant);
    await simulateWithdrawRequest(svc, merchant, withdraw.id, "processing");
    const res = await svc.request("POST", `/api/v1/withdraws/${withdraw.id}/cancel`, undefined, {
      credentials: merchant,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  });
});

describe("late success", () => {
  it("pays a failed withdraw late: paid again, the wallet debited again, and it counts towards the limits", async () => {
    const own = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 1_500n }, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "1000.00" });
    await simulateWithdrawRequest(svc, own, withdraw.id, "failed");
    // The failed withdraw uses no capacity: 500 more fits under 1500.
    await createWithdraw(svc, own, { amount: "500.00" });

    const res = await simulateWithdrawRequest(svc, own, withdraw.id, "paid");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "paid");
    // The test clock stands still: each change is stamped a millisecond after the last at most.
    const paidAt = Date.parse(res.body.data.paidAt) - svc.clock.now().getTime();
    assert.ok(paidAt >= 0 && paidAt <= 3, `paidAt ${res.body.data.paidAt}`);
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), [
      "withdraw_hold",
      "withdraw_late_success",
      "withdraw_release",
    ]);
    const events = await eventTypes(svc.deps.db, withdraw.id);
    assert.equal(events.filter((type) => type === "withdraw.paid").length, 1);
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_available, 10_000n - 1_000n - 500n);

    // 1000 (late success) + 500 now use the whole daily limit.
    const refused = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "1.00" }), {
      credentials: own,
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "INVALID_INPUT");
    assert.equal(refused.body.error.metadata.dailyTotal, "1500.00");
  });

  it("pays an expired withdraw late", async () => {
    const own = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 1_000n }, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "2000.00" });
    svc.clock.advance(24 * HOUR_MS);
    await drain(svc.deps, verificationExpiryJob);
    assert.equal(await statusOf(svc.deps, withdraw.id), "expired");
    const res = await simulateWithdrawRequest(svc, own, withdraw.id, "paid");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "paid");
    assert.equal((await ledgerBalances(svc.deps.db, own.merchantId)).wallet_available, 8_000n);
  });

  it("books a late success the wallet no longer covers: paid, the wallet below zero, the operator told", async () => {
    const own = await fundedMerchant(svc, {}, 1_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "1000.00" });
    await simulateWithdrawRequest(svc, own, withdraw.id, "failed");
    await createWithdraw(svc, own, { amount: "800.00" });
    const res = await simulateWithdrawRequest(svc, own, withdraw.id, "paid");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "paid");
    assert.equal(await statusOf(svc.deps, withdraw.id), "paid");
    // 1,000 funded, 800 held by the second withdraw, 1,000 debited again: the merchant owes 800.
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_available, -800n);
    assert.equal(balances.wallet_held, 800n);
    const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials: own });
    assert.equal(balance.body.data.walletBalance, -800);
    const events = await eventsOf(svc.deps.db, withdraw.id);
    assert.deepEqual(events.map((e) => e.type).sort(), [
      "withdraw.failed",
      "withdraw.paid",
      "withdraw.processing",
    ]);
    assert.equal(events.filter((e) => e.type === "withdraw.paid").length, 1, "paid once");
    assert.deepEqual(await anomaliesOf(svc.deps.db, withdraw.id), [
      { reason: "late_success_overdrawn", report: "payout.paid" },
    ]);
    // The operator reads the figures with their units: satang as on the wire, and THB.
    const listed = await svc.admin("GET", `/admin/v1/anomalies?merchantId=${own.merchantId}`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.match(
      JSON.stringify(listed.body.data),
      /available wallet \(200\.00 satang \(2\.00 THB\)\) did not cover 1000\.00 satang \(10\.00 THB\), so it is debited below zero: the merchant owes 800\.00 satang \(8\.00 THB\)/,
    );
    // Nothing more can be held from a wallet below zero; a settlement credit brings it back.
    const refused = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "1.00" }), {
      credentials: own,
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "INSUFFICIENT_BALANCE");
    await assertLedgerConsistent(svc.deps.db);
  });

  it("tells the operator when the bank's own report pays a withdraw the operator resolved failed", async () => {
    const own = await fundedMerchant(svc, {}, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "1000.00" });
    await simulateWithdrawRequest(svc, own, withdraw.id, "indeterminate");
    const resolved = await svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "failed",
      reason: "The bank's statement does not show it",
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.equal((await payoutRow(svc.deps, withdraw.id)).state, "watching");
    // The bank's callback (the simulate route takes its path) says it executed after all.
    const paid = await simulateWithdrawRequest(svc, own, withdraw.id, "paid");
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data.status, "paid");
    assert.equal((await payoutRow(svc.deps, withdraw.id)).state, "completed");
    assert.deepEqual(await anomaliesOf(svc.deps.db, withdraw.id), [
      { reason: "resolved_failed_then_paid", report: "payout.paid" },
    ]);
    const listed = await svc.admin("GET", `/admin/v1/anomalies?merchantId=${own.merchantId}`);
    assert.match(JSON.stringify(listed.body.data), /resolved failed by the operator/);
    // A late success of a failure the bank itself reported is no decision contradicted: no notice.
    const other = await createWithdraw(svc, own, { amount: "100.00" });
    await simulateWithdrawRequest(svc, own, other.id, "failed");
    await simulateWithdrawRequest(svc, own, other.id, "paid");
    assert.deepEqual(await anomaliesOf(svc.deps.db, other.id), []);
  });

  it("pays an overdrawn wallet back with each settlement and operator credit smaller than the debt", async () => {
    const own = await fundedMerchant(svc, { settlementDelayHours: 0 }, 1_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "1000.00" });
    await simulateWithdrawRequest(svc, own, withdraw.id, "failed");
    await createWithdraw(svc, own, { amount: "1000.00" });
    await simulateWithdrawRequest(svc, own, withdraw.id, "paid");
    assert.equal((await ledgerBalances(svc.deps.db, own.merchantId)).wallet_available, -1_000n);
    // Two settlements, each smaller than the debt, together more than it.
    for (const amount of ["300.00", "400.00"]) {
      const payment = await createPayment(svc, own, { amount });
      const paid = await simulatePaymentRequest(svc, own, payment.id, "succeeded");
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
    }
    const settled = await svc.request("POST", "/api/v1/sandbox/settlements/run", {}, { credentials: own });
    assert.equal(settled.status, 200, JSON.stringify(settled.body));
    assert.equal(settled.body.data.count, 2);
    const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials: own });
    assert.deepEqual([balance.body.data.walletBalance, balance.body.data.settlementBalance], [-300, 0]);
    // The operator's credit smaller than what is owed is applied; a debit still may not go below.
    const credit = await svc.admin("POST", `/admin/v1/merchants/${own.merchantId}/wallet/adjustments`, {
      amount: "100.00",
      reason: "part of the overdraft repaid",
    });
    assert.equal(credit.status, 201, JSON.stringify(credit.body));
    assert.equal(credit.body.data.balanceAfter, "-200.00");
    const debit = await svc.admin("POST", `/admin/v1/merchants/${own.merchantId}/wallet/adjustments`, {
      amount: "-1.00",
      reason: "fee",
    });
    assert.equal(debit.status, 400, JSON.stringify(debit.body));
    assert.equal(debit.body.error.code, "INSUFFICIENT_BALANCE");
    const held = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "1.00" }), {
      credentials: own,
    });
    assert.equal(held.body.error?.code, "INSUFFICIENT_BALANCE");
    assert.equal((await ledgerBalances(svc.deps.db, own.merchantId)).wallet_available, -200n);
  });

  it("refuses a payment of a canceled withdraw and a failure of a paid one, recording both", async () => {
    const own = await fundedMerchant(svc, {}, 10_000n);
    const canceled = await createWithdraw(svc, own);
    await svc.request("POST", `/api/v1/withdraws/${canceled.id}/cancel`, undefined, { credentials: own });
    const paidCanceled = await simulateWithdrawRequest(svc, own, canceled.id, "paid");
    assert.equal(paidCanceled.status, 409);
    assert.equal(paidCanceled.body.error.metadata.reason, "withdraw_canceled");

    const paid = await createWithdraw(svc, own);
    await simulateWithdrawRequest(svc, own, paid.id, "paid");
    const failedPaid = await simulateWithdrawRequest(svc, own, paid.id, "failed");
    assert.equal(failedPaid.status, 409);
    assert.equal(failedPaid.body.error.metadata.reason, "paid_payout_failed");
    assert.equal(await statusOf(svc.deps, paid.id), "paid");

    assert.deepEqual(await anomaliesOf(svc.deps.db, canceled.id), [
      { reason: "withdraw_canceled", report: "payout.paid" },
    ]);
    assert.deepEqual(await anomaliesOf(svc.deps.db, paid.id), [
      { reason: "paid_payout_failed", report: "payout.failed" },
    ]);
  });
});

describe("verification expiry and cancel events", () => {
  it("expires a withdraw awaiting verification at 24 h and not a millisecond before, releasing the hold", async () => {
    const own = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 1_000n }, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "2500.00" });
    svc.clock.advance(24 * HOUR_MS - 1);
    await drain(svc.deps, verificationExpiryJob);
    assert.equal(await statusOf(svc.deps, withdraw.id), "awaiting_verification");
    assert.equal((await ledgerBalances(svc.deps.db, own.merchantId)).wallet_held, 2_500n);

    svc.clock.advance(1);
    await drain(svc.deps, verificationExpiryJob);
    assert.equal(await statusOf(svc.deps, withdraw.id), "expired");
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.wallet_held, 0n);
    assert.equal(balances.wallet_available, 10_000n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    // CONTRACT 12 names no expiry event: withdraw.canceled tells the merchant, its object expired.
    const events = await eventsOf(svc.deps.db, withdraw.id);
    assert.deepEqual(
      events.map((e) => [e.type, e.status]),
      [["withdraw.canceled", "expired"]],
    );
  });

  it("refuses the operator's approval after 24 h even before the job ran", async () => {
    const own = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 1_000n }, 10_000n);
    const withdraw = await createWithdraw(svc, own, { amount: "2500.00" });
    svc.clock.advance(24 * HOUR_MS);
    const res = await svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/approve`);
    assert.equal(res.status, 409);
    assert.match(res.body.error.message, /expired/);
  });

  it("writes withdraw.canceled on the merchant's cancel and on the operator's reject", async () => {
    const own = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 5_000n }, 100_000n);
    const pending = await createWithdraw(svc, own, { amount: "1000.00" });
    const canceled = await svc.request("POST", `/api/v1/withdraws/${pending.id}/cancel`, undefined, {
      credentials: own,
    });
    assert.equal(canceled.status, 200);
    const events = await eventsOf(svc.deps.db, pending.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ["withdraw.canceled"],
    );
    assert.deepEqual(events[0]!.object, canceled.body.data);

    const awaiting = await createWithdraw(svc, own, { amount: "6000.00" });
    const rejected = await svc.admin("POST", `/admin/v1/withdraws/${awaiting.id}/reject`);
    assert.equal(rejected.status, 200);
    const rejectEvents = await eventsOf(svc.deps.db, awaiting.id);
    assert.deepEqual(
      rejectEvents.map((e) => [e.type, e.status]),
      [["withdraw.canceled", "canceled"]],
    );
  });
});

/** A provider that loses answers on purpose, counting every call. */
class FlakyProvider implements Provider {
  constructor(readonly name = "flaky") {}
  readonly sends: PayoutInput[] = [];
  readonly book = new Map<string, "accepted" | "paid" | "failed">();
  /** before: the request never reaches the bank; after: the bank books it, the answer is lost. */
  loseSend: "no" | "before" | "after" = "no";
  answerSendWith: "accepted" | "paid" | "failed" = "accepted";
  failLookups = false;
  /** Sends that wait for the test's answer, in the order they are made; the bank books each when answered. */
  readonly held: Promise<"accepted" | "paid" | "failed">[] = [];

  async createPaymentInstruction(): Promise<never> {
    throw new Error("not used");
  }

  async sendPayout(input: PayoutInput): Promise<SendPayoutResult> {
    this.sends.push(input);
    const held = this.held.shift();
    if (held) {
      const answer = await held;
      this.book.set(input.idempotencyKey, answer);
      return { status: answer, providerReference: `flaky_${input.idempotencyKey}` };
    }
    if (this.loseSend === "before") throw new Error("connection reset before the request was sent");
    const status = this.book.get(input.idempotencyKey) ?? this.answerSendWith;
    this.book.set(input.idempotencyKey, status);
    if (this.loseSend === "after") throw new Error("socket timeout");
    return { status, providerReference: `flaky_${input.idempotencyKey}` };
  }

  async getPayout(key: string): Promise<PayoutLookup> {
    if (this.failLookups) throw new Error("status endpoint unavailable");
    const status = this.book.get(key);
    return status ? { status, providerReference: `flaky_${key}` } : { status: "not_found" };
  }

  async cancelPayout(): Promise<CancelPayoutResult> {
    return { status: "not_cancelable", reason: "never" };
  }

  async parseCallback(): Promise<never> {
    throw new Error("not used");
  }
}

describe("a payout stays with the connector that sent it", () => {
  // The service sends through bank-a; then the deployment's payouts go to bank-b (another
  // SATANG_PAYOUT_PROVIDER, or the manual desk), as a restarted process over the same database.
  const bankA = new FlakyProvider("bank-a");
  const bankB = new FlakyProvider("bank-b");
  let first: TestService;
  before(async () => {
    first = await startService({ env: { SANDBOX_PAYOUT_PICKUP: "automatic" }, deps: { provider: bankA } });
  });
  afterEach(async () => {
    await assertLedgerConsistent(first.deps.db);
  });
  after(async () => {
    await first.close();
  });

  async function sentThroughA(loseSend: FlakyProvider["loseSend"]): Promise<string> {
    bankA.loseSend = loseSend;
    const own = await fundedMerchant(first, {}, 10_000n);
    const withdraw = await createWithdraw(first, own, { amount: "1000.00" });
    await drain(first.deps, payoutDispatchJob);
    bankA.loseSend = "no";
    const payout = await payoutRow(first.deps, withdraw.id);
    assert.equal(payout.provider, "bank-a");
    assert.equal(payout.state, "unknown");
    return withdraw.id;
  }
  const switched = (holders: Provider[]): Deps => ({
    ...first.depsWith({ provider: bankB }),
    heldPayouts: (name) => holders.find((holder) => holder.name === name),
  });

  it("asks the connector that holds an undecided payout, never the one that takes new payouts", async () => {
    const id = await sentThroughA("after");
    const deps = switched([bankA]);
    first.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    await drain(deps, payoutReconcileJob);
    assert.equal((await payoutRow(deps, id)).state, "accepted", "bank-a says it has the transfer");
    bankA.book.set(id, "paid");
    first.clock.advance(HOUR_MS);
    await drain(deps, payoutReconcileJob);
    assert.equal(await statusOf(deps, id), "paid");
    assert.equal(bankA.sends.filter((send) => send.idempotencyKey === id).length, 1);
    assert.deepEqual(bankB.sends, [], "nothing was sent to bank-b: one transfer, paid once");
  });

  it("sends again only through the holding connector when it never saw the payout", async () => {
    const id = await sentThroughA("before");
    const deps = switched([bankA]);
    first.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    await drain(deps, payoutReconcileJob);
    assert.equal(
      bankA.sends.filter((send) => send.idempotencyKey === id).length,
      2,
      "resent by the same key",
    );
    assert.equal((await payoutRow(deps, id)).state, "accepted");
    assert.deepEqual(bankB.sends, []);
  });

  it("asks nobody while the holding connector is not configured, and keeps the hold", async () => {
    const id = await sentThroughA("after");
    const deps = switched([]);
    first.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    await drain(deps, payoutReconcileJob);
    const payout = await payoutRow(deps, id);
    assert.equal(payout.state, "unknown");
    assert.match(payout.last_error ?? "", /bank-a, which holds this payout, is not configured/);
    assert.ok(payout.next_check_at > first.clock.now(), "checked again later");
    assert.equal(await statusOf(deps, id), "processing");
    assert.deepEqual(await ledgerKinds(deps.db, id), ["withdraw_hold"]);
    assert.deepEqual(bankB.sends, []);

    // Nobody can ask bank-a whether it paid: the operator's `failed` would release a hold the
    // bank may have paid, so it is refused; `paid`, on the bank's word, is taken.
    const who = { actor: "operator", requestId: null };
    await assert.rejects(
      resolveWithdraw(deps, id, { outcome: "failed", reason: "bank-a is gone" }, who),
      (error: unknown) =>
        error instanceof AppError &&
        (error.metadata as { reason?: string }).reason === "payout_in_flight" &&
        /bank-a, which holds its payout, is not configured/.test(error.message),
    );
    assert.deepEqual(await ledgerKinds(deps.db, id), ["withdraw_hold"], "the hold stays");
    const resolved = await resolveWithdraw(
      deps,
      id,
      { outcome: "paid", reason: "bank-a's statement shows it", bankReference: "A-1" },
      who,
    );
    assert.equal(resolved.withdraw.status, "paid");
    assert.deepEqual(await ledgerKinds(deps.db, id), ["withdraw_hold", "withdraw_paid"]);
  });

  it("asks the holding connector within a minute once it is configured again, however long it was gone", async () => {
    const id = await sentThroughA("after");
    const before = (await payoutRow(first.deps, id)).checks;
    const gone = switched([]);
    // Six looks while bank-a is missing: had each backed off, the next would be an hour away.
    for (let look = 0; look < 6; look++) {
      first.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
      await drain(gone, payoutReconcileJob);
    }
    const waiting = await payoutRow(gone, id);
    assert.match(waiting.last_error ?? "", /bank-a, which holds this payout, is not configured/);
    assert.equal(waiting.checks, before, "nobody was asked, so no check is counted");
    assert.ok(
      waiting.next_check_at.getTime() <= first.clock.now().getTime() + PAYOUT_CHECK_DELAY_MIN_MS,
      "looked at again within a minute",
    );

    const back = switched([bankA]);
    bankA.book.set(id, "paid");
    first.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    await drain(back, payoutReconcileJob);
    assert.equal(await statusOf(back, id), "paid", "asked within a minute of its return");
    assert.equal(bankA.sends.filter((send) => send.idempotencyKey === id).length, 1);
    assert.deepEqual(bankB.sends, []);
  });
});

describe("automatic pickup with an unreliable provider", () => {
  let auto: TestService;
  // One provider for the whole suite: the bank's book must outlive a test, since the reconciler
  // asks about every open payout, earlier tests' included.
  const provider = new FlakyProvider();
  const sendsOf = (id: string) => provider.sends.filter((send) => send.idempotencyKey === id);
  before(async () => {
    auto = await startService({ env: { SANDBOX_PAYOUT_PICKUP: "automatic" }, deps: { provider } });
  });
  afterEach(() => {
    provider.loseSend = "no";
    provider.answerSendWith = "accepted";
    provider.failLookups = false;
  });
  afterEach(async () => {
    await assertLedgerConsistent(auto.deps.db);
  });
  after(async () => {
    await auto.close();
  });

  async function dispatched(loseSend: FlakyProvider["loseSend"]): Promise<{ id: string; own: Credentials }> {
    provider.loseSend = loseSend;
    const own = await fundedMerchant(auto, {}, 10_000n);
    const withdraw = await createWithdraw(auto, own, { amount: "1000.00" });
    await drain(auto.deps, payoutDispatchJob);
    return { id: withdraw.id, own };
  }

  it("picks up a pending withdraw once: processing, withdraw.processing, one send", async () => {
    const { id } = await dispatched("no");
    assert.equal(await statusOf(auto.deps, id), "processing");
    assert.equal(sendsOf(id).length, 1);
    assert.equal(sendsOf(id)[0]!.amountSatang, 1000n);
    await drain(auto.deps, payoutDispatchJob);
    assert.equal(sendsOf(id).length, 1, "a processing withdraw is never picked up again");
    assert.deepEqual(await eventTypes(auto.deps.db, id), ["withdraw.processing"]);
  });

  it("books a payout the provider answers as paid at once", async () => {
    provider.answerSendWith = "paid";
    const own = await fundedMerchant(auto, {}, 10_000n);
    const withdraw = await createWithdraw(auto, own, { amount: "1000.00" });
    await drain(auto.deps, payoutDispatchJob);
    assert.equal(await statusOf(auto.deps, withdraw.id), "paid");
    assert.equal((await payoutRow(auto.deps, withdraw.id)).state, "completed");
  });

  it("reconciles a send whose answer was lost after the bank booked it, without sending again", async () => {
    const { id } = await dispatched("after");
    assert.equal(await statusOf(auto.deps, id), "processing");
    const payout = await payoutRow(auto.deps, id);
    assert.equal(payout.state, "unknown");
    assert.match(payout.last_error ?? "", /socket timeout/);

    auto.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    await drain(auto.deps, payoutReconcileJob);
    assert.equal((await payoutRow(auto.deps, id)).state, "accepted");
    assert.equal(sendsOf(id).length, 1, "the bank has it: no second send");

    provider.book.set(id, "failed");
    auto.clock.advance(HOUR_MS);
    await drain(auto.deps, payoutReconcileJob);
    assert.equal(await statusOf(auto.deps, id), "failed");
    assert.deepEqual(await ledgerKinds(auto.deps.db, id), ["withdraw_hold", "withdraw_release"]);
    assert.equal(sendsOf(id).length, 1);
  });

  it("sends again with the same key only when the provider has never seen the payout", async () => {
    const { id } = await dispatched("before");
    assert.equal((await payoutRow(auto.deps, id)).state, "unknown");
    assert.equal(provider.book.has(id), false);

    provider.loseSend = "no";
    auto.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    await drain(auto.deps, payoutReconcileJob);
    assert.equal(sendsOf(id).length, 2);
    assert.equal(provider.book.has(id), true, "the same payout, by the same key");
    const payout = await payoutRow(auto.deps, id);
    assert.equal(payout.state, "accepted");
    assert.equal(payout.send_attempts, 2);
    assert.equal(await statusOf(auto.deps, id), "processing");
  });

  it("books a send's answer only while no later send was started: a first send's late refusal leaves the resent payout processing", async () => {
    const first = deferred<"accepted" | "paid" | "failed">();
    const second = deferred<"accepted" | "paid" | "failed">();
    provider.held.push(first.promise, second.promise);
    const own = await fundedMerchant(auto, {}, 10_000n);
    const withdraw = await createWithdraw(auto, own, { amount: "1000.00" });
    const dispatching = drain(auto.deps, payoutDispatchJob);
    await until(() => sendsOf(withdraw.id).length === 1);
    // The first send's answer is late past the lease: the bank has not booked it, so the
    // reconciler sends again with the same key.
    auto.clock.advance(PAYOUT_SEND_LEASE_MS);
    const reconciling = drain(auto.deps, payoutReconcileJob);
    await until(() => sendsOf(withdraw.id).length === 2);
    first.resolve("failed");
    await dispatching;
    assert.equal(
      await statusOf(auto.deps, withdraw.id),
      "processing",
      "the later send may still be carried out",
    );
    assert.deepEqual(await ledgerKinds(auto.deps.db, withdraw.id), ["withdraw_hold"]);
    const open = await payoutRow(auto.deps, withdraw.id);
    assert.equal(open.state, "sending");
    assert.equal(open.send_attempts, 2);
    second.resolve("accepted");
    await reconciling;
    assert.equal(
      (await payoutRow(auto.deps, withdraw.id)).state,
      "accepted",
      "the later send's answer is booked",
    );
    assert.equal(await statusOf(auto.deps, withdraw.id), "processing");
  });

  it("refuses the operator's failed while a send has no answer, whatever the clock: it may still reach the bank", async () => {
    const answer = deferred<"accepted" | "paid" | "failed">();
    provider.held.push(answer.promise);
    const own = await fundedMerchant(auto, {}, 10_000n);
    const withdraw = await createWithdraw(auto, own, { amount: "1000.00" });
    const dispatching = drain(auto.deps, payoutDispatchJob);
    await until(() => sendsOf(withdraw.id).length === 1);
    assert.equal((await payoutRow(auto.deps, withdraw.id)).state, "sending");
    const who = { actor: "test-operator", requestId: null };
    const early = resolveWithdraw(
      auto.deps,
      withdraw.id,
      { outcome: "failed", reason: "Not on the statement" },
      who,
    );
    await assert.rejects(early, (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, "STATE_CONFLICT");
      assert.equal((error.metadata as { reason?: string }).reason, "payout_in_flight");
      assert.match(error.message, /may still reach the bank/);
      return true;
    });
    assert.deepEqual(await ledgerKinds(auto.deps.db, withdraw.id), ["withdraw_hold"], "the hold kept");
    // The lease is counted on the merchant's clock, which a sandbox advance moves past while the
    // send is still on its way: still refused.
    auto.clock.advance(PAYOUT_SEND_LEASE_MS);
    await assert.rejects(
      resolveWithdraw(auto.deps, withdraw.id, { outcome: "failed", reason: "Not on the statement" }, who),
      (error: unknown) => error instanceof AppError && error.code === "STATE_CONFLICT",
    );
    // The bank answers (it has the transfer, undecided): now the operator may decide.
    answer.resolve("accepted");
    await dispatching;
    assert.equal((await payoutRow(auto.deps, withdraw.id)).state, "accepted");
    const resolved = await resolveWithdraw(
      auto.deps,
      withdraw.id,
      { outcome: "failed", reason: "Not on the statement" },
      who,
    );
    assert.equal(resolved.withdraw.status, "failed");
    assert.deepEqual(await ledgerKinds(auto.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
  });

  it("books a check's answer only while no later check claimed the payout", async () => {
    const { id } = await dispatched("before");
    const lookups = deferred<void>();
    const getPayout = provider.getPayout.bind(provider);
    let slowOnce = true;
    provider.getPayout = async (key) => {
      const answer = await getPayout(key);
      if (key === id && slowOnce) {
        slowOnce = false;
        await lookups.promise;
      }
      return answer;
    };
    try {
      // The first check reads "never seen" and waits past its lease; a second check finds the
      // payout seen (the bank booked it meanwhile) and records it accepted.
      auto.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
      const slow = drain(auto.deps, payoutReconcileJob);
      await until(() => !slowOnce);
      provider.book.set(id, "accepted");
      auto.clock.advance(PAYOUT_SEND_LEASE_MS);
      await drain(auto.deps, payoutReconcileJob);
      assert.equal((await payoutRow(auto.deps, id)).state, "accepted");
      lookups.resolve();
      await slow;
      const payout = await payoutRow(auto.deps, id);
      assert.equal(payout.state, "accepted", "the older check's 'never seen' is not booked");
      assert.equal(payout.send_attempts, 1, "nor does it send again");
      assert.equal(sendsOf(id).length, 1);
    } finally {
      provider.getPayout = getPayout;
    }
  });

  it("keeps asking later, with growing waits, while the provider cannot answer", async () => {
    const { id } = await dispatched("after");
    provider.failLookups = true;
    auto.clock.advance(PAYOUT_CHECK_DELAY_MIN_MS);
    const firstAt = auto.clock.now().getTime();
    await drain(auto.deps, payoutReconcileJob);
    const first = await payoutRow(auto.deps, id);
    assert.equal(first.state, "unknown");
    assert.match(first.last_error ?? "", /status endpoint unavailable/);
    auto.clock.set(first.next_check_at);
    const secondAt = auto.clock.now().getTime();
    await drain(auto.deps, payoutReconcileJob);
    const second = await payoutRow(auto.deps, id);
    assert.equal(first.next_check_at.getTime() - firstAt, PAYOUT_CHECK_DELAY_MIN_MS);
    assert.equal(
      second.next_check_at.getTime() - secondAt,
      2 * PAYOUT_CHECK_DELAY_MIN_MS,
      "the wait doubles",
    );
    assert.equal(sendsOf(id).length, 1);
    assert.equal(await statusOf(auto.deps, id), "processing");
  });

  it("leaves pending withdraws alone when the deployment has no payout provider (live without an adapter)", async () => {
    const live = await startService({
      env: { SATANG_ENV: "live", SECRET_KEY: "cd".repeat(32), ...LIVE_PROVIDER_ENV },
    });
    try {
      const own = await fundedMerchant(live, {}, 10_000n);
      const withdraw = await createWithdraw(live, own);
      assert.equal(await payoutDispatchJob.runOnce(live.deps), 0);
      assert.equal(await payoutReconcileJob.runOnce(live.deps), 0);
      assert.equal(await statusOf(live.deps, withdraw.id), "pending");
    } finally {
      await live.close();
    }
  });
});
