/**
 * Live refunds are paid out like withdraws (docs/refunds.md "Live"), end to end against the local
 * SCB simulator: a pending refund is handed to SCB's credit transfer under its own partner
 * transaction id and idempotency key, its answer booked with the refund's own transitions
 * (refund.succeeded, or refund.failed with SCB's reason and the hold released), an undecided
 * transfer keeps its hold until SCB's inquiry or the operator decides it, and two workers never
 * send one refund twice.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { RefundRow } from "../../src/db/types.ts";
import { payoutKeyOf, refundSubject } from "../../src/lib/payout-subjects.ts";
import {
  dispatchPendingPayouts,
  dispatchPendingRefunds,
  dispatchPendingWithdraws,
  reconcilePayouts,
} from "../../src/lifecycle/payouts.ts";
import { scbTables } from "../../src/providers/scb/db.ts";
import { partnerTransactionId, partnerTransactionIdOf } from "../../src/providers/scb/references.ts";
import { runOperatorCli } from "../helpers/cli.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { anomaliesOf, createPayment, eventTypes, ledgerKinds } from "../helpers/lifecycle.ts";
import { createRefund, createRefundRequest, refundBody } from "../helpers/refunds.ts";
import {
  CONFIRM_SETTLED_MS,
  INQUIRY_DELAY_S,
  type LiveScb,
  resolveFailedAcrossSettlePoint,
  startLiveScb,
} from "../helpers/scb/live.ts";

/** PAYOUT_UNDECIDED_ALERT_S of these tests. */
const ALERT_S = 600;

let live: LiveScb;

before(async () => {
  live = await startLiveScb({ timeoutMs: 3_000, env: { PAYOUT_UNDECIDED_ALERT_S: String(ALERT_S) } });
});
afterEach(async () => {
  live.sim.transferOutcome = { status: "CONFIRM_COMPLETED" };
  await assertLedgerConsistent(live.svc.deps.db);
});
after(async () => {
  await live.close();
});

const CUSTOMER = {
  customerBankCode: "014",
  customerBankAccountNumber: "5556667778",
  customerBankAccountName: "Somchai Jaidee",
};

/** A live PromptPay payment the customer paid through SCB (its amount awaits settlement). */
async function paidPayment(amount = "5000.00", customer: Record<string, string> = {}) {
  const payment = await createPayment(live.svc, live.merchant, { amount, ...customer });
  const { collection_reference: ref1 } = await live.svc.deps.db
    .selectFrom("payments")
    .select("collection_reference")
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  await live.sim.pay({ ref1: ref1 as string, amountSatang: BigInt(Math.round(Number(amount))) });
  const row = await live.svc.deps.db
    .selectFrom("payments")
    .select("status")
    .where("id", "=", payment.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.status, "succeeded");
  return payment;
}

async function refundOf(id: string): Promise<RefundRow> {
  return live.svc.deps.db.selectFrom("refunds").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

async function payoutOf(id: string) {
  return live.svc.deps.db
    .selectFrom("payouts")
    .selectAll()
    .where("refund_id", "=", id)
    .executeTakeFirstOrThrow();
}

/** What SCB saw for one refund: its transfers and how many confirms moved money. */
function atScb(refundId: string) {
  const transfers = live.sim.transfersOf(partnerTransactionIdOf(refundSubject(refundId)));
  return {
    initiates: transfers.length,
    confirms: transfers.reduce((n, t) => n + t.confirmsReceived, 0),
    executions: transfers.reduce((n, t) => n + t.executions, 0),
    transfers,
  };
}

async function undecidedRefundIds(): Promise<string[]> {
  const res = await live.svc.admin("GET", "/admin/v1/payouts/undecided?limit=100");
  assert.equal(res.status, 200);
  return res.body.data.data
    .filter((r: { subjectType: string }) => r.subjectType === "refund")
    .map((r: { refundId: string }) => r.refundId);
}

describe("a live refund paid by SCB credit transfer", () => {
  it("pays the refund to the payment's customer account under its own partner id: processing, then succeeded", async () => {
    const payment = await paidPayment("5000.00", CUSTOMER);
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "1200.00" });
    assert.equal(refund.status, "pending");
    assert.equal(
      await dispatchPendingWithdraws(live.svc.deps),
      0,
      "the withdraw dispatcher leaves refunds alone",
    );
    assert.equal(await dispatchPendingPayouts(live.svc.deps), 1);
    const row = await refundOf(refund.id);
    assert.equal(row.status, "succeeded");
    assert.ok(row.succeeded_at);
    assert.deepEqual((await eventTypes(live.svc.deps.db, refund.id)).sort(), [
      "refund.processing",
      "refund.succeeded",
    ]);
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold", "refund_paid"]);
    const scb = atScb(refund.id);
    assert.deepEqual([scb.initiates, scb.confirms, scb.executions], [1, 1, 1]);
    assert.equal(scb.transfers[0]!.amount, 12, "1200 satang: 12.00 THB");
    assert.deepEqual(scb.transfers[0]!.payee, {
      name: "Somchai Jaidee",
      accountInfo: { accountNo: "5556667778", bankCode: "014" },
    });
    // Its own key and partner id: never a withdraw's, even one with the same UUID.
    const payout = await payoutOf(refund.id);
    assert.equal(payout.idempotency_key, payoutKeyOf(refundSubject(refund.id)));
    assert.notEqual(payout.idempotency_key, refund.id);
    assert.equal(payout.withdraw_id, null);
    assert.equal(payout.state, "completed");
    const partnerId = partnerTransactionIdOf(refundSubject(refund.id));
    assert.notEqual(partnerId, partnerTransactionId(refund.id));
    assert.equal(partnerId.length, 25);
    assert.equal(live.sim.transfersOf(partnerTransactionId(refund.id)).length, 0);
    const transfer = await scbTables(live.svc.deps.db)
      .selectFrom("scb_transfers")
      .selectAll()
      .where("refund_id", "=", refund.id)
      .executeTakeFirstOrThrow();
    assert.equal(transfer.partner_transaction_id, partnerId);
    assert.equal(transfer.withdraw_id, null);
    assert.equal(payout.provider_reference, transfer.tokenizer_id);
    // SCB's exchanges about the transfer name the refund, for the operator.
    const exchanges = await scbTables(live.svc.deps.db)
      .selectFrom("scb_exchanges")
      .select(["operation", "withdraw_id"])
      .where("refund_id", "=", refund.id)
      .execute();
    assert.ok(exchanges.some((e) => e.operation === "credit_initiate"));
    assert.ok(exchanges.every((e) => e.withdraw_id === null));
    const read = await live.svc.request("GET", `/api/v1/refunds/${refund.id}`, undefined, {
      credentials: live.merchant,
    });
    assert.equal(read.body.data.status, "succeeded");
  });

  it("pays the destination the refund named instead of the customer's account", async () => {
    const payment = await paidPayment();
    const refund = await createRefund(live.svc, live.merchant, payment.id, {
      amount: "300.00",
      destination: { bankCode: "004", accountNumber: "1234567890", accountName: "Malee Dee" },
    });
    await dispatchPendingRefunds(live.svc.deps);
    assert.equal((await refundOf(refund.id)).status, "succeeded");
    assert.deepEqual(atScb(refund.id).transfers[0]!.payee, {
      name: "Malee Dee",
      accountInfo: { accountNo: "1234567890", bankCode: "004" },
    });
  });

  it("fails the refund with SCB's reason on a documented failure, releasing its hold: refundable again", async () => {
    live.sim.transferOutcome = {
      status: "CONFIRM_FAILED",
      legacyCode: "112",
      legacyDescription: "Invalid Account",
    };
    const payment = await paidPayment("2000.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "2000.00" });
    await dispatchPendingRefunds(live.svc.deps);
    const row = await refundOf(refund.id);
    assert.equal(row.status, "failed");
    assert.ok(row.failed_at);
    assert.match(row.failure_reason ?? "", /112 Invalid Account/);
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold", "refund_release"]);
    const events = await live.svc.deps.db
      .selectFrom("events")
      .select(["type", "data"])
      .where("object_id", "=", refund.id)
      .where("type", "=", "refund.failed")
      .execute();
    assert.equal(events.length, 1);
    assert.match(JSON.stringify(events[0]!.data), /112 Invalid Account/);
    // The amount is refundable again: the whole payment.
    live.sim.transferOutcome = { status: "CONFIRM_COMPLETED" };
    const again = await createRefund(live.svc, live.merchant, payment.id, { amount: "2000.00" });
    await dispatchPendingRefunds(live.svc.deps);
    assert.equal((await refundOf(again.id)).status, "succeeded");
  });

  it("fails a refund whose first and only initiate SCB refuses: nothing moved, the hold released", async () => {
    live.sim.failNext("credit_initiate", {
      kind: "answer",
      httpStatus: 400,
      code: 8101,
      description: "VF0003 Validation Fail: payee",
    });
    const payment = await paidPayment("800.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "800.00" });
    await dispatchPendingRefunds(live.svc.deps);
    const row = await refundOf(refund.id);
    assert.equal(row.status, "failed");
    assert.match(row.failure_reason ?? "", /VF0003/);
    assert.equal(atScb(refund.id).executions, 0);
  });

  it("a confirm that timed out but executed: processing with its hold kept, succeeded after SCB's inquiry, one transfer", async () => {
    live.sim.failNext("credit_confirm", { kind: "timeout_but_execute" });
    const payment = await paidPayment();
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "700.00" });
    await dispatchPendingRefunds(live.svc.deps);
    assert.equal((await refundOf(refund.id)).status, "processing");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold"]);
    const cancel = await live.svc.request(
      "POST",
      `/api/v1/refunds/${refund.id}/cancel`,
      {},
      {
        credentials: live.merchant,
      },
    );
    assert.equal(cancel.status, 400, "a refund with the bank cannot be canceled");
    assert.equal(cancel.body.error.metadata.field, "status");
    live.advance((INQUIRY_DELAY_S + 1) * 1000);
    await Promise.all([reconcilePayouts(live.svc.deps), reconcilePayouts(live.otherProcess())]);
    assert.equal((await refundOf(refund.id)).status, "succeeded");
    assert.deepEqual(await eventTypes(live.svc.deps.db, refund.id), [
      "refund.processing",
      "refund.succeeded",
    ]);
    const scb = atScb(refund.id);
    assert.deepEqual([scb.initiates, scb.confirms, scb.executions], [1, 1, 1]);
  });

  it("an initiate whose answer was lost: the reconciler initiates again under the same partner id, one transfer", async () => {
    live.sim.failNext("credit_initiate", { kind: "timeout_but_execute" });
    const payment = await paidPayment();
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "650.00" });
    await dispatchPendingRefunds(live.svc.deps);
    assert.equal((await refundOf(refund.id)).status, "processing");
    assert.equal((await payoutOf(refund.id)).state, "unknown");
    live.advance(61_000);
    await reconcilePayouts(live.svc.deps);
    assert.equal((await refundOf(refund.id)).status, "succeeded");
    const scb = atScb(refund.id);
    assert.equal(scb.initiates, 2);
    assert.deepEqual([scb.confirms, scb.executions], [1, 1]);
  });

  it("two workers dispatching at once send one refund once", async () => {
    const payment = await paidPayment();
    const refunds = [];
    for (let i = 0; i < 3; i += 1) {
      refunds.push(await createRefund(live.svc, live.merchant, payment.id, refundBody({ amount: "100.00" })));
    }
    const counts = await Promise.all([
      dispatchPendingRefunds(live.svc.deps),
      dispatchPendingRefunds(live.otherProcess()),
    ]);
    assert.equal(counts[0] + counts[1], 3);
    for (const refund of refunds) {
      assert.equal((await refundOf(refund.id)).status, "succeeded");
      const scb = atScb(refund.id);
      assert.deepEqual([scb.initiates, scb.confirms, scb.executions], [1, 1, 1]);
      assert.deepEqual(await eventTypes(live.svc.deps.db, refund.id), [
        "refund.processing",
        "refund.succeeded",
      ]);
    }
  });

  it("a send whose answer never came: other processes' reconcilers send the same refund once, under the same key", async () => {
    const payment = await paidPayment();
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "420.00" });
    // The hand-over committed (processing, the attempt recorded), then SCB's answer to the
    // initiate never came: whether it arrived is unknown.
    live.sim.failNext("credit_initiate", { kind: "timeout" });
    await dispatchPendingRefunds(live.svc.deps);
    assert.equal((await refundOf(refund.id)).status, "processing");
    // Two other processes' reconcilers find the open attempt once its check is due.
    live.advance(61_000);
    await Promise.all([reconcilePayouts(live.otherProcess()), reconcilePayouts(live.otherProcess())]);
    live.advance(61_000);
    await reconcilePayouts(live.otherProcess());
    assert.equal((await refundOf(refund.id)).status, "succeeded");
    assert.equal(atScb(refund.id).executions, 1);
    const payout = await payoutOf(refund.id);
    assert.equal(payout.idempotency_key, payoutKeyOf(refundSubject(refund.id)));
  });
});

describe("an undecided refund transfer", () => {
  it("keeps the hold while undecided, is listed for the operator past the bound, and is resolved like a withdraw", async () => {
    // SCB never answers the confirm and its inquiry keeps saying the transfer is processing.
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment();
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "900.00" });
    await dispatchPendingRefunds(live.svc.deps);
    assert.equal((await refundOf(refund.id)).status, "processing");
    assert.ok(!(await undecidedRefundIds()).includes(refund.id), "not listed before the bound");
    for (let i = 0; i < 3; i += 1) {
      live.advance(INQUIRY_DELAY_S * 1000);
      await reconcilePayouts(live.svc.deps);
    }
    // Never failed, never released, while SCB has not said nothing moved.
    assert.equal((await refundOf(refund.id)).status, "processing");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold"]);
    live.advance(ALERT_S * 1000);
    const list = await live.svc.admin("GET", "/admin/v1/payouts/undecided?limit=100");
    const listed = list.body.data.data.find((r: { refundId: string | null }) => r.refundId === refund.id);
    assert.ok(listed, "listed for the operator");
    assert.equal(listed.subjectType, "refund");
    assert.equal(listed.withdrawId, null);
    assert.equal(listed.amount, "900.00");
    assert.equal(listed.referenceId, refund.referenceId);
    assert.equal(listed.bank.transfer.state, "initiated");
    assert.ok(listed.bank.lastAnswers.length > 0, "SCB's last answers about the refund's transfer");

    // A withdraw's resolve route does not decide a refund.
    const wrong = await live.svc.admin("POST", `/admin/v1/withdraws/${refund.id}/resolve`, {
      outcome: "paid",
      reason: "wrong route",
    });
    assert.equal(wrong.status, 404);

    const resolved = await live.svc.admin("POST", `/admin/v1/refunds/${refund.id}/resolve`, {
      outcome: "paid",
      reason: "SCB's statement shows the transfer paid",
      bankReference: "SCB-REFUND-0001",
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.equal(resolved.body.data.refund.status, "succeeded");
    assert.equal(resolved.body.data.resolution.refundId, refund.id);
    assert.equal(resolved.body.data.resolution.actor, "admin-token");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold", "refund_paid"]);
    const record = await live.svc.deps.db
      .selectFrom("payout_resolutions")
      .selectAll()
      .where("refund_id", "=", refund.id)
      .executeTakeFirstOrThrow();
    assert.equal(record.outcome, "paid");
    assert.equal(record.withdraw_id, null);
    assert.ok(!(await undecidedRefundIds()).includes(refund.id));
    const audit = await live.svc.admin("GET", `/admin/v1/audit-log?recordId=${refund.id}`);
    const decision = audit.body.data.data.find((e: { action: string }) => e.action === "resolveRefund");
    assert.ok(decision, "the decision is in the audit log");
    assert.equal(decision.merchantId, live.merchant.merchantId, "it names the refund's merchant");
    const again = await live.svc.admin("POST", `/admin/v1/refunds/${refund.id}/resolve`, {
      outcome: "failed",
      reason: "second thoughts",
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "STATE_CONFLICT");
    // The bank's later word changes nothing: the payout is completed, nothing is asked or sent.
    const initiates = atScb(refund.id).initiates;
    live.advance(INQUIRY_DELAY_S * 1000);
    await reconcilePayouts(live.svc.deps);
    assert.equal(atScb(refund.id).initiates, initiates);
  });

  it("is refused failed until its confirm can no longer be on its way: 1 ms before, 409; at the point, failed", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment("900.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "900.00" });
    await dispatchPendingRefunds(live.svc.deps);
    const { resolved } = await resolveFailedAcrossSettlePoint(
      live,
      `/admin/v1/refunds/${refund.id}/resolve`,
      async () => {
        assert.equal((await refundOf(refund.id)).status, "processing");
        assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold"]);
      },
    );
    assert.equal(resolved.body.data.refund.status, "failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold", "refund_release"]);
  });

  it("is not failed by the operator while SCB shows its transfer completed for another amount (bank_shows_paid)", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment("1100.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "1100.00" });
    await dispatchPendingRefunds(live.svc.deps);
    const transfer = atScb(refund.id).transfers[0]!;
    transfer.amount = 10.99;
    live.sim.setTransferStatus(transfer.tokenizerId, "CONFIRM_COMPLETED");
    for (let i = 0; i < 5; i += 1) {
      live.advance(CONFIRM_SETTLED_MS);
      await reconcilePayouts(live.svc.deps);
    }
    assert.equal((await refundOf(refund.id)).status, "processing", "another amount is not booked");
    const failed = await live.svc.admin("POST", `/admin/v1/refunds/${refund.id}/resolve`, {
      outcome: "failed",
      reason: "the amount does not match",
    });
    assert.equal(failed.status, 409, JSON.stringify(failed.body));
    assert.equal(failed.body.error.metadata.reason, "bank_shows_paid");
    assert.match(failed.body.error.message, /another amount than the payout's/);
    assert.equal((await refundOf(refund.id)).status, "processing");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold"], "the hold stays");
    const paid = await live.svc.admin("POST", `/admin/v1/refunds/${refund.id}/resolve`, {
      outcome: "paid",
      reason: "SCB statement shows 11.00 THB paid",
      bankReference: `SCB-STMT-${refund.id.slice(0, 8)}`,
    });
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal(paid.body.data.refund.status, "succeeded");
  });

  it("is failed by the operator with the reason kept, its hold released", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment("1000.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "1000.00" });
    await dispatchPendingRefunds(live.svc.deps);
    // Listed past the alert's bound, and no longer on its way past SCB's 45 minutes.
    live.advance(CONFIRM_SETTLED_MS);
    const resolved = await live.svc.admin("POST", `/admin/v1/refunds/${refund.id}/resolve`, {
      outcome: "failed",
      reason: "SCB support: the transfer was rejected by the receiving bank",
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.equal(resolved.body.data.refund.status, "failed");
    assert.equal(
      resolved.body.data.refund.failureReason,
      "SCB support: the transfer was rejected by the receiving bank",
    );
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), ["refund_hold", "refund_release"]);
    assert.deepEqual(await eventTypes(live.svc.deps.db, refund.id), ["refund.processing", "refund.failed"]);
  });

  it("is still asked about after a failed resolution: SCB's later completion is booked as the refund's late success", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment("1100.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "1100.00" });
    await dispatchPendingRefunds(live.svc.deps);
    await resolveFailedAcrossSettlePoint(live, `/admin/v1/refunds/${refund.id}/resolve`, async () => {});
    assert.equal((await refundOf(refund.id)).status, "failed");
    live.sim.setTransferStatus(atScb(refund.id).transfers[0]!.tokenizerId, "CONFIRM_COMPLETED");
    for (let i = 0; i < 6; i += 1) {
      live.advance(120_000);
      await reconcilePayouts(live.svc.deps);
    }
    assert.equal((await refundOf(refund.id)).status, "succeeded");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, refund.id), [
      "refund_hold",
      "refund_late_success",
      "refund_release",
    ]);
    assert.deepEqual(
      (await anomaliesOf(live.svc.deps.db, refund.id)).map((a) => a.reason),
      ["resolved_failed_then_paid"],
    );
    assert.deepEqual([atScb(refund.id).initiates, atScb(refund.id).confirms], [1, 1]);
  });

  it("keeps a refund the operator failed on its payment's refunded sum until SCB answers: no second refund takes its amount, and SCB's later completion is booked", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment("1300.00");
    const first = await createRefund(live.svc, live.merchant, payment.id, { amount: "1300.00" });
    await dispatchPendingRefunds(live.svc.deps);
    await resolveFailedAcrossSettlePoint(live, `/admin/v1/refunds/${first.id}/resolve`, async () => {});
    assert.equal((await refundOf(first.id)).status, "failed");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, first.id), ["refund_hold", "refund_release"]);

    // SCB may still pay the first: its amount is not refundable again before SCB answers.
    const second = await createRefundRequest(
      live.svc,
      live.merchant,
      payment.id,
      refundBody({ amount: "1.00" }),
    );
    assert.equal(second.status, 400, JSON.stringify(second.body));
    assert.equal(second.body.error.code, "INVALID_INPUT");
    assert.deepEqual(second.body.error.metadata, { refundable: "0.00", amount: "1.00" });

    live.sim.setTransferStatus(atScb(first.id).transfers[0]!.tokenizerId, "CONFIRM_COMPLETED");
    for (let i = 0; i < 6; i += 1) {
      live.advance(120_000);
      await reconcilePayouts(live.svc.deps);
    }
    assert.equal((await refundOf(first.id)).status, "succeeded", "booked, not refused as an over-refund");
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, first.id), [
      "refund_hold",
      "refund_late_success",
      "refund_release",
    ]);
    assert.deepEqual(
      (await anomaliesOf(live.svc.deps.db, first.id)).map((a) => a.reason),
      ["resolved_failed_then_paid"],
    );
    const paymentRow = await live.svc.deps.db
      .selectFrom("payments")
      .select(["refunded_satang", "refund_settlement_satang"])
      .where("id", "=", payment.id)
      .executeTakeFirstOrThrow();
    assert.equal(paymentRow.refunded_satang, 1300n, "counted once");
    assert.equal(paymentRow.refund_settlement_satang, 1300n, "taken again from the unsettled payment");
    assert.equal((await refundOf(first.id)).refundable_withheld, false);
    const third = await createRefundRequest(
      live.svc,
      live.merchant,
      payment.id,
      refundBody({ amount: "1.00" }),
    );
    assert.equal(third.status, 400, "the payment is wholly refunded");
  });

  it("returns a refund the operator failed to its payment's refundable amount once SCB says it failed too", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment("1400.00");
    const first = await createRefund(live.svc, live.merchant, payment.id, { amount: "1400.00" });
    await dispatchPendingRefunds(live.svc.deps);
    await resolveFailedAcrossSettlePoint(live, `/admin/v1/refunds/${first.id}/resolve`, async () => {});
    assert.equal((await refundOf(first.id)).refundable_withheld, true);
    const early = await createRefundRequest(
      live.svc,
      live.merchant,
      payment.id,
      refundBody({ amount: "1400.00" }),
    );
    assert.equal(early.status, 400, JSON.stringify(early.body));

    live.sim.setTransferStatus(atScb(first.id).transfers[0]!.tokenizerId, "CONFIRM_FAILED");
    for (let i = 0; i < 6; i += 1) {
      live.advance(120_000);
      await reconcilePayouts(live.svc.deps);
    }
    assert.equal((await payoutOf(first.id)).state, "completed", "the watch is over");
    assert.equal((await refundOf(first.id)).status, "failed");
    assert.equal((await refundOf(first.id)).refundable_withheld, false);
    assert.deepEqual(await ledgerKinds(live.svc.deps.db, first.id), ["refund_hold", "refund_release"]);
    const again = await createRefund(live.svc, live.merchant, payment.id, { amount: "1400.00" });
    assert.equal(again.status, "pending", "the whole amount is refundable again");
  });

  it("is listed by `satang payouts undecided` and failed by `satang refund resolve`", async () => {
    live.sim.transferOutcome = { status: "CONFIRM_PROCESSING" };
    const payment = await paidPayment("1200.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "1200.00" });
    await dispatchPendingRefunds(live.svc.deps);
    live.advance(CONFIRM_SETTLED_MS);
    const address = live.svc.app.server.address() as { port: number };
    const satang = (args: string[]) => runOperatorCli(`http://127.0.0.1:${address.port}`, args);
    const listed = await satang(["payouts", "undecided"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`refund ${refund.id}  12\\.00 THB  scb`));
    const resolved = await satang([
      "refund",
      "resolve",
      refund.id,
      "--outcome",
      "failed",
      "--reason",
      "SCB support: account closed",
    ]);
    assert.equal(resolved.code, 0, resolved.stderr);
    assert.equal(resolved.stdout.trim(), `Refund ${refund.id} is now failed`);
    assert.equal((await refundOf(refund.id)).status, "failed");
    const again = await satang(["refund", "resolve", refund.id, "--outcome", "paid", "--reason", "x"]);
    assert.equal(again.code, 1, "a decided refund is not decided twice");
  });

  it("refuses to resolve a refund that is still pending (no connector holds it)", async () => {
    const payment = await paidPayment("100.00");
    const refund = await createRefund(live.svc, live.merchant, payment.id, { amount: "100.00" });
    const res = await live.svc.admin("POST", `/admin/v1/refunds/${refund.id}/resolve`, {
      outcome: "failed",
      reason: "nothing to decide",
    });
    assert.equal(res.status, 409);
    assert.equal(res.body.error.metadata.reason, "not_undecided");
    const missing = await live.svc.admin(
      "POST",
      "/admin/v1/refunds/00000000-0000-4000-8000-000000000000/resolve",
      {
        outcome: "failed",
        reason: "nothing to decide",
      },
    );
    assert.equal(missing.status, 404);
    await live.svc.request("POST", `/api/v1/refunds/${refund.id}/cancel`, {}, { credentials: live.merchant });
  });
});
