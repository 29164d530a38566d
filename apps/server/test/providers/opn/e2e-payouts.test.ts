/**
 * Live payouts through Opn Payments, end to end against the local Opn simulator (CONTRACT 15):
 * `SATANG_PROVIDER=opn` pays withdraws by an Opn transfer to a recipient made once per
 * destination. A new recipient waits for Opn's verification with the withdraw in `processing`
 * and no transfer; once Opn verifies it, one transfer of the withdraw's amount in satang is made
 * and the withdraw is paid when Opn says so; a failed transfer fails the withdraw with Opn's code
 * and releases its hold.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { WithdrawRow } from "../../../src/db/types.ts";
import { PAYOUT_CHECK_DELAY_MAX_MS } from "../../../src/lib/limits.ts";
import { dispatchPendingWithdraws, reconcilePayouts } from "../../../src/lifecycle/payouts.ts";
import { assertLedgerConsistent, fundWallet } from "../../helpers/ledger.ts";
import { createWithdraw, eventTypes, ledgerKinds } from "../../helpers/lifecycle.ts";
import { type LiveOpn, startLiveOpn } from "../../helpers/opn/live.ts";

let live: LiveOpn;

before(async () => {
  live = await startLiveOpn();
  await fundWallet(live.svc.deps, live.merchant.merchantId, 10_000_000n);
});
afterEach(async () => {
  await assertLedgerConsistent(live.svc.deps.db);
});
after(async () => {
  await live?.close();
});

async function withdrawOf(id: string): Promise<WithdrawRow> {
  return live.svc.deps.db.selectFrom("withdraws").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** Moves business time past the payout's next check (at most an hour away) and lets the payout worker ask Opn. */
async function checkAgain(): Promise<void> {
  live.svc.clock.advance(PAYOUT_CHECK_DELAY_MAX_MS + 60_000);
  await reconcilePayouts(live.svc.deps);
}

/** A withdraw to a KBank account Opn pays to, handed to Opn, its recipient verified and active. */
async function sentWithdraw(accountNumber: string, amount: string) {
  const withdraw = await createWithdraw(live.svc, live.merchant, {
    amount,
    customerBankCode: "004",
    customerBankAccountNumber: accountNumber,
  });
  await dispatchPendingWithdraws(live.svc.deps);
  const recipient = [...live.sim.recipients.values()].find((r) =>
    JSON.stringify(r.bank_account).includes(accountNumber.slice(-4)),
  );
  assert.ok(recipient, "Opn has a recipient for the destination");
  return { withdraw, recipient };
}

describe("live payouts through Opn", () => {
  it("waits for the recipient's verification, then makes one transfer of the amount in satang and pays", async () => {
    const { withdraw, recipient } = await sentWithdraw("1234567890", "250050.00");
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    assert.equal(
      live.sim.transfersFor(withdraw.id).length,
      0,
      "no transfer before Opn verifies the recipient",
    );
    await checkAgain();
    assert.equal(live.sim.transfersFor(withdraw.id).length, 0, "still unverified: still no transfer");

    live.sim.verifyRecipient(recipient.id);
    await checkAgain();
    const transfers = live.sim.transfersFor(withdraw.id);
    assert.equal(transfers.length, 1);
    assert.equal(transfers[0]!.amount, 250_050, "Opn's amounts are satang too");
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");

    live.sim.markTransferSent(transfers[0]!.id);
    live.sim.markTransferPaid(transfers[0]!.id);
    await checkAgain();
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    assert.ok((await eventTypes(live.svc.deps.db, withdraw.id)).includes("withdraw.paid"));
    await checkAgain();
    assert.equal(live.sim.transfersFor(withdraw.id).length, 1, "never sent twice");
  });

  it("fails the withdraw with Opn's code when the transfer fails, releasing its hold", async () => {
    const { withdraw, recipient } = await sentWithdraw("5550001111", "1200.00");
    live.sim.verifyRecipient(recipient.id);
    await checkAgain();
    const [transfer] = live.sim.transfersFor(withdraw.id);
    assert.ok(transfer);
    live.sim.failTransfer(transfer.id, "insufficient_balance");
    await checkAgain();
    const row = await withdrawOf(withdraw.id);
    assert.equal(row.status, "failed");
    const payout = await live.svc.deps.db
      .selectFrom("payouts")
      .selectAll()
      .where("withdraw_id", "=", withdraw.id)
      .executeTakeFirstOrThrow();
    assert.match(String(payout.last_error), /insufficient_balance/, "Opn's failure code is kept");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
  });
});
