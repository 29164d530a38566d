/**
 * Refunds (CONTRACT 16) on the store the suite runs on: create, replay, references, the
 * refundable amount, funding from settlement or the wallet, cancel, the sandbox simulate route,
 * events, lists and the ledger after each.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { updateMerchant } from "../../src/merchants/service.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import { anomaliesOf, createPayment, eventTypes, ledgerKinds } from "../helpers/lifecycle.ts";
import {
  createRefund,
  createRefundRequest,
  refundBody,
  settleNow,
  simulateRefundRequest,
  succeededPayment,
} from "../helpers/refunds.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

const REFUND_FIELDS = [
  "id",
  "paymentId",
  "amount",
  "currency",
  "status",
  "referenceId",
  "reason",
  "metadata",
  "failureReason",
  "destination",
  "createdAt",
  "updatedAt",
  "succeededAt",
  "failedAt",
  "canceledAt",
];

describe("refunds", () => {
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

  const merchant = () => fundedMerchant(svc, {}, 0n);
  const refunded = async (paymentId: string) =>
    (
      await svc.deps.db
        .selectFrom("payments")
        .select(["refunded_satang", "refund_settlement_satang"])
        .where("id", "=", paymentId)
        .executeTakeFirstOrThrow()
    ).refunded_satang;

  it("creates a pending refund with every field, paying back to the customer's account, from the unsettled payment", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const res = await createRefundRequest(
      svc,
      m,
      payment.id,
      refundBody({ amount: "250", reason: "Customer returned order 1042", metadata: { order: "1042" } }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const r = res.body.data;
    assert.deepEqual(Object.keys(r).sort(), [...REFUND_FIELDS].sort());
    assert.equal(r.paymentId, payment.id);
    assert.equal(r.amount, "250.00");
    assert.equal(r.currency, "THB");
    assert.equal(r.status, "pending");
    assert.equal(r.reason, "Customer returned order 1042");
    assert.deepEqual(r.metadata, { order: "1042" });
    assert.equal(r.failureReason, null);
    assert.equal(r.succeededAt, null);
    assert.equal(r.failedAt, null);
    assert.equal(r.canceledAt, null);
    assert.equal(r.destination.bankCode, "014");
    assert.equal(r.destination.accountName, "Somchai Jaidee");
    assert.match(r.destination.accountNumber, /^\*+\d{4}$/);
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.settlement_pending, 750n, "the refund is taken from the payment's settlement");
    assert.equal(balances.wallet_held, 250n);
    assert.equal(balances.wallet_available ?? 0n, 0n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, r.id), ["refund_hold"]);
    assert.deepEqual(await eventTypes(svc.deps.db, r.id), []);
  });

  it("pays to the destination given instead of the customer's account, masked in the record", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m);
    const r = await createRefund(svc, m, payment.id, {
      destination: { bankCode: "004", accountNumber: "123-456-7890", accountName: "Somsri Rakdee" },
    });
    assert.deepEqual(r.destination, {
      bankCode: "004",
      accountNumber: "******7890",
      accountName: "Somsri Rakdee",
    });
    const row = await svc.deps.db
      .selectFrom("refunds")
      .selectAll()
      .where("id", "=", r.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.bank_account_number, "1234567890");
  });

  it("refuses a refund of a payment that has not succeeded with 409 STATE_CONFLICT", async () => {
    const m = await merchant();
    const payment = await createPayment(svc, m);
    const res = await createRefundRequest(svc, m, payment.id, refundBody());
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "STATE_CONFLICT");
    assert.equal(res.body.error.metadata.status, "requires_action");
    assert.equal(
      (await svc.deps.db.selectFrom("refunds").select("id").where("payment_id", "=", payment.id).execute())
        .length,
      0,
    );
  });

  it("admits exactly the remaining amount and refuses one satang more with INVALID_INPUT and the refundable amount", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    await createRefund(svc, m, payment.id, { amount: "600" });
    const over = await createRefundRequest(svc, m, payment.id, refundBody({ amount: "401" }));
    assert.equal(over.status, 400);
    assert.equal(over.body.error.code, "INVALID_INPUT");
    assert.deepEqual(over.body.error.metadata, { refundable: "400.00", amount: "401.00" });
    await createRefund(svc, m, payment.id, { amount: "400" });
    const oneMore = await createRefundRequest(svc, m, payment.id, refundBody({ amount: "1" }));
    assert.equal(oneMore.status, 400);
    assert.deepEqual(oneMore.body.error.metadata, { refundable: "0.00", amount: "1.00" });
    assert.equal(await refunded(payment.id), 1000n);
  });

  it("counts a failed or canceled refund out of the refunded sum, so its amount can be refunded again", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "500.00");
    const first = await createRefund(svc, m, payment.id, { amount: "500" });
    assert.equal(
      (await svc.request("POST", `/api/v1/refunds/${first.id}/cancel`, {}, { credentials: m })).status,
      200,
    );
    const second = await createRefund(svc, m, payment.id, { amount: "500" });
    assert.equal((await simulateRefundRequest(svc, m, second.id, "failed")).status, 200);
    await createRefund(svc, m, payment.id, { amount: "500" });
    assert.equal(await refunded(payment.id), 500n);
  });

  it("replays the same key and body with 200, refuses another body with 422 and a used reference with 409", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m);
    const body = refundBody({ amount: "100", idempotencyKey: "refund-key-1" });
    const first = await createRefundRequest(svc, m, payment.id, body);
    assert.equal(first.status, 201);
    const replay = await createRefundRequest(svc, m, payment.id, { ...body });
    assert.equal(replay.status, 200);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.body.data.id, first.body.data.id);
    const other = await createRefundRequest(svc, m, payment.id, { ...body, amount: "101" });
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, "IDEMPOTENCY_KEY_MISMATCH");
    const otherPayment = await succeededPayment(svc, m);
    const sameKeyOtherPayment = await createRefundRequest(svc, m, otherPayment.id, body);
    assert.equal(sameKeyOtherPayment.status, 422, "the key stands for its payment too");
    const sameReference = await createRefundRequest(
      svc,
      m,
      otherPayment.id,
      refundBody({ referenceId: body.referenceId }),
    );
    assert.equal(sameReference.status, 409);
    assert.equal(sameReference.body.error.code, "DUPLICATE_REFERENCE_ID");
    assert.equal(await refunded(payment.id), 100n, "the replay held nothing more");
  });

  it("validates the body: a bad amount, a long reason, an unknown field, a bad bank code", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m);
    const cases: [Record<string, unknown>, string, string][] = [
      [refundBody({ amount: "10.5.0" }), "INVALID_AMOUNT", "amount"],
      [refundBody({ amount: 100 }), "INVALID_AMOUNT", "amount"],
      [refundBody({ amount: "0" }), "INVALID_AMOUNT", "amount"],
      [refundBody({ referenceId: "has space" }), "INVALID_REFERENCE_ID", "referenceId"],
      [refundBody({ reason: "x".repeat(256) }), "VALIDATION_ERROR", "reason"],
      [refundBody({ status: "succeeded" }), "VALIDATION_ERROR", "status"],
      [
        refundBody({ destination: { bankCode: "999", accountNumber: "1234567890", accountName: "A" } }),
        "INVALID_BANK_CODE",
        "destination.bankCode",
      ],
    ];
    for (const [body, code, field] of cases) {
      const res = await createRefundRequest(svc, m, payment.id, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, code, JSON.stringify(res.body));
      assert.equal(res.body.error.metadata.field, field);
    }
    const atLimit = await createRefundRequest(svc, m, payment.id, refundBody({ reason: "x".repeat(255) }));
    assert.equal(atLimit.status, 201);
  });

  it("answers 404 for another merchant's payment and refund, and for malformed ids", async () => {
    const m = await merchant();
    const other = await merchant();
    const payment = await succeededPayment(svc, m);
    const r = await createRefund(svc, m, payment.id);
    assert.equal((await createRefundRequest(svc, other, payment.id, refundBody())).status, 404);
    assert.equal((await createRefundRequest(svc, m, "not-a-uuid", refundBody())).status, 404);
    for (const path of [
      `/api/v1/refunds/${r.id}`,
      `/api/v1/payments/${payment.id}/refunds`,
      "/api/v1/refunds/nope",
    ]) {
      const res = await svc.request("GET", path, undefined, { credentials: other });
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
    }
    assert.equal(
      (await svc.request("POST", `/api/v1/refunds/${r.id}/cancel`, {}, { credentials: other })).status,
      404,
    );
  });

  it("holds from the wallet once the payment has settled, and refuses what the wallet cannot cover", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    await settleNow(svc, m);
    await svc.request(
      "POST",
      "/api/v1/withdraws",
      {
        amount: "700",
        referenceId: `wd-${payment.id}`,
        destinationType: "bank_account",
        customerBankAccountName: "Shop Owner",
        customerBankAccountNumber: "1234567890",
        customerBankCode: "014",
      },
      { credentials: m },
    );
    const short = await createRefundRequest(svc, m, payment.id, refundBody({ amount: "301" }));
    assert.equal(short.status, 400);
    assert.equal(short.body.error.code, "INSUFFICIENT_BALANCE");
    assert.deepEqual(short.body.error.metadata, { available: "300.00", amount: "301.00" });
    await createRefund(svc, m, payment.id, { amount: "300" });
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 0n);
    assert.equal(balances.settlement_pending, 0n);
    assert.equal(balances.wallet_held, 1000n);
  });

  it("settles only what refunds left of a payment, and a fully refunded payment settles nothing", async () => {
    const m = await merchant();
    const part = await succeededPayment(svc, m, "1000.00");
    const whole = await succeededPayment(svc, m, "500.00");
    await createRefund(svc, m, part.id, { amount: "400" });
    await createRefund(svc, m, whole.id, { amount: "500" });
    await settleNow(svc, m);
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 600n);
    assert.equal(balances.settlement_pending, 0n);
    assert.equal(balances.wallet_held, 900n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, whole.id), ["payment_succeeded"]);
  });

  it("returns a canceled refund's hold to settlement while the payment is unsettled, to the wallet once it has settled", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const before = await createRefund(svc, m, payment.id, { amount: "200" });
    const after = await createRefund(svc, m, payment.id, { amount: "300" });
    const cancel = await svc.request("POST", `/api/v1/refunds/${before.id}/cancel`, {}, { credentials: m });
    assert.equal(cancel.status, 200);
    assert.equal(cancel.body.data.status, "canceled");
    assert.ok(cancel.body.data.canceledAt);
    let balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.settlement_pending, 700n);
    await settleNow(svc, m);
    balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 700n);
    assert.equal(
      (await svc.request("POST", `/api/v1/refunds/${after.id}/cancel`, {}, { credentials: m })).status,
      200,
    );
    balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 1000n, "the settled payment's refund goes back to the wallet");
    assert.equal(balances.wallet_held, 0n);
    assert.deepEqual(await eventTypes(svc.deps.db, before.id), ["refund.canceled"]);
    const again = await svc.request("POST", `/api/v1/refunds/${before.id}/cancel`, {}, { credentials: m });
    assert.equal(again.status, 400, "as a cancel of an ended payment or withdraw");
    assert.equal(again.body.error.code, "VALIDATION_ERROR");
    assert.equal(again.body.error.metadata.field, "status");
    assert.match(again.body.error.message, /its status is canceled/);
  });

  it("simulates processing then succeeded: the hold is consumed and refund.processing, refund.succeeded are written", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const r = await createRefund(svc, m, payment.id, { amount: "1000" });
    const processing = await simulateRefundRequest(svc, m, r.id, "processing");
    assert.equal(processing.status, 200);
    assert.equal(processing.body.data.status, "processing");
    const cancel = await svc.request("POST", `/api/v1/refunds/${r.id}/cancel`, {}, { credentials: m });
    assert.equal(cancel.status, 400, "a processing refund is with the bank");
    assert.equal(cancel.body.error.code, "VALIDATION_ERROR");
    assert.equal(cancel.body.error.metadata.field, "status");
    assert.match(cancel.body.error.message, /while processing/);
    // The simulated bank has it, not a connector's payout attempt: the operator's resolution
    // says where its outcome comes from (not the desk, which this sandbox does not run).
    const resolve = await svc.admin("POST", `/admin/v1/refunds/${r.id}/resolve`, {
      outcome: "failed",
      reason: "Not on the statement",
    });
    assert.equal(resolve.status, 409, JSON.stringify(resolve.body));
    assert.equal(resolve.body.error.metadata.reason, "not_undecided");
    assert.match(
      resolve.body.error.message,
      /the sandbox's simulate route reports what the simulated bank did/,
    );
    const succeeded = await simulateRefundRequest(svc, m, r.id, "succeeded");
    assert.equal(succeeded.status, 200);
    assert.equal(succeeded.body.data.status, "succeeded");
    assert.ok(succeeded.body.data.succeededAt);
    assert.deepEqual(await eventTypes(svc.deps.db, r.id), ["refund.processing", "refund.succeeded"]);
    assert.deepEqual(await ledgerKinds(svc.deps.db, r.id), ["refund_hold", "refund_paid"]);
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_held, 0n);
    assert.equal(balances.settlement_pending, 0n);
    const again = await simulateRefundRequest(svc, m, r.id, "succeeded");
    assert.equal(again.status, 409, "never paid twice");
  });

  it("hands no pending refund of a frozen or closed wallet to the simulated bank: 403 WALLET_INACTIVE", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const r = await createRefund(svc, m, payment.id, { amount: "200" });
    for (const walletStatus of ["frozen", "closed"]) {
      const set = await svc.admin("PATCH", `/admin/v1/merchants/${m.merchantId}`, { walletStatus });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      for (const outcome of ["processing", "succeeded", "failed"]) {
        const res = await simulateRefundRequest(svc, m, r.id, outcome);
        assert.equal(res.status, 403, `${walletStatus} ${outcome}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.code, "WALLET_INACTIVE");
      }
    }
    assert.deepEqual(await eventTypes(svc.deps.db, r.id), []);
    await svc.admin("PATCH", `/admin/v1/merchants/${m.merchantId}`, { walletStatus: "active" });
    const processing = await simulateRefundRequest(svc, m, r.id, "processing");
    assert.equal(processing.status, 200, JSON.stringify(processing.body));
  });

  it("stamps each refund event with the refund's updatedAt, also after a reset test clock (CONTRACT 10)", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const advance = await svc.request(
      "POST",
      "/api/v1/sandbox/clock/advance",
      { seconds: 3600 },
      { credentials: m },
    );
    assert.equal(advance.status, 200, JSON.stringify(advance.body));
    // Made an hour ahead of the wall clock, then moved after the clock is back on it.
    const r = await createRefund(svc, m, payment.id, { amount: "300" });
    const reset = await svc.request("POST", "/api/v1/sandbox/clock/reset", {}, { credentials: m });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    const processing = await simulateRefundRequest(svc, m, r.id, "processing");
    assert.equal(processing.status, 200, JSON.stringify(processing.body));
    const succeeded = await simulateRefundRequest(svc, m, r.id, "succeeded");
    assert.equal(succeeded.status, 200, JSON.stringify(succeeded.body));
    const listed = await svc.request(
      "GET",
      `/api/v1/events?dateFrom=${encodeURIComponent(r.createdAt)}&limit=100`,
      undefined,
      {
        credentials: m,
      },
    );
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const events = (
      listed.body.data.data as {
        type: string;
        createdAt: string;
        data: { object: { id: string; updatedAt: string } };
      }[]
    ).filter((event) => event.data.object.id === r.id);
    assert.deepEqual(events.map((event) => event.type).sort(), ["refund.processing", "refund.succeeded"]);
    const stamps = { processing: processing.body.data.updatedAt, succeeded: succeeded.body.data.updatedAt };
    for (const event of events) {
      assert.equal(event.createdAt, event.data.object.updatedAt, event.type);
      assert.ok(event.createdAt > r.createdAt, `${event.type} after the refund's creation`);
    }
    assert.deepEqual(
      events.map((event) => event.createdAt).sort(),
      [stamps.processing, stamps.succeeded].sort(),
    );
  });

  it("simulates failed: failureReason set, hold released, refund.failed written; a late success debits the wallet again", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const r = await createRefund(svc, m, payment.id, { amount: "400" });
    const failed = await simulateRefundRequest(svc, m, r.id, "failed");
    assert.equal(failed.status, 200);
    assert.equal(failed.body.data.status, "failed");
    assert.ok(failed.body.data.failedAt);
    assert.match(failed.body.data.failureReason, /refused/);
    assert.deepEqual(await eventTypes(svc.deps.db, r.id), ["refund.processing", "refund.failed"]);
    assert.equal(await refunded(payment.id), 0n);
    await settleNow(svc, m);
    const late = await simulateRefundRequest(svc, m, r.id, "succeeded");
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.status, "succeeded");
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 600n);
    assert.equal(await refunded(payment.id), 400n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, r.id), [
      "refund_hold",
      "refund_late_success",
      "refund_release",
    ]);
  });

  it("takes a late success of an unsettled payment's refund from its settlement again, as at admission", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const r = await createRefund(svc, m, payment.id, { amount: "400" });
    await simulateRefundRequest(svc, m, r.id, "failed");
    const late = await simulateRefundRequest(svc, m, r.id, "succeeded");
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.status, "succeeded");
    assert.equal(late.body.data.failureReason, null, "a succeeded refund carries no failure reason");
    assert.ok(late.body.data.failedAt, "the time it was reported failed stays");
    let balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.deepEqual([balances.wallet_available, balances.settlement_pending], [0n, 600n]);
    const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials: m });
    assert.deepEqual([balance.body.data.walletBalance, balance.body.data.settlementBalance], [0, 600]);
    // The settlement then moves only what was not refunded.
    await settleNow(svc, m);
    balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.deepEqual([balances.wallet_available, balances.settlement_pending], [600n, 0n]);
  });

  it("books a late success the wallet no longer covers: succeeded, the wallet below zero, the operator told", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    await settleNow(svc, m);
    const r = await createRefund(svc, m, payment.id, { amount: "400" });
    await simulateRefundRequest(svc, m, r.id, "failed");
    // The released 400 is spent: the whole wallet is held by a withdraw.
    const spent = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount: "1000.00" }), {
      credentials: m,
    });
    assert.equal(spent.status, 201, JSON.stringify(spent.body));
    const late = await simulateRefundRequest(svc, m, r.id, "succeeded");
    assert.equal(late.status, 200, JSON.stringify(late.body));
    assert.equal(late.body.data.status, "succeeded");
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, -400n);
    assert.equal(balances.wallet_held, 1000n);
    assert.equal(await refunded(payment.id), 400n);
    assert.deepEqual(await anomaliesOf(svc.deps.db, r.id), [
      { reason: "late_success_overdrawn", report: "payout.paid" },
    ]);
    await assertLedgerConsistent(svc.deps.db);
  });

  it("refuses a late success over a payment refunded again since (409), recording it for the operator", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m, "1000.00");
    const first = await createRefund(svc, m, payment.id, { amount: "1000" });
    await simulateRefundRequest(svc, m, first.id, "failed");
    await createRefund(svc, m, payment.id, { amount: "1000" });
    const late = await simulateRefundRequest(svc, m, first.id, "succeeded");
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(late.body.error.code, "STATE_CONFLICT");
    assert.deepEqual(late.body.error.metadata, { status: "failed", reason: "late_success_over_refunded" });
    assert.equal(await refunded(payment.id), 1000n, "nothing booked");
    assert.deepEqual(await anomaliesOf(svc.deps.db, first.id), [
      { reason: "late_success_over_refunded", report: "payout.paid" },
    ]);
  });

  it("refuses a simulated outcome the status does not allow with 409, and a canceled refund is never paid", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m);
    const r = await createRefund(svc, m, payment.id);
    await svc.request("POST", `/api/v1/refunds/${r.id}/cancel`, {}, { credentials: m });
    for (const outcome of ["processing", "succeeded", "failed"]) {
      const res = await simulateRefundRequest(svc, m, r.id, outcome);
      assert.equal(res.status, 409, outcome);
      assert.equal(res.body.error.code, "STATE_CONFLICT");
    }
    const bad = await simulateRefundRequest(svc, m, r.id, "paid");
    assert.equal(bad.status, 400);
  });

  it("refuses a refund from a frozen wallet with 403 WALLET_INACTIVE", async () => {
    const m = await merchant();
    const payment = await succeededPayment(svc, m);
    await updateMerchant(svc.deps, m.merchantId, { walletStatus: "frozen" });
    const res = await createRefundRequest(svc, m, payment.id, refundBody());
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, "WALLET_INACTIVE");
  });

  it("lists refunds with paging and filters by payment and status, and a payment's refunds alone", async () => {
    const m = await merchant();
    const a = await succeededPayment(svc, m, "1000.00");
    const b = await succeededPayment(svc, m, "1000.00");
    const r1 = await createRefund(svc, m, a.id, { amount: "100" });
    svc.clock.advance(1000);
    await createRefund(svc, m, a.id, { amount: "200" });
    svc.clock.advance(1000);
    await createRefund(svc, m, b.id, { amount: "300" });
    await svc.request("POST", `/api/v1/refunds/${r1.id}/cancel`, {}, { credentials: m });
    const all = await svc.request("GET", "/api/v1/refunds?limit=2", undefined, { credentials: m });
    assert.equal(all.status, 200);
    assert.equal(all.body.data.total, 3);
    assert.equal(all.body.data.totalPages, 2);
    assert.deepEqual(
      all.body.data.data.map((r: any) => r.amount),
      ["300.00", "200.00"],
    );
    const ofA = await svc.request("GET", `/api/v1/payments/${a.id}/refunds?sortOrder=asc`, undefined, {
      credentials: m,
    });
    assert.deepEqual(
      ofA.body.data.data.map((r: any) => r.amount),
      ["100.00", "200.00"],
    );
    const canceled = await svc.request(
      "GET",
      `/api/v1/refunds?paymentId=${a.id}&status=canceled`,
      undefined,
      { credentials: m },
    );
    assert.deepEqual(
      canceled.body.data.data.map((r: any) => r.id),
      [r1.id],
    );
    const badStatus = await svc.request("GET", "/api/v1/refunds?status=paid", undefined, { credentials: m });
    assert.equal(badStatus.status, 400);
    assert.equal(badStatus.body.error.metadata.field, "status");
    for (const bad of ["not-a-uuid", ""]) {
      const badPayment = await svc.request("GET", `/api/v1/refunds?paymentId=${bad}`, undefined, {
        credentials: m,
      });
      assert.equal(badPayment.status, 400, bad);
      assert.equal(badPayment.body.error.code, "VALIDATION_ERROR");
      assert.equal(badPayment.body.error.metadata.field, "paymentId", bad);
    }
    const one = await svc.request("GET", `/api/v1/refunds/${r1.id}`, undefined, { credentials: m });
    assert.equal(one.body.data.status, "canceled");
  });
});
