/**
 * Refunds through the manual payout desk (SATANG_PAYOUTS=manual, docs/payout-desk.md): a pending
 * refund is a line of a batch beside the withdraws, marked as a refund in the record and the CSV,
 * paid to the refund's destination (the payment's customer account unless the refund named one),
 * and its outcome recorded by the operator like a withdraw's, through the refund's own
 * transitions (refund.succeeded; refund.failed with the reason and the hold released).
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { AppError } from "../../src/lib/errors.ts";
import { dispatchPendingPayouts } from "../../src/lifecycle/payouts.ts";
import { simulateRefund } from "../../src/refunds/simulate.ts";
import { csvRecords } from "../helpers/csv.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { anomaliesOf, eventTypes, ledgerKinds } from "../helpers/lifecycle.ts";
import { createRefund, succeededPayment } from "../helpers/refunds.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const MANUAL = { SATANG_PAYOUTS: "manual", SANDBOX_PAYOUT_PICKUP: "automatic" };

let svc: TestService;

before(async () => {
  svc = await startService({ env: MANUAL });
});
afterEach(async () => {
  await assertLedgerConsistent(svc.deps.db);
});
after(async () => {
  await svc?.close();
});

async function createWithdraw(credentials: Credentials) {
  svc.clock.advance(1000);
  const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "1000.00" }), {
    credentials,
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data as { id: string };
}

async function refundStatus(id: string): Promise<string> {
  const row = await svc.deps.db
    .selectFrom("refunds")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

async function newBatch(merchant: Credentials) {
  const res = await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: merchant.merchantId });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

/** A merchant with a succeeded payment from a known customer account, and a pending refund of it. */
async function pendingRefund(overrides: Record<string, unknown> = {}) {
  const merchant = await fundedMerchant(svc);
  svc.clock.advance(1000);
  const payment = await succeededPayment(svc, merchant, "5000.00");
  svc.clock.advance(1000);
  const refund = await createRefund(svc, merchant, payment.id, { amount: "1500.00", ...overrides });
  assert.equal(refund.status, "pending");
  return { merchant, payment, refund };
}

async function customerAccountOf(paymentId: string) {
  return svc.deps.db
    .selectFrom("payments")
    .select(["customer_bank_code", "customer_bank_account_number", "customer_bank_account_name"])
    .where("id", "=", paymentId)
    .executeTakeFirstOrThrow();
}

describe("refunds through the payout desk", () => {
  it("takes pending withdraws and refunds into one batch, oldest first, the refund line marked as a refund", async () => {
    const merchant = await fundedMerchant(svc);
    const withdraw = await createWithdraw(merchant);
    svc.clock.advance(1000);
    const payment = await succeededPayment(svc, merchant, "5000.00");
    svc.clock.advance(1000);
    const refund = await createRefund(svc, merchant, payment.id, { amount: "1500.00" });
    const later = await createWithdraw(merchant);

    // The payout worker leaves refunds to the desk, as it leaves withdraws.
    assert.equal(await dispatchPendingPayouts(svc.deps), 0);
    assert.equal(await refundStatus(refund.id), "pending");

    const batch = await newBatch(merchant);
    assert.equal(batch.itemCount, 3);
    assert.equal(batch.totalAmount, "3500.00");
    assert.deepEqual(
      batch.items.map((i: { kind: string }) => i.kind),
      ["withdraw", "refund", "withdraw"],
    );
    assert.equal(batch.items[0].withdrawId, withdraw.id);
    assert.equal(batch.items[2].withdrawId, later.id);
    const line = batch.items[1];
    assert.equal(line.refundId, refund.id);
    assert.equal(line.withdrawId, null);
    assert.equal(line.withdrawStatus, null);
    assert.equal(line.refundStatus, "processing");
    assert.equal(batch.items[0].refundId, null);
    assert.equal(batch.items[0].refundStatus, null);
    assert.equal(line.referenceId, refund.referenceId);
    assert.equal(line.amount, "1500.00");
    assert.equal(line.destinationType, "bank_account");
    const customer = await customerAccountOf(payment.id);
    assert.equal(line.bankCode, customer.customer_bank_code);
    assert.equal(line.bankAccountName, customer.customer_bank_account_name);
    assert.equal(line.bankAccountNumber.slice(-4), customer.customer_bank_account_number!.slice(-4));
    assert.match(line.bankAccountNumber, /^\*+[0-9]{4}$/);
    assert.equal(await refundStatus(refund.id), "processing");
    assert.deepEqual(await eventTypes(svc.deps.db, refund.id), ["refund.processing"]);
    assert.deepEqual(await ledgerKinds(svc.deps.db, refund.id), ["refund_hold"]);

    // A refund with the operator cannot be canceled.
    const cancel = await svc.request(
      "POST",
      `/api/v1/refunds/${refund.id}/cancel`,
      {},
      { credentials: merchant },
    );
    assert.equal(cancel.status, 400);
    assert.equal(cancel.body.error.code, "VALIDATION_ERROR");

    // The CSV: the refund's line pays the customer's account in full, marked as a refund.
    const csv = await svc.admin("GET", `/admin/v1/payout-batches/${batch.id}/csv`);
    assert.equal(csv.status, 200);
    const records = csvRecords(String(csv.raw.body).replace(/^\uFEFF/, ""));
    assert.equal(records.length, 3);
    const refundLine = records[1]!;
    assert.equal(refundLine.kind, "refund");
    assert.equal(refundLine.refund_id, refund.id);
    assert.equal(refundLine.withdraw_id, "");
    assert.equal(refundLine.account_number, customer.customer_bank_account_number);
    assert.equal(refundLine.account_name, customer.customer_bank_account_name);
    assert.equal(refundLine.amount_thb, "15.00");
    assert.equal(refundLine.reference, refund.referenceId);
    assert.equal(refundLine.status, "open");
    assert.equal(records[0]!.kind, "withdraw");
    assert.equal(records[0]!.withdraw_id, withdraw.id);
    assert.equal(records[0]!.refund_id, "");

    // Outcomes: the refund's through the refund route, booked with the refund's transitions.
    svc.clock.advance(1000);
    const paid = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batch.id}/refunds/${refund.id}/outcome`,
      {
        outcome: "paid",
        bankReference: `RF-${refund.id.slice(0, 8)}`,
      },
    );
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    const recorded = paid.body.data.items[1];
    assert.equal(recorded.outcome, "paid");
    assert.equal(recorded.refundStatus, "succeeded");
    assert.equal(recorded.recordedBy, "admin-token");
    assert.equal(await refundStatus(refund.id), "succeeded");
    assert.deepEqual(await ledgerKinds(svc.deps.db, refund.id), ["refund_hold", "refund_paid"]);
    assert.deepEqual(await eventTypes(svc.deps.db, refund.id), ["refund.processing", "refund.succeeded"]);
    // The same outcome again changes nothing; another is refused.
    const again = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batch.id}/refunds/${refund.id}/outcome`,
      {
        outcome: "paid",
        bankReference: `RF-${refund.id.slice(0, 8)}`,
      },
    );
    assert.equal(again.status, 200);
    const other = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batch.id}/refunds/${refund.id}/outcome`,
      {
        outcome: "failed",
        reason: "second thoughts",
      },
    );
    assert.equal(other.status, 409);
    assert.equal(other.body.error.metadata.reason, "outcome_already_recorded");
    assert.deepEqual(await ledgerKinds(svc.deps.db, refund.id), ["refund_hold", "refund_paid"]);

    // A refund's id is not a withdraw line, nor a withdraw's id a refund line.
    const wrongRoute = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batch.id}/items/${refund.id}/outcome`,
      {
        outcome: "failed",
        reason: "x",
      },
    );
    assert.equal(wrongRoute.status, 404);
    const wrongKind = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batch.id}/refunds/${withdraw.id}/outcome`,
      { outcome: "failed", reason: "x" },
    );
    assert.equal(wrongKind.status, 404);

    // The audit log names the refund.
    const audit = await svc.admin("GET", `/admin/v1/audit-log?recordId=${refund.id}`);
    const entry = audit.body.data.data.find(
      (e: { action: string }) => e.action === "recordRefundPayoutOutcome",
    );
    assert.ok(entry, "the outcome is in the audit log");
    assert.equal(entry.recordType, "refund");
    // It names the refund's merchant, so the merchant's own audit log shows it too.
    assert.equal(entry.merchantId, merchant.merchantId);
    const own = await svc.admin(
      "GET",
      `/admin/v1/audit-log?merchantId=${merchant.merchantId}&action=recordRefundPayoutOutcome`,
    );
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.ok(own.body.data.data.some((e: { recordId: string }) => e.recordId === refund.id));

    // The withdraws' outcomes close the batch.
    for (const id of [withdraw.id, later.id]) {
      const res = await svc.admin("POST", `/admin/v1/payout-batches/${batch.id}/items/${id}/outcome`, {
        outcome: "failed",
        reason: "Account closed",
      });
      assert.equal(res.status, 200);
    }
    const closed = await svc.admin("GET", `/admin/v1/payout-batches/${batch.id}`);
    assert.equal(closed.body.data.status, "closed");
    assert.equal(closed.body.data.paidAmount, "1500.00");
  });

  it("a failed refund line: refund.failed with the operator's reason, its hold released, refundable again", async () => {
    const { merchant, payment, refund } = await pendingRefund({ amount: "5000.00" });
    const batch = await newBatch(merchant);
    assert.equal(batch.items.length, 1);
    // A second later, so the outcome's event sorts after the batch's (events of one instant sort by type).
    svc.clock.advance(1000);
    const res = await svc.admin("POST", `/admin/v1/payout-batches/${batch.id}/refunds/${refund.id}/outcome`, {
      outcome: "failed",
      reason: "Receiving bank: account closed",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "closed");
    const read = await svc.request("GET", `/api/v1/refunds/${refund.id}`, undefined, {
      credentials: merchant,
    });
    assert.equal(read.body.data.status, "failed");
    assert.equal(read.body.data.failureReason, "Receiving bank: account closed");
    assert.deepEqual(await ledgerKinds(svc.deps.db, refund.id), ["refund_hold", "refund_release"]);
    assert.deepEqual(await eventTypes(svc.deps.db, refund.id), ["refund.processing", "refund.failed"]);
    // The whole payment can be refunded again.
    const again = await createRefund(svc, merchant, payment.id, { amount: "5000.00" });
    assert.equal(again.status, "pending");
  });

  it("the sandbox's simulated bank reports nothing on a refund the desk pays: 409 payout_desk, nothing moved", async () => {
    const { merchant, refund } = await pendingRefund();
    const simulate = (outcome: string) =>
      svc.request(
        "POST",
        `/api/v1/sandbox/refunds/${refund.id}/simulate`,
        { outcome },
        { credentials: merchant },
      );
    const pending = await simulate("processing");
    assert.equal(pending.status, 409, JSON.stringify(pending.body));
    assert.deepEqual(pending.body.error.metadata, { status: "pending", reason: "payout_desk" });
    await newBatch(merchant);
    for (const outcome of ["failed", "succeeded"]) {
      const res = await simulate(outcome);
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.deepEqual(res.body.error.metadata, { status: "processing", reason: "payout_desk" });
    }
    // Restarted with SATANG_PAYOUTS=provider while the batch is open: still the desk's line.
    const providerMode = {
      ...svc.deps,
      config: { ...svc.deps.config, payouts: "provider" as const },
      recordLateSuccessAnomaly: async () => {},
    };
    for (const outcome of ["failed", "succeeded"] as const) {
      await assert.rejects(
        simulateRefund(providerMode, merchant.merchantId, refund.id, outcome),
        (error: unknown) =>
          error instanceof AppError && (error.metadata as { reason?: string }).reason === "payout_desk",
        outcome,
      );
    }
    assert.equal(await refundStatus(refund.id), "processing");
    assert.deepEqual(await ledgerKinds(svc.deps.db, refund.id), ["refund_hold"]);
  });

  it("books paid on a refund line recorded failed as the late success, or records the refusal for the operator", async () => {
    const merchant = await fundedMerchant(svc);
    svc.clock.advance(1000);
    const payment = await succeededPayment(svc, merchant, "5000.00");
    svc.clock.advance(1000);
    const first = await createRefund(svc, merchant, payment.id, { amount: "5000.00" });
    const batch = await newBatch(merchant);
    const onLine = (batchId: string, refundId: string, body: Record<string, unknown>) =>
      svc.admin("POST", `/admin/v1/payout-batches/${batchId}/refunds/${refundId}/outcome`, body);
    assert.equal(
      (await onLine(batch.id, first.id, { outcome: "failed", reason: "Bank said closed" })).status,
      200,
    );

    // The whole payment is refunded again and paid: the bank's later word on the first is refused
    // (the payment cannot be refunded twice), and recorded for the operator, as the answer says.
    const second = await createRefund(svc, merchant, payment.id, { amount: "5000.00" });
    const again = await newBatch(merchant);
    const reference = `DESK-R-${second.id.slice(0, 8)}`;
    assert.equal(
      (await onLine(again.id, second.id, { outcome: "paid", bankReference: reference })).status,
      200,
    );
    const late = await onLine(batch.id, first.id, { outcome: "paid", bankReference: `${reference}-1` });
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.error.metadata.reason, "late_success_over_refunded");
    assert.equal(await refundStatus(first.id), "failed");
    assert.deepEqual(
      (await anomaliesOf(svc.deps.db, first.id)).map((a) => [a.reason, a.report]),
      [["late_success_over_refunded", "payout.paid"]],
    );
    const audit = await svc.admin("GET", `/admin/v1/audit-log?recordId=${first.id}`);
    assert.deepEqual(
      audit.body.data.data.map((e: { action: string }) => e.action),
      ["recordRefundPayoutOutcome"],
      "the refused correction is not an action of the operator's",
    );
  });

  it("pays the destination a refund named instead of the customer's account", async () => {
    const destination = { bankCode: "004", accountNumber: "1234567890", accountName: "Malee Dee" };
    const { merchant, refund } = await pendingRefund({ destination });
    const batch = await newBatch(merchant);
    const csv = await svc.admin("GET", `/admin/v1/payout-batches/${batch.id}/csv`);
    const line = csvRecords(String(csv.raw.body).replace(/^\uFEFF/, ""))[0]!;
    assert.equal(line.refund_id, refund.id);
    assert.equal(line.bank_code, "004");
    assert.equal(line.account_number, "1234567890");
    assert.equal(line.account_name, "Malee Dee");
  });

  it("refuses a bank reference already recorded for a withdraw: one transfer pays one line", async () => {
    const merchant = await fundedMerchant(svc);
    const withdraw = await createWithdraw(merchant);
    svc.clock.advance(1000);
    const payment = await succeededPayment(svc, merchant, "5000.00");
    const refund = await createRefund(svc, merchant, payment.id, { amount: "100.00" });
    const batch = await newBatch(merchant);
    const reference = `BR-${withdraw.id.slice(0, 8)}`;
    const first = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batch.id}/items/${withdraw.id}/outcome`,
      {
        outcome: "paid",
        bankReference: reference,
      },
    );
    assert.equal(first.status, 200);
    const reused = await svc.admin(
      "POST",
      `/admin/v1/payout-batches/${batch.id}/refunds/${refund.id}/outcome`,
      {
        outcome: "paid",
        bankReference: reference.toLowerCase(),
      },
    );
    assert.equal(reused.status, 409);
    assert.equal(reused.body.error.metadata.reason, "bank_reference_in_use");
    assert.equal(reused.body.error.metadata.withdrawId, withdraw.id);
    assert.equal(await refundStatus(refund.id), "processing");
    assert.deepEqual(await ledgerKinds(svc.deps.db, refund.id), ["refund_hold"]);
    await svc.admin("POST", `/admin/v1/payout-batches/${batch.id}/refunds/${refund.id}/outcome`, {
      outcome: "failed",
      reason: "closing the test",
    });
  });

  it("a refund is in at most one open batch: two batch creations at once take it once", async () => {
    const { merchant, refund } = await pendingRefund();
    const results = await Promise.all([
      svc.admin("POST", "/admin/v1/payout-batches", { merchantId: merchant.merchantId }),
      svc.admin("POST", "/admin/v1/payout-batches", { merchantId: merchant.merchantId }),
    ]);
    const created = results.filter((r) => r.status === 201);
    assert.equal(created.length, 1);
    assert.equal(results.find((r) => r.status !== 201)?.status, 409);
    assert.deepEqual(await eventTypes(svc.deps.db, refund.id), ["refund.processing"]);
    const items = await svc.deps.db
      .selectFrom("payout_batch_items")
      .select("batch_id")
      .where("refund_id", "=", refund.id)
      .execute();
    assert.equal(items.length, 1);
  });
});
