/**
 * Payout money safety on SCB's live rail (docs/providers/scb.md "Undecided transfers"): a
 * transfer SCB may have executed is never followed by a release of its hold until SCB's inquiry
 * says it did not happen. A send the lifecycle gave up on stops at its bound; only the first and
 * only initiate's refusal fails a withdraw; a transfer that can no longer be confirmed and that
 * SCB shows unconfirmed fails by itself; everything else waits for the operator, who sees it
 * listed, counted and alerted past PAYOUT_UNDECIDED_ALERT_S and resolves it.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { WithdrawRow } from "../../../src/db/types.ts";
import { dispatchPendingWithdraws, reconcilePayouts } from "../../../src/lifecycle/payouts.ts";
import { alertUndecided } from "../../../src/lifecycle/undecided.ts";
import type { PayoutInput } from "../../../src/providers/provider.ts";
import { scbTables } from "../../../src/providers/scb/db.ts";
import { partnerTransactionId } from "../../../src/providers/scb/references.ts";
import { noteTransfer } from "../../../src/providers/scb/store.ts";
import { assertLedgerConsistent, fundWallet } from "../../helpers/ledger.ts";
import {
  anomaliesOf,
  createWithdraw,
  eventTypes,
  ledgerKinds,
  withdrawPayoutOf,
} from "../../helpers/lifecycle.ts";
import { type LiveScb, resolveFailedAcrossSettlePoint, startLiveScb } from "../../helpers/scb/live.ts";

/** PAYOUT_UNDECIDED_ALERT_S of these tests. */
const ALERT_S = 600;

let live: LiveScb;

before(async () => {
  // SCB's own call bound is longer than the lifecycle's bound of a send (15 s), as it is in a
  // deployment with SCB_TIMEOUT_MS=60000: what stops a slow send is the lifecycle's bound.
  live = await startLiveScb({ timeoutMs: 60_000, env: { PAYOUT_UNDECIDED_ALERT_S: String(ALERT_S) } });
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

async function transferOf(id: string) {
  return scbTables(live.svc.deps.db)
    .selectFrom("scb_transfers")
    .selectAll()
    .where("withdraw_id", "=", id)
    .executeTakeFirst();
}

function atScb(withdrawId: string) {
  const transfers = live.sim.transfersOf(partnerTransactionId(withdrawId));
  const tokenizers = new Set(transfers.map((t) => t.tokenizerId));
  const named = (operation: "credit_initiate" | "credit_confirm", key: string, values: Set<string>) =>
    live.sim.of(operation).filter((r) => values.has((r.body as Record<string, string>)[key]!)).length;
  return {
    // Requests that reached SCB, whatever it answered.
    initiates: named("credit_initiate", "partnerTransactionID", new Set([partnerTransactionId(withdrawId)])),
    confirms: named("credit_confirm", "tokenizerId", tokenizers),
    executions: transfers.reduce((n, t) => n + t.executions, 0),
    transfers,
  };
}

/** SCB answers the next credit confirm 503; `executed`: it carried the transfer out all the same. */
function confirmAnswered503({ executed }: { executed: boolean }): void {
  live.sim.failNext("credit_confirm", {
    kind: "answer",
    httpStatus: 503,
    code: 9999,
    description: "Service unavailable",
    ...(executed ? { execute: true } : {}),
  });
}

async function newWithdraw(overrides: Record<string, unknown> = {}) {
  return createWithdraw(live.svc, live.merchant, { amount: "1200.00", ...SCB_ACCOUNT, ...overrides });
}

function inputOf(row: WithdrawRow): PayoutInput {
  return {
    idempotencyKey: row.id,
    merchantId: row.merchant_id,
    amountSatang: row.amount_satang,
    destinationType: row.destination_type,
    bankCode: row.bank_code,
    accountNumber: row.bank_account_number,
    accountName: row.bank_account_name,
  };
}

async function undecidedIds(): Promise<string[]> {
  const res = await live.svc.admin("GET", "/admin/v1/payouts/undecided?limit=100");
  assert.equal(res.status, 200);
  return res.body.data.data.map((r: { withdrawId: string }) => r.withdrawId);
}

async function undecidedGauge(): Promise<number> {
  const res = await live.svc.admin("GET", "/metrics");
  assert.equal(res.status, 200);
  const line = String(res.raw.body)
    .split("\n")
    .find((l) => l.startsWith("satang_payouts_undecided "));
  assert.ok(line, "the gauge satang_payouts_undecided is exported");
  return Number(line.split(" ")[1]);
}

/** The operator's `failed` for the withdraw is refused with 409 `reason`, and nothing moved: the hold stays. */
async function assertFailedRefused(withdrawId: string, why: string, reason: string, message: RegExp) {
  const refused = await live.svc.admin("POST", `/admin/v1/withdraws/${withdrawId}/resolve`, {
    outcome: "failed",
    reason: why,
  });
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.error.code, "STATE_CONFLICT");
  assert.equal(refused.body.error.metadata.reason, reason);
  assert.match(refused.body.error.message, message);
  assert.equal((await withdrawOf(withdrawId)).status, "processing");
  assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdrawId), ["withdraw_hold"], "the hold stays");
}

/** Runs the reconciler every `stepMs` of bank and business time until the withdraw leaves processing. */
async function reconcileUntilDecided(id: string, stepMs: number, maxSteps: number): Promise<WithdrawRow> {
  for (let i = 0; i < maxSteps; i += 1) {
    live.advance(stepMs);
    await reconcilePayouts(live.svc.deps);
    const row = await withdrawOf(id);
    if (row.status !== "processing") return row;
  }
  return withdrawOf(id);
}

describe("a send the lifecycle gave up on (issue 21, item 1)", () => {
  it("keeps a withdraw processing, and SCB paying nothing, when the first initiate is slow and the second is refused as duplicated", async () => {
    // SCB takes the first initiate but answers it only after 6 s, past the lifecycle's bound of
    // a send (PROVIDER_CALL_TIMEOUT_MS, shortened here to 3 s so the test waits seconds, not
    // tens of seconds; the rule is the same at any bound shorter than SCB's own).
    live.sim.failNext("credit_initiate", { kind: "timeout_but_execute", holdMs: 6_000 });
    const withdraw = await newWithdraw();
    const started = Date.now();
    await dispatchPendingWithdraws({ ...live.svc.deps, payoutCallTimeoutMs: 3_000 });
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    // The reconciler initiates again with the same partner id; SCB refuses it as duplicated.
    live.sim.failNext("credit_initiate", {
      kind: "answer",
      httpStatus: 400,
      code: 1111,
      description: "Duplicated transaction",
    });
    live.advance(61_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal(atScb(withdraw.id).initiates, 2);
    assert.equal(
      (await withdrawOf(withdraw.id)).status,
      "processing",
      "a later initiate's refusal is not final",
    );
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold"]);
    // The first initiate's answer comes back now: nobody may store or confirm its tokenizer.
    await sleep(Math.max(0, started + 8_000 - Date.now()));
    const scb = atScb(withdraw.id);
    assert.deepEqual([scb.confirms, scb.executions], [0, 0]);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    const transfer = await transferOf(withdraw.id);
    assert.equal(transfer?.state, "initiating");
    assert.equal(transfer?.tokenizer_id, null);
    assert.equal(transfer?.initiate_attempts, 2);
    assert.match(transfer?.last_error ?? "", /1111/);
    // Initiate 1's note landing only now (its send, given up on, finishing late: on a loaded
    // machine it can) leaves what initiate 2 learnt.
    const lateNote = { lastError: "initiate 1 undecided: late", at: new Date(), ofInitiate: 1 };
    await noteTransfer(live.svc.deps.db, { kind: "withdraw", id: withdraw.id }, lateNote);
    assert.match((await transferOf(withdraw.id))?.last_error ?? "", /1111/);

    // Undecided: listed past PAYOUT_UNDECIDED_ALERT_S with SCB's answers, counted, alerted once.
    assert.ok(!(await undecidedIds()).includes(withdraw.id));
    live.advance(ALERT_S * 1000);
    const list = await live.svc.admin("GET", "/admin/v1/payouts/undecided");
    const listed = list.body.data.data.find((r: { withdrawId: string }) => r.withdrawId === withdraw.id);
    assert.ok(listed, "listed for the operator");
    assert.equal(listed.amount, "1200.00");
    assert.equal(listed.bank.transfer.state, "initiating");
    assert.ok(
      listed.bank.lastAnswers.some(
        (a: { operation: string; httpStatus: number | null }) =>
          a.operation === "credit_initiate" && a.httpStatus === 400,
      ),
      "SCB's refusal is among the last answers",
    );
    assert.ok((await undecidedGauge()) >= 1);
    const logged: object[] = [];
    const logger = { error: (details: object) => logged.push(details) };
    assert.ok((await alertUndecided(live.svc.deps, logger)) >= 1);
    assert.ok(logged.some((d) => (d as { withdrawId: string }).withdrawId === withdraw.id));
    assert.equal(await alertUndecided(live.svc.deps, logger), 0, "alerted once");

    // The operator decides: failed, after SCB's support confirmed no transfer was executed.
    const resolved = await live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "failed",
      reason: "SCB support: no transfer executed under this partner id",
    });
    assert.equal(resolved.status, 200);
    assert.equal(resolved.body.data.withdraw.status, "failed");
    assert.equal(resolved.body.data.resolution.actor, "admin-token");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    assert.deepEqual(await eventTypes(live.svc.deps.db, withdraw.id), [
      "withdraw.processing",
      "withdraw.failed",
    ]);
    const record = await live.svc.deps.db
      .selectFrom("payout_resolutions")
      .selectAll()
      .where("withdraw_id", "=", withdraw.id)
      .executeTakeFirstOrThrow();
    assert.equal(record.outcome, "failed");
    assert.equal(record.actor, "admin-token");
    assert.ok((record.evidence as { transfer: unknown }).transfer, "SCB's evidence is kept");
    assert.ok(!(await undecidedIds()).includes(withdraw.id));
    // Nothing sent for it after the decision initiates or confirms anything.
    const initiates = atScb(withdraw.id).initiates;
    await live.otherProcess().provider!.sendPayout(inputOf(await withdrawOf(withdraw.id)));
    assert.equal(atScb(withdraw.id).initiates, initiates);
    const again = await live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
      outcome: "paid",
      reason: "second thoughts",
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "STATE_CONFLICT");
  });

  it("does not fail a withdraw on a 429 to its first initiate: it is initiated again and paid once", async () => {
    live.sim.failNext("credit_initiate", {
      kind: "answer",
      httpStatus: 429,
      code: 9999,
      description: "Too many requests",
    });
    const withdraw = await newWithdraw({ amount: "1300.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    const row = await reconcileUntilDecided(withdraw.id, 61_000, 3);
    assert.equal(row.status, "paid");
    assert.deepEqual([atScb(withdraw.id).confirms, atScb(withdraw.id).executions], [1, 1]);
  });

  it("initiates nothing for a withdraw whose payout is not open (still pending, never handed over)", async () => {
    const withdraw = await newWithdraw({ amount: "1400.00" });
    const result = await live.svc.deps.provider!.sendPayout(inputOf(await withdrawOf(withdraw.id)));
    assert.equal(result.status, "indeterminate");
    assert.equal(atScb(withdraw.id).initiates, 0);
    await live.svc.request("POST", `/api/v1/withdraws/${withdraw.id}/cancel`, undefined, {
      credentials: live.merchant,
    });
  });
});

describe("undecided transfers decided by SCB's inquiry (issue 21, item 2)", () => {
  it("fails a withdraw whose confirm SCB refused once the transfer can no longer be confirmed and SCB shows it unconfirmed", async () => {
    live.sim.failNext("credit_confirm", {
      kind: "answer",
      httpStatus: 400,
      code: 8101,
      description: "BU9998 Business rule error",
    });
    const withdraw = await newWithdraw({ amount: "1500.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    const row = await reconcileUntilDecided(withdraw.id, 61_000, 100);
    assert.equal(row.status, "failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    const transfer = await transferOf(withdraw.id);
    assert.equal(transfer?.state, "closed");
    assert.equal(transfer?.scb_status, "INITIATE_COMPLETED");
    assert.equal(atScb(withdraw.id).executions, 0);
    // A closed transfer is never confirmed again, whoever sends it.
    await live.otherProcess().provider!.sendPayout(inputOf(row));
    assert.equal(atScb(withdraw.id).confirms, 1);
  });

  it("fails a withdraw whose confirm never reached SCB (answered 503 unexecuted) only after SCB's inquiry shows it unconfirmed", async () => {
    confirmAnswered503({ executed: false });
    const withdraw = await newWithdraw({ amount: "1600.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    // Before SCB's inquiry delay and the send's bound have passed, nothing is decided.
    live.advance(2_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "processing");
    const row = await reconcileUntilDecided(withdraw.id, 61_000, 100);
    assert.equal(row.status, "failed");
    assert.equal(atScb(withdraw.id).executions, 0);
  });

  it("never fails a transfer SCB shows unconfirmed before SCB's 45 minutes, however short SCB_INQUIRY_DELAY_S: a confirm held on its way is carried out late and paid", async () => {
    // The confirm is answered 503 unexecuted, as if it was held on its way (a proxy, a queue):
    // SCB's inquiry shows the transfer initiated, not confirmed, from 5 s on (SCB_INQUIRY_DELAY_S).
    confirmAnswered503({ executed: false });
    const withdraw = await newWithdraw({ amount: "1650.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    const inquiriesBefore = live.sim.of("transfer_inquiry").length;
    for (let minute = 1; minute <= 44; minute += 1) {
      live.advance(60_000);
      await reconcilePayouts(live.svc.deps);
      assert.equal((await withdrawOf(withdraw.id)).status, "processing", `minute ${minute}`);
    }
    assert.ok(live.sim.of("transfer_inquiry").length > inquiriesBefore, "SCB was asked meanwhile");
    assert.equal((await transferOf(withdraw.id))?.scb_status, "INITIATE_COMPLETED");
    assert.equal(
      (await transferOf(withdraw.id))?.state,
      "initiated",
      "not closed: a confirm may still arrive",
    );
    // The held confirm reaches SCB at minute 44 and is carried out.
    const transfer = atScb(withdraw.id).transfers[0]!;
    live.sim.setTransferStatus(transfer.tokenizerId, "CONFIRM_COMPLETED");
    const row = await reconcileUntilDecided(withdraw.id, 61_000, 60);
    assert.equal(row.status, "paid");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
  });

  it("pays, never fails, a transfer that executed although its confirm was answered 503", async () => {
    confirmAnswered503({ executed: true });
    const withdraw = await newWithdraw({ amount: "1700.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    const row = await reconcileUntilDecided(withdraw.id, 61_000, 10);
    assert.equal(row.status, "paid");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    assert.equal(atScb(withdraw.id).executions, 1);
  });

  it("leaves a transfer SCB shows completed for another amount to the operator, who resolves it paid with the bank's reference", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const withdraw = await newWithdraw({ amount: "1800.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    const transfer = atScb(withdraw.id).transfers[0]!;
    transfer.amount = 1799.99;
    live.sim.setTransferStatus(transfer.tokenizerId, "CONFIRM_COMPLETED");
    // Six hours of reconciling decide nothing: SCB's answer does not match the withdraw.
    const row = await reconcileUntilDecided(withdraw.id, 600_000, 36);
    assert.equal(row.status, "processing");
    assert.ok((await undecidedIds()).includes(withdraw.id));
    const cancel = await live.svc.request("POST", `/api/v1/withdraws/${withdraw.id}/cancel`, undefined, {
      credentials: live.merchant,
    });
    assert.equal(cancel.status, 400, "the merchant cannot cancel it: the bank may have paid it");
    assert.deepEqual(cancel.body.error.metadata, { field: "status" });
    // SCB says the money left: the operator may not release the hold against it.
    await assertFailedRefused(withdraw.id, "the amount does not match", "bank_shows_paid", /completed/);
    const resolve = (bankReference: string) =>
      live.svc.admin("POST", `/admin/v1/withdraws/${withdraw.id}/resolve`, {
        outcome: "paid",
        reason: "SCB statement shows 1,800.00 THB paid; the inquiry's amount was a display error",
        bankReference,
      });
    // A reference with an invisible character is refused before anything is decided.
    const invisible = await resolve("SCB-STMT-\u200b20261126-0001");
    assert.equal(invisible.status, 400, JSON.stringify(invisible.body));
    assert.equal(invisible.body.error.metadata.field, "bankReference");
    assert.ok((await undecidedIds()).includes(withdraw.id), "still undecided");
    // Spaces around the reference are not part of it.
    const resolved = await resolve("  SCB-STMT-20261126-0001 ");
    assert.equal(resolved.status, 200);
    assert.equal(resolved.body.data.withdraw.status, "paid");
    assert.equal(resolved.body.data.resolution.bankReference, "SCB-STMT-20261126-0001");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    assert.ok(!(await undecidedIds()).includes(withdraw.id));
  });
});

describe("the operator's decision against a confirm still on its way", () => {
  it("refuses to resolve failed while the confirm sent moments ago may still be carried out; SCB's inquiry then pays it", async () => {
    // The confirm's answer is lost (503) although SCB carries the transfer out.
    confirmAnswered503({ executed: true });
    const withdraw = await newWithdraw({ amount: "1650.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    await assertFailedRefused(
      withdraw.id,
      "SCB's confirm failed with 503",
      "payout_in_flight",
      /SCB's confirm was sent at/,
    );
    const row = await reconcileUntilDecided(withdraw.id, 61_000, 10);
    assert.equal(row.status, "paid");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_paid"]);
    assert.equal(atScb(withdraw.id).executions, 1);
  });
  it("is refused failed until its confirm can no longer be on its way: 1 ms before, 409; at the point, failed", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const withdraw = await newWithdraw({ amount: "1660.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    const { resolved } = await resolveFailedAcrossSettlePoint(
      live,
      `/admin/v1/withdraws/${withdraw.id}/resolve`,
      async () => {
        assert.equal((await withdrawOf(withdraw.id)).status, "processing");
        assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold"]);
      },
    );
    assert.equal(resolved.body.data.withdraw.status, "failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
  });
});

describe("a payout the operator resolved failed is still asked about", () => {
  const resolvedFailed = async (amount: string) => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const withdraw = await newWithdraw({ amount });
    await dispatchPendingWithdraws(live.svc.deps);
    const { resolved } = await resolveFailedAcrossSettlePoint(
      live,
      `/admin/v1/withdraws/${withdraw.id}/resolve`,
      async () => {},
    );
    assert.equal(resolved.body.data.withdraw.status, "failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    return withdraw;
  };
  const reconcileFor = async (steps: number) => {
    for (let i = 0; i < steps; i += 1) {
      live.advance(120_000);
      await reconcilePayouts(live.svc.deps);
    }
  };

  it("books SCB's later completion as a late success, debited again and recorded for the operator, never sending again", async () => {
    const withdraw = await resolvedFailed("1670.00");
    await reconcileFor(2);
    assert.equal((await withdrawOf(withdraw.id)).status, "failed", "SCB still says processing");
    live.sim.setTransferStatus(atScb(withdraw.id).transfers[0]!.tokenizerId, "CONFIRM_COMPLETED");
    await reconcileFor(6);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), [
      "withdraw_hold",
      "withdraw_late_success",
      "withdraw_release",
    ]);
    assert.ok((await eventTypes(live.svc.deps.db, withdraw.id)).includes("withdraw.paid"));
    const anomalies = await anomaliesOf(live.svc.deps.db, withdraw.id);
    assert.deepEqual(
      anomalies.map((a) => a.reason),
      ["resolved_failed_then_paid"],
    );
    const scb = atScb(withdraw.id);
    assert.deepEqual([scb.initiates, scb.confirms, scb.executions], [1, 1, 1]);
    assert.equal((await payoutOf(withdraw.id)).state, "completed");
  });

  it("records for the operator, once, a transfer SCB then shows completed for another amount, booking nothing", async () => {
    const withdraw = await resolvedFailed("1675.00");
    const transfer = atScb(withdraw.id).transfers[0]!;
    transfer.amount = 1674.99;
    live.sim.setTransferStatus(transfer.tokenizerId, "CONFIRM_COMPLETED");
    await reconcileFor(40);
    assert.equal((await withdrawOf(withdraw.id)).status, "failed", "nothing booked: another amount");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    const anomalies = await anomaliesOf(live.svc.deps.db, withdraw.id);
    assert.deepEqual(
      anomalies.map((a) => a.reason),
      ["resolved_failed_bank_shows_completed"],
      "recorded once, however often SCB is asked",
    );
    assert.equal(anomalies[0]!.report, "payout.completed");
    const listed = await live.svc.admin("GET", "/admin/v1/anomalies?open=true&limit=100");
    const shown = listed.body.data.data.find((a: { subjectId: string }) => a.subjectId === withdraw.id);
    assert.ok(shown, "the operator sees it among the open anomalies");
    assert.match(shown.message, /resolved failed by the operator, but SCB's last answer shows/);
    assert.equal((await payoutOf(withdraw.id)).state, "watching", "SCB is still asked");
  });

  it("completes the record, booking nothing more, when SCB then shows the transfer failed", async () => {
    const withdraw = await resolvedFailed("1680.00");
    live.sim.setTransferStatus(atScb(withdraw.id).transfers[0]!.tokenizerId, "CONFIRM_FAILED", {
      code: "112",
      description: "Invalid Account",
    });
    await reconcileFor(3);
    assert.equal((await withdrawOf(withdraw.id)).status, "failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, withdraw.id), ["withdraw_hold", "withdraw_release"]);
    assert.deepEqual(await anomaliesOf(live.svc.deps.db, withdraw.id), []);
    assert.equal((await payoutOf(withdraw.id)).state, "completed");
    const scb = atScb(withdraw.id);
    assert.deepEqual([scb.initiates, scb.confirms], [1, 1], "nothing sent again");
    assert.ok(!(await undecidedIds()).includes(withdraw.id));
  });
});

describe("a slow inquiry's answer that lands after a later one's", () => {
  it("does not replace SCB's later word on the transfer, nor push its next inquiry back", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const withdraw = await newWithdraw({ amount: "1750.00" });
    await dispatchPendingWithdraws(live.svc.deps);
    assert.equal((await transferOf(withdraw.id))?.scb_status, "CONFIRM_PROCESSING");
    live.advance(61_000);
    // Process A asks SCB; SCB answers "processing", but the answer is slow to come back ...
    live.sim.failNext("transfer_inquiry", { kind: "timeout_but_execute", holdMs: 1_000 });
    const inquiries = live.sim.of("transfer_inquiry").length;
    const slow = live.otherProcess().provider!.getPayout(withdraw.id);
    while (live.sim.of("transfer_inquiry").length === inquiries) await sleep(5);
    // ... while SCB completes the transfer and process B's later inquiry learns it first.
    live.sim.setTransferStatus(atScb(withdraw.id).transfers[0]!.tokenizerId, "CONFIRM_COMPLETED");
    live.advance(1_000);
    assert.equal((await live.svc.deps.provider!.getPayout(withdraw.id)).status, "paid");
    const learnt = await transferOf(withdraw.id);
    assert.equal(learnt?.scb_status, "CONFIRM_COMPLETED");
    assert.equal((await slow).status, "accepted", "A's own answer is what SCB told it");
    const after = await transferOf(withdraw.id);
    assert.equal(after?.scb_status, "CONFIRM_COMPLETED", "A's late answer replaced nothing");
    assert.deepEqual(after?.next_inquiry_at, learnt?.next_inquiry_at);
    await reconcilePayouts(live.svc.deps);
    assert.equal((await withdrawOf(withdraw.id)).status, "paid");
  });
});

describe("POST /admin/v1/withdraws/{id}/resolve refusals", () => {
  it("answers 409 for a withdraw no connector holds, 404 for an unknown one, 400 without a reason, 401 without the token", async () => {
    const pending = await newWithdraw({ amount: "1900.00" });
    const notHeld = await live.svc.admin("POST", `/admin/v1/withdraws/${pending.id}/resolve`, {
      outcome: "paid",
      reason: "paid by hand",
    });
    assert.equal(notHeld.status, 409);
    assert.equal(notHeld.body.error.code, "STATE_CONFLICT");
    const unknown = await live.svc.admin(
      "POST",
      "/admin/v1/withdraws/00000000-0000-4000-8000-000000000000/resolve",
      {
        outcome: "paid",
        reason: "x",
      },
    );
    assert.equal(unknown.status, 404);
    const noReason = await live.svc.admin("POST", `/admin/v1/withdraws/${pending.id}/resolve`, {
      outcome: "paid",
    });
    assert.equal(noReason.status, 400);
    const badOutcome = await live.svc.admin("POST", `/admin/v1/withdraws/${pending.id}/resolve`, {
      outcome: "canceled",
      reason: "x",
    });
    assert.equal(badOutcome.status, 400);
    const anonymous = await live.svc.admin(
      "POST",
      `/admin/v1/withdraws/${pending.id}/resolve`,
      { outcome: "paid", reason: "x" },
      "wrong-token",
    );
    assert.equal(anonymous.status, 401);
    await live.svc.request("POST", `/api/v1/withdraws/${pending.id}/cancel`, undefined, {
      credentials: live.merchant,
    });
  });
});
