/**
 * Live payouts through SCB's credit transfer, end to end against the local simulator: money
 * collected by QR settles into the wallet and a withdraw pays it out by credit initiate, the
 * tokenizer id stored, then one credit confirm. A confirm whose answer is lost, an initiate
 * whose answer is lost, a pending transfer, a documented failure, an access token that stops
 * working and two processes sending one withdraw never make a second transfer.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { WithdrawRow } from "../../../src/db/types.ts";
import { dispatchPendingWithdraws, reconcilePayouts } from "../../../src/lifecycle/payouts.ts";
import { settleDuePayments } from "../../../src/lifecycle/settlement.ts";
import type { PayoutInput, Provider } from "../../../src/providers/provider.ts";
import { scbTables } from "../../../src/providers/scb/db.ts";
import { partnerTransactionId } from "../../../src/providers/scb/references.ts";
import { assertLedgerConsistent, fundWallet } from "../../helpers/ledger.ts";
import {
  createPayment,
  createWithdraw,
  eventTypes,
  ledgerKinds,
  withdrawPayoutOf,
} from "../../helpers/lifecycle.ts";
import { INQUIRY_DELAY_S, type LiveScb, startLiveScb } from "../../helpers/scb/live.ts";

let live: LiveScb;

before(async () => {
  // Short enough that a held answer is a timeout quickly; long enough for a loaded machine.
  live = await startLiveScb({ timeoutMs: 3_000 });
  await fundWallet(live.svc.deps, live.merchant.merchantId, 10_000_000n);
});
afterEach(async () => {
  live.sim.transferOutcome = { status: "CONFIRM_COMPLETED" };
  await assertLedgerConsistent(live.svc.deps.db);
});
after(async () => {
  await live.close();
});

const SCB_ACCOUNT = { customerBankCode: "014", customerBankAccountNumber: "5556667778" };

async function withdrawOf(id: string): Promise<WithdrawRow> {
  return live.svc.deps.db.selectFrom("withdraws").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

const payoutOf = (id: string) => withdrawPayoutOf(live.svc.deps.db, id);

/** What SCB saw for one withdraw: its transfers and how many confirms moved money. */
function atScb(withdrawId: string) {
  const transfers = live.sim.transfersOf(partnerTransactionId(withdrawId));
  return {
    initiates: transfers.length,
    confirms: transfers.reduce((n, t) => n + t.confirmsReceived, 0),
    executions: transfers.reduce((n, t) => n + t.executions, 0),
    transfers,
  };
}

async function newWithdraw(overrides: Record<string, unknown> = {}) {
  return createWithdraw(live.svc, live.merchant, { amount: "1200.00", ...overrides });
}

describe("a withdraw paid by SCB credit transfer", () => {
  it("collects, settles and pays out: create, pay, confirmation, inquiry, succeeded, settle, withdraw, transfer, paid", async () => {
    const merchant = await live.svc.newMerchant({ settlementDelayHours: 0 });
    const payment = await createPayment(live.svc, merchant, { amount: "500000.00" });
    const { collection_reference: ref1 } = await live.svc.deps.db
      .selectFrom("payments")
      .select("collection_reference")
      .where("id", "=", payment.id)
      .executeTakeFirstOrThrow();
    await live.sim.pay({ ref1: ref1 as string, amountSatang: 500_000n });
    assert.deepEqual(await eventTypes(live.svc.deps.db, payment.id), ["payment.received"]);
    live.advance(1_000);
    const settled = await settleDuePayments(live.svc.deps, merchant.merchantId);
    assert.equal(settled.length, 1);
    const balance = await live.svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(balance.body.data.walletBalance, 500000);

    const withdraw = await createWithdraw(live.svc, merchant, { amount: "400000.00", ...SCB_ACCOUNT });
    assert.equal(withdraw.status, "pending");
    await dispatchPendingWithdraws(live.svc.deps);
    const row = await withdrawOf(withdraw.id);
    assert.equal(row.status, "paid");
    // Both moves happen at one business instant here; events of one instant are ordered by type.
    assert.deepEqual((await eventTypes(live.svc.deps.db, withdraw.id)).sort(), [
      "withdraw.paid",
      "withdraw.processing",
    ]);
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    const scb = atScb(withdraw.id);
    assert.deepEqual([scb.initiates, scb.confirms, scb.executions], [1, 1, 1]);
    assert.equal(scb.transfers[0]!.amount, 4000);
    assert.deepEqual(scb.transfers[0]!.payee, {
      name: row.bank_account_name,
      accountInfo: { accountNo: "5556667778", bankCode: "014" },
    });
    const stored = await scbTables(live.svc.deps.db)
      .selectFrom("scb_transfers")
      .selectAll()
      .where("withdraw_id", "=", withdraw.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.tokenizer_id, scb.transfers[0]!.tokenizerId);
    assert.equal(stored.partner_transaction_id, partnerTransactionId(withdraw.id));
    assert.equal((await payoutOf(withdraw.id)).provider_reference, stored.tokenizer_id);
    const after = await live.svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(after.body.data.walletBalance, 100000);
  });

  it("sends nothing of a frozen or closed wallet: its withdraw waits pending, and goes once the wallet is active", async () => {
    const merchant = await live.svc.newMerchant({ settlementDelayHours: 0 });
    await fundWallet(live.svc.deps, merchant.merchantId, 1_000_000n);
    const withdraw = await createWithdraw(live.svc, merchant, { amount: "1000.00", ...SCB_ACCOUNT });
    assert.equal(withdraw.status, "pending");
    for (const walletStatus of ["frozen", "closed"]) {
      const set = await live.svc.admin("PATCH", `/admin/v1/merchants/${merchant.merchantId}`, {
        walletStatus,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      await dispatchPendingWithdraws(live.svc.deps);
      assert.equal((await withdrawOf(withdraw.id)).status, "pending", walletStatus);
      assert.equal(atScb(withdraw.id).initiates, 0, `${walletStatus}: nothing sent to SCB`);
    }
    const active = await live.svc.admin("PATCH", `/admin/v1/merchants/${merchant.merchantId}`, {
      walletStatus: "active",
    });
    assert.equal(active.status, 200, JSON.stringify(active.body));
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    assert.equal(atScb(withdraw.id).executions, 1);
  });

  it("pays another bank's account cross-bank with the same two steps", async () => {
    const withdraw = await newWithdraw({ customerBankCode: "004", customerBankAccountNumber: "1234567890" });
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    const scb = atScb(withdraw.id);
    assert.deepEqual((scb.transfers[0]!.payee as { accountInfo: unknown }).accountInfo, {
      accountNo: "1234567890",
      bankCode: "004",
    });
  });

  it("fails the withdraw with SCB's reason on a documented failure, releasing the hold", async () => {
    live.sim.transferOutcome = {
      status: "CONFIRM_FAILED",
      legacyCode: "112",
      legacyDescription: "Invalid Account",
    };
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    assert.match((await payoutOf(withdraw.id)).last_error ?? "", /112 Invalid Account/);
  });

  it("fails the withdraw when SCB refuses the credit initiate: no tokenizer, no money moved", async () => {
    live.sim.failNext("credit_initiate", {
      kind: "answer",
      httpStatus: 400,
      code: 8101,
      description: "VF0003 Validation Fail: payee",
    });
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "failed");
    assert.match((await payoutOf(withdraw.id)).last_error ?? "", /VF0003/);
    assert.equal(atScb(withdraw.id).executions, 0);
  });

  it("a confirm that timed out but executed: one transfer, paid after the inquiry delay", async () => {
    live.sim.failNext("credit_confirm", { kind: "timeout_but_execute" });
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    const inquiries = live.sim.of("transfer_inquiry").length;
    // Before SCB_INQUIRY_DELAY_S nobody asks, and nobody confirms again.
    live.advance((INQUIRY_DELAY_S - 2) * 1000);
    await reconcilePayouts(live.svc.deps);
    assert.equal(live.sim.of("transfer_inquiry").length, inquiries);
    live.advance(3_000);
    await Promise.all([reconcilePayouts(live.svc.deps), reconcilePayouts(live.otherProcess())]);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    assert.deepEqual(await eventTypes(live.svc.deps.db, withdraw.id), [
      "withdraw.processing",
      "withdraw.paid",
    ]);
    const scb = atScb(withdraw.id);
    assert.deepEqual([scb.initiates, scb.confirms, scb.executions], [1, 1, 1]);
  });

  it("an initiate whose answer was lost: initiated again with the same partner id, one transfer executed", async () => {
    live.sim.failNext("credit_initiate", { kind: "timeout_but_execute" });
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    assert.equal((await payoutOf(withdraw.id)).state, "unknown");
    live.advance(61_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    const scb = atScb(withdraw.id);
    assert.equal(scb.initiates, 2, "SCB holds the lost initiate's tokenizer too");
    assert.deepEqual([scb.confirms, scb.executions], [1, 1]);
  });

  it("a pending transfer stays processing until SCB's inquiry shows it completed", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    live.advance(3_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    live.sim.setTransferStatus(atScb(withdraw.id).transfers[0]!.tokenizerId, "CONFIRM_COMPLETED");
    // Still in progress at the first check: the next one is a minute later (the backoff).
    live.advance(61_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    assert.equal(atScb(withdraw.id).confirms, 1);
  });

  it("asks about a transfer SCB keeps showing in progress with the backoff: 1 minute, doubling, up to an hour", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const withdraw = await newWithdraw({ ...SCB_ACCOUNT, amount: "1234.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    const tokenizerId = atScb(withdraw.id).transfers[0]!.tokenizerId;
    const inquiries = () =>
      live.sim.of("transfer_inquiry").filter((r) => JSON.stringify(r).includes(tokenizerId)).length;
    // Three hours, the reconciler running every 30 s (SCB_RECONCILE_INTERVAL_S is 2 s here).
    for (let step = 0; step < 360; step += 1) {
      live.advance(30_000);
      await reconcilePayouts(live.svc.deps);
    }
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    // Checks at about 0, 1, 3, 7, 15, 31, 63, 123 and 183 minutes.
    const asked = inquiries();
    assert.ok(asked >= 7 && asked <= 11, `SCB was asked ${asked} times in three hours`);
    live.sim.setTransferStatus(tokenizerId, "CONFIRM_COMPLETED");
    for (let step = 0; step < 125 && (await withdrawOf(withdraw.id)).status === "processing"; step += 1) {
      live.advance(30_000);
      await reconcilePayouts(live.svc.deps);
    }
    assert.equal((await withdrawOf(withdraw.id)).status, "paid", "paid within the hour the backoff caps at");
  });

  it("refuses to cancel a processing withdraw with 400, as in sandbox: SCB cannot recall a transfer", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    await dispatchPendingWithdraws(live.svc.deps);
    const res = await live.svc.request("POST", `/api/v1/withdraws/${withdraw.id}/cancel`, undefined, {
      credentials: live.merchant,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(res.body.error.metadata, { field: "status" });
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    live.sim.setTransferStatus(atScb(withdraw.id).transfers[0]!.tokenizerId, "CONFIRM_COMPLETED");
    live.advance(3_000);
    await reconcilePayouts(live.svc.deps);
  });

  it("pays with a fresh access token when SCB stops taking the old one mid-run", async () => {
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    const tokens = live.sim.tokensIssued;
    live.sim.expireTokens();
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    assert.equal(live.sim.tokensIssued, tokens + 1);
    assert.equal(atScb(withdraw.id).executions, 1);
  });

  it("two processes sending one withdraw at once confirm it once", async () => {
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    // The withdraw is handed over (processing, its payout attempt open) by a send whose answer
    // is lost; then two processes send it at once, as two reconcilers would.
    const lost = Object.create(live.svc.deps.provider!) as Provider;
    lost.sendPayout = async () => ({ status: "indeterminate", error: "lost" });
    await dispatchPendingWithdraws({ ...live.svc.deps, provider: lost });
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    const row = await withdrawOf(withdraw.id);
    const input: PayoutInput = {
      idempotencyKey: row.id,
      merchantId: row.merchant_id,
      amountSatang: row.amount_satang,
      destinationType: row.destination_type,
      bankCode: row.bank_code,
      accountNumber: row.bank_account_number,
      accountName: row.bank_account_name,
    };
    const results = await Promise.all([
      live.svc.deps.provider!.sendPayout(input),
      live.otherProcess().provider!.sendPayout(input),
    ]);
    const scb = atScb(withdraw.id);
    assert.equal(scb.executions, 1);
    assert.equal(scb.confirms, 1);
    assert.ok(results.some((r) => r.status === "paid"));
    live.advance(61_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
  });

  for (const next of ["another connector", "the payout desk"] as const) {
    it(`asks SCB, not ${next}, about a transfer SCB holds after new payouts went to ${next}`, async () => {
      live.sim.failNext("credit_confirm", { kind: "timeout_but_execute" });
      const withdraw = await newWithdraw(SCB_ACCOUNT);
      await dispatchPendingWithdraws(live.svc.deps);
      assert.equal((await withdrawOf(withdraw.id)).status, "processing");
      // A restart with SATANG_PAYOUT_PROVIDER naming another connector, or SATANG_PAYOUTS=manual.
      const sent: PayoutInput[] = [];
      const other: Provider = {
        name: "other",
        sendPayout: async (input) => {
          sent.push(input);
          return { status: "accepted", providerReference: "other-1" };
        },
        getPayout: async () => ({ status: "not_found" }),
      };
      const restarted = {
        ...live.svc.deps,
        provider: next === "another connector" ? other : undefined,
        config: { ...live.svc.deps.config, payouts: next === "another connector" ? "provider" : "manual" },
      } as typeof live.svc.deps;
      live.advance((INQUIRY_DELAY_S + 1) * 1000);
      await reconcilePayouts(restarted);
      assert.equal((await withdrawOf(withdraw.id)).status, "paid", "SCB's inquiry said it executed");
      assert.deepEqual(sent, [], `nothing was sent to ${next}`);
      const scb = atScb(withdraw.id);
      assert.deepEqual([scb.initiates, scb.confirms, scb.executions], [1, 1, 1]);
    });
  }

  it("leaves pending withdraws alone when the payout desk pays (SATANG_PAYOUTS=manual)", async () => {
    const withdraw = await newWithdraw(SCB_ACCOUNT);
    const manual = { ...live.svc.deps, config: { ...live.svc.deps.config, payouts: "manual" as const } };
    assert.equal(await dispatchPendingWithdraws(manual), 0);
    assert.equal((await withdrawOf(withdraw.id)).status, "pending");
    await live.svc.request("POST", `/api/v1/withdraws/${withdraw.id}/cancel`, undefined, {
      credentials: live.merchant,
    });
  });

  it("keeps a withdraw whose confirm was refused with 401 and no new token could be had processing, for the inquiry", async () => {
    const second = await newWithdraw(SCB_ACCOUNT);
    live.sim.failNext("credit_confirm", { kind: "unauthorized" });
    live.sim.failNext("token", { kind: "answer", httpStatus: 503, code: 9999, description: "down" });
    await dispatchPendingWithdraws(live.svc.deps);
    const row = await withdrawOf(second.id);
    assert.equal(row.status, "processing", "not failed, not sent again: the inquiry decides");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, second.id), ["withdraw_hold"], "the hold is kept");
    const stored = await scbTables(live.svc.deps.db)
      .selectFrom("scb_transfers")
      .selectAll()
      .where("withdraw_id", "=", second.id)
      .executeTakeFirstOrThrow();
    assert.ok(stored.confirm_sent_at, "the confirm stays taken: it is never sent again");
    assert.ok(stored.next_inquiry_at, "the transfer waits for its inquiry");
    assert.equal(
      stored.next_inquiry_at.getTime() - stored.confirm_sent_at.getTime() >= (INQUIRY_DELAY_S - 1) * 1000,
      true,
      "after SCB_INQUIRY_DELAY_S",
    );
    const confirmsOf = () =>
      live.sim
        .of("credit_confirm")
        .filter((r) => (r.body as { tokenizerId?: string }).tokenizerId === stored.tokenizer_id).length;
    assert.equal(confirmsOf(), 1, "one confirm request reached SCB");
    // The token endpoint's backoff and the inquiry delay pass: the inquiry is asked, and the
    // confirm is never sent again.
    live.advance(INQUIRY_DELAY_S * 1000 + 1_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal(confirmsOf(), 1);
    assert.ok(
      live.sim
        .of("transfer_inquiry")
        .some((r) => (r.body as { tokenizerId?: string }).tokenizerId === stored.tokenizer_id),
    );
    assert.equal((await withdrawOf(second.id)).status, "processing");
  });
});
