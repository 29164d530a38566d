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
import { OpnClient } from "../../../src/providers/opn/client.ts";
import { opnTables } from "../../../src/providers/opn/db.ts";
import { OPN_METADATA_PAYOUT_KEY, OpnPayouts } from "../../../src/providers/opn/payouts.ts";
import { findTransferRow } from "../../../src/providers/opn/store.ts";
import { assertLedgerConsistent, fundWallet } from "../../helpers/ledger.ts";
import { anomaliesOf, createWithdraw, eventTypes, ledgerKinds } from "../../helpers/lifecycle.ts";
import { type LiveOpn, OPN_SECRET_KEY, startLiveOpn } from "../../helpers/opn/live.ts";

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
    const { withdraw } = await transferFailedAtOpn("5550001111", "1200.00");
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

  for (const [status, page, type] of [
    [400, "<html><body><h1>400 Bad Request</h1><hr>nginx</body></html>", "text/html"],
    [403, '"request blocked"', "application/json"],
    [404, '{"message":"not found"}', "application/json"],
  ] as const) {
    it(`keeps the hold of a transfer made whose answer was replaced by a ${status} page that is not Opn's error, and pays it once (${type})`, async () => {
      const { withdraw, recipient } = await sentWithdraw(`77700${status}55`, `${status}0.00`);
      live.sim.replaceNextTransferAnswer(status, page, type);
      live.sim.verifyRecipient(recipient.id);
      await checkAgain();
      const transfers = live.sim.transfersFor(withdraw.id);
      assert.equal(transfers.length, 1, "Opn made the transfer");
      assert.equal((await withdrawOf(withdraw.id)).status, "processing", "not failed: Opn may pay it");
      assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold"], "the hold stays");
      live.sim.markTransferSent(transfers[0]!.id);
      live.sim.markTransferPaid(transfers[0]!.id);
      await checkAgain();
      await checkAgain();
      assert.equal((await withdrawOf(withdraw.id)).status, "paid");
      assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
      assert.equal(live.sim.transfersFor(withdraw.id).length, 1, "never sent twice");
    });
  }

  it("refuses the operator's failed while Opn shows a transfer under the payout's key for another amount; paid stays open", async () => {
    const { withdraw, recipient } = await sentWithdraw("7770009911", "4100.00");
    live.sim.replaceNextTransferAnswer(400, "<html>proxy</html>");
    live.sim.verifyRecipient(recipient.id);
    await checkAgain();
    const [transfer] = live.sim.transfersFor(withdraw.id);
    assert.ok(transfer, "Opn made the transfer");
    // Opn's transfer under the key is for another amount (whatever made it so): never adopted.
    transfer.amount = 409_999;
    live.sim.markTransferSent(transfer.id);
    live.sim.markTransferPaid(transfer.id);
    await checkAgain();
    await checkAgain();
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    const undecided = await live.svc.admin("GET", "/admin/v1/payouts/undecided?limit=100");
    const listed = undecided.body.data.data.find((r: { withdrawId: string }) => r.withdrawId === withdraw.id);
    assert.equal(listed?.bank?.transfer?.otherAmountTransferId, transfer.id);
    const failed = await live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "failed",
      reason: "the amount is not ours",
    });
    assert.equal(failed.status, 409, JSON.stringify(failed.body));
    assert.equal(failed.body.error.metadata.reason, "bank_shows_paid");
    assert.match(failed.body.error.message, new RegExp(`Opn shows transfer ${transfer.id}`));
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold"], "the hold stays");
    const paid = await live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "paid",
      reason: "Opn's dashboard shows the transfer paid",
      bankReference: transfer.id,
    });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    assert.equal(live.sim.transfersFor(withdraw.id).length, 1, "never sent again");
  });

  it("records for the operator, once, a transfer for another amount Opn shows under a payout resolved failed before it appeared", async () => {
    const { withdraw, recipient } = await sentWithdraw("7770009922", "4200.00");
    live.sim.verifyRecipient(recipient.id);
    // The create never reaches Opn (a 503 before it), and the operator resolves the payout failed
    // once its settle time has passed: nothing was shown under its key then.
    live.sim.failNext({ method: "POST", path: "/transfers", status: 503 });
    await checkAgain();
    assert.equal(live.sim.transfersFor(withdraw.id).length, 0);
    // The create was sent past Opn's settle time ago (the connector counts it on the wall clock).
    await opnTables(live.svc.deps.db)
      .updateTable("opn_transfers")
      .set({ last_attempt_at: new Date(Date.now() - 120_000) })
      .where("payout_key", "=", withdraw.id)
      .execute();
    const resolved = await live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "failed",
      reason: "Opn shows no transfer",
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    // Then Opn's list shows a transfer under the key, for another amount, paid.
    const id = "trsf_test_otheramount0001";
    live.sim.transfers.set(id, {
      object: "transfer",
      id,
      amount: 420_001,
      recipient: recipient.id,
      sent: true,
      paid: true,
      failure_code: null,
      metadata: { [OPN_METADATA_PAYOUT_KEY]: withdraw.id },
      created_at: "2099-01-01T00:00:00Z",
    });
    for (let i = 0; i < 4; i += 1) await checkAgain();
    assert.equal((await withdrawOf(withdraw.id)).status, "failed", "nothing booked: another amount");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    assert.deepEqual(
      (await anomaliesOf(live.svc.deps.db, withdraw.id)).map((a) => a.reason),
      ["resolved_failed_bank_shows_completed"],
    );
    live.sim.transfers.delete(id);
  });

  it("keeps the hold of a transfer Opn retries after a failure (fail_fast false) until Opn pays it", async () => {
    live.sim.failFastIgnored = true;
    try {
      const { withdraw, transfer } = await transferFailedAtOpn("5550003737", "1300.00");
      await checkAgain();
      assert.equal((await withdrawOf(withdraw.id)).status, "processing", "Opn may yet pay it");
      assert.deepEqual(
        await ledgerKinds(live.svc.deps.db, withdraw.id),
        ["withdraw_hold"],
        "the hold is kept",
      );
      live.sim.markTransferPaid(transfer.id);
      await checkAgain();
      assert.equal((await withdrawOf(withdraw.id)).status, "paid");
      assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
      assert.equal(live.sim.transfersFor(withdraw.id).length, 1, "never sent twice");
    } finally {
      live.sim.failFastIgnored = false;
    }
  });
});

/** A withdraw whose transfer Opn made and then reported `insufficient_balance`, checked once since. */
async function transferFailedAtOpn(accountNumber: string, amount: string) {
  const { withdraw, recipient } = await sentWithdraw(accountNumber, amount);
  live.sim.verifyRecipient(recipient.id);
  await checkAgain();
  const [transfer] = live.sim.transfersFor(withdraw.id);
  assert.ok(transfer);
  live.sim.failTransfer(transfer.id, "insufficient_balance");
  await checkAgain();
  return { withdraw, transfer };
}

/** The connector as another process's check runs it, on the service's database and clock. */
function anotherCheck(): OpnPayouts {
  return new OpnPayouts(
    new OpnClient({ baseUrl: live.sim.url, secretKey: OPN_SECRET_KEY, timeoutMs: 20_000 }),
    live.svc.deps.db,
    { recipientVerifyMaxMs: 7 * 86_400_000, settleMs: 60_000 },
    live.svc.clock,
  );
}

describe("an Opn payout the operator decided while a check was asking Opn", () => {
  it("creates no transfer once the payout is resolved failed, though Opn verifies the recipient afterwards", async () => {
    const { withdraw, recipient } = await sentWithdraw("7770002222", "3100.00");
    // A check (of this or another process) read the payout while its recipient waited; before
    // it asks Opn, the operator resolves the undecided payout failed and its hold is released ...
    const resolved = await live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "failed",
      reason: "the payee's account is closed",
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    // ... then Opn verifies the recipient, and the check goes on.
    live.sim.verifyRecipient(recipient.id);
    const lateCheck = anotherCheck();
    const answer = await lateCheck.getPayout(withdraw.id);
    assert.notEqual(answer.status, "paid");
    assert.equal(
      live.sim.transfersFor(withdraw.id).length,
      0,
      "no transfer for a payout whose hold was released",
    );
    await checkAgain();
    assert.equal(live.sim.transfersFor(withdraw.id).length, 0);
    assert.equal((await withdrawOf(withdraw.id)).status, "failed");
    // No transfer was ever asked for, and none can be now: the watched attempt is closed, not
    // asked about every hour for good.
    const attempt = await live.svc.deps.db
      .selectFrom("payouts")
      .select(["state"])
      .where("withdraw_id", "=", withdraw.id)
      .executeTakeFirstOrThrow();
    assert.equal(attempt.state, "completed");
    const transfer = await findTransferRow(live.svc.deps.db, withdraw.id);
    assert.equal(transfer?.state, "abandoned");
    assert.equal(transfer?.failure_reason, "payout_closed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
  });

  it("never both resolves a payout failed and creates its transfer, when the two race", async () => {
    for (let i = 0; i < 4; i++) {
      const { withdraw, recipient } = await sentWithdraw(`77700044${i}0`, `${3300 + i}.00`);
      live.sim.verifyRecipient(recipient.id);
      const check = anotherCheck();
      const [, resolved] = await Promise.all([
        check.getPayout(withdraw.id),
        live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
          outcome: "failed",
          reason: "the payee's account is closed",
        }),
      ]);
      const transfers = live.sim.transfersFor(withdraw.id).length;
      const status = (await withdrawOf(withdraw.id)).status;
      if (resolved.status === 200) {
        assert.equal(transfers, 0, "resolved failed: no transfer");
        assert.equal(status, "failed");
      } else {
        assert.equal(resolved.status, 409, JSON.stringify(resolved.body));
        assert.equal(resolved.body.error.metadata.reason, "payout_in_flight");
        assert.equal(transfers, 1);
        assert.equal(status, "processing");
      }
    }
  });

  it("refuses to resolve failed while a transfer create sent moments ago may still be carried out", async () => {
    const { withdraw, recipient } = await sentWithdraw("7770003333", "3200.00");
    live.sim.verifyRecipient(recipient.id);
    // The create reaches Opn but its answer is lost.
    live.sim.hangNextTransferCreate(30_000);
    const payouts = new OpnPayouts(
      new OpnClient({ baseUrl: live.sim.url, secretKey: OPN_SECRET_KEY, timeoutMs: 300 }),
      live.svc.deps.db,
      { recipientVerifyMaxMs: 7 * 86_400_000, settleMs: 60_000 },
      live.svc.clock,
    );
    assert.equal((await payouts.getPayout(withdraw.id)).status, "accepted");
    assert.equal(live.sim.transfersFor(withdraw.id).length, 1, "Opn carried it out");
    const early = await live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "failed",
      reason: "Opn did not answer",
    });
    assert.equal(early.status, 409, JSON.stringify(early.body));
    assert.equal(early.body.error.metadata.reason, "payout_in_flight");
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold"], "the hold stays");
  });
});
