/**
 * Payment lifecycle after create (docs/lifecycle.md): sandbox simulation, expiry exactly at
 * expiresAt, late confirmation within 72 hours, refusals recorded for the operator, the cancel
 * event, and that every change writes its event and ledger posting in its own transaction.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { sql } from "kysely";
import { paymentExpiryJob } from "../../src/jobs/lifecycle.ts";
import { simulatePayment } from "../../src/lifecycle/payments.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import {
  advanceClock,
  anomaliesOf,
  createPayment,
  eventsOf,
  eventTypes,
  HOUR_MS,
  ledgerKinds,
  MINUTE_MS,
  simulatePaymentRequest,
} from "../helpers/lifecycle.ts";
import { LIVE_PROVIDER_ENV } from "../helpers/scb/setup.ts";

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

async function drainExpiry(): Promise<void> {
  while ((await paymentExpiryJob.runOnce(svc.deps)) > 0) {}
}

async function statusOf(id: string): Promise<string> {
  const row = await svc.deps.db
    .selectFrom("payments")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

describe("simulated payment outcomes", () => {
  let merchant: Credentials;
  before(async () => {
    merchant = await svc.newMerchant();
  });

  it("moves requires_action to succeeded with confirmedAt and capturedAt, settlement pending and payment.received", async () => {
    const payment = await createPayment(svc, merchant, { amount: "2500.00" });
    const before = await ledgerBalances(svc.deps.db, merchant.merchantId);
    svc.clock.advance(1_000);
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const now = svc.clock.now().toISOString();
    const record = res.body.data;
    assert.equal(record.status, "succeeded");
    assert.equal(record.confirmedAt, now);
    assert.equal(record.capturedAt, now);
    assert.equal(record.updatedAt, now);
    assert.equal(record.nextAction, null, "a final payment has no next action");

    const after = await ledgerBalances(svc.deps.db, merchant.merchantId);
    assert.equal(after.settlement_pending! - (before.settlement_pending ?? 0n), 2500n);
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded"]);

    const events = await eventsOf(svc.deps.db, payment.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ["payment.received"],
    );
    assert.deepEqual(events[0]!.object, record, "the event carries the record exactly as the API returns it");

    const read = await svc.request("GET", `/api/v1/payments/${payment.id}`, undefined, {
      credentials: merchant,
    });
    assert.deepEqual(read.body.data, record);
  });

  it("moves requires_action to payment_failed with payment.failed and no ledger posting", async () => {
    const payment = await createPayment(svc, merchant);
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "failed");
    assert.equal(res.status, 200);
    assert.equal(res.body.data.status, "payment_failed");
    assert.equal(res.body.data.confirmedAt, null);
    assert.equal(res.body.data.capturedAt, null);
    const events = await eventsOf(svc.deps.db, payment.id);
    assert.deepEqual(
      events.map((e) => [e.type, e.status]),
      [["payment.failed", "payment_failed"]],
    );
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), []);
  });

  it("refuses a second success with 409 and changes nothing", async () => {
    const payment = await createPayment(svc, merchant);
    assert.equal((await simulatePaymentRequest(svc, merchant, payment.id, "succeeded")).status, 200);
    const again = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "STATE_CONFLICT");
    assert.equal(again.body.error.metadata.reason, "already_succeeded");
    assert.equal(again.body.error.metadata.status, "succeeded");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.received"]);
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded"]);
    assert.deepEqual(await anomaliesOf(svc.deps.db, payment.id), [], "a repeated success is not an anomaly");
  });

  it("refuses a failure of a succeeded payment with 409 and writes no event", async () => {
    const payment = await createPayment(svc, merchant);
    await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "failed");
    assert.equal(res.status, 409);
    assert.match(res.body.error.message, /already succeeded/);
    assert.equal(await statusOf(payment.id), "succeeded");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.received"]);
  });

  it("refuses a success after a failure with 409 and records it for the operator", async () => {
    const payment = await createPayment(svc, merchant);
    await simulatePaymentRequest(svc, merchant, payment.id, "failed");
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(res.status, 409);
    assert.equal(res.body.error.metadata.reason, "payment_failed");
    assert.deepEqual(await anomaliesOf(svc.deps.db, payment.id), [
      { reason: "payment_failed", report: "payment.succeeded" },
    ]);
  });

  it("answers 404 for another merchant's payment, an unknown id and a malformed id", async () => {
    const other = await svc.newMerchant({ name: "Other Shop" });
    const theirs = await createPayment(svc, other);
    for (const id of [theirs.id, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      const res = await simulatePaymentRequest(svc, merchant, id, "succeeded");
      assert.equal(res.status, 404, id);
      assert.deepEqual(res.body.error, { code: "RESOURCE_NOT_FOUND", message: "Payment not found" });
    }
    assert.equal(await statusOf(theirs.id), "requires_action");
  });

  it("refuses an unknown outcome and extra fields with 400 VALIDATION_ERROR", async () => {
    const payment = await createPayment(svc, merchant);
    const bad = await simulatePaymentRequest(svc, merchant, payment.id, "paid");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
    assert.equal(bad.body.error.metadata.field, "outcome");
    const extra = await svc.request(
      "POST",
      `/api/v1/sandbox/payments/${payment.id}/simulate`,
      { outcome: "succeeded", status: "succeeded" },
      { credentials: merchant },
    );
    assert.equal(extra.status, 400);
    assert.equal(extra.body.error.metadata.field, "status");
  });

  it("gives the hosted page's call the same result as the route: simulatePayment returns the record", async () => {
    const payment = await createPayment(svc, merchant);
    const record = await simulatePayment(svc.deps, merchant.merchantId, payment.id, "succeeded");
    assert.equal(record.status, "succeeded");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.received"]);
  });

  it("writes the change, its event and its posting in one transaction: a failing posting leaves none of them", async () => {
    const payment = await createPayment(svc, merchant);
    await sql`create function test_refuse_posting() returns trigger language plpgsql as $$
      begin raise exception 'posting refused by the test'; end $$`.execute(svc.deps.db);
    await sql`create trigger test_refuse_posting before insert on ledger_transactions
      for each row execute function test_refuse_posting()`.execute(svc.deps.db);
    try {
      const res = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
      assert.equal(res.status, 500);
      assert.equal(res.body.error.code, "INTERNAL_ERROR");
    } finally {
      await sql`drop trigger test_refuse_posting on ledger_transactions`.execute(svc.deps.db);
      await sql`drop function test_refuse_posting()`.execute(svc.deps.db);
    }
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), []);
    const callbacks = await svc.deps.db
      .selectFrom("provider_callbacks")
      .select("callback_id")
      .where("subject_id", "=", payment.id)
      .execute();
    assert.deepEqual(
      callbacks,
      [],
      "the callback is not recorded either, so the provider's retry is processed",
    );
    const retry = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(retry.status, 200);
  });
});

describe("expiry at expiresAt", () => {
  let merchant: Credentials;
  before(async () => {
    merchant = await svc.newMerchant();
  });

  it("expires a payment at expiresAt and not a millisecond before, with payment.expired", async () => {
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 15 });
    assert.equal(Date.parse(payment.expiresAt) - svc.clock.now().getTime(), 15 * MINUTE_MS);
    svc.clock.advance(15 * MINUTE_MS - 1);
    await drainExpiry();
    assert.equal(await statusOf(payment.id), "requires_action");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), []);

    svc.clock.advance(1);
    await drainExpiry();
    assert.equal(await statusOf(payment.id), "expired");
    const events = await eventsOf(svc.deps.db, payment.id);
    assert.deepEqual(
      events.map((e) => [e.type, e.status]),
      [["payment.expired", "expired"]],
    );
    assert.equal(events[0]!.object.updatedAt, payment.expiresAt);
    assert.equal(events[0]!.object.nextAction, null);
  });

  it("treats a payment due but not yet expired by the job as expired when the provider reports", async () => {
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 5 });
    svc.clock.set(Date.parse(payment.expiresAt));
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(res.status, 200, "at expiresAt a success is a late confirmation");
    assert.equal(res.body.data.status, "succeeded");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.expired", "payment.received"]);
  });

  it("takes a success one millisecond before expiresAt as an ordinary success", async () => {
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 5 });
    svc.clock.set(Date.parse(payment.expiresAt) - 1);
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(res.status, 200);
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.received"]);
  });

  it("refuses a failure report at expiresAt: the payment has expired, and the expiry is kept", async () => {
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 5 });
    svc.clock.set(Date.parse(payment.expiresAt));
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "failed");
    assert.equal(res.status, 409);
    assert.match(res.body.error.message, /already expired/);
    assert.equal(await statusOf(payment.id), "expired");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.expired"]);
  });

  it("does not expire a payment the provider is processing", async () => {
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 5 });
    await svc.deps.db
      .updateTable("payments")
      .set({ status: "processing" })
      .where("id", "=", payment.id)
      .execute();
    svc.clock.advance(HOUR_MS);
    await drainExpiry();
    assert.equal(await statusOf(payment.id), "processing");
  });

  it("compares expiresAt with each merchant's own business time", async () => {
    const ahead = await svc.newMerchant({ name: "Ahead Shop" });
    const behind = await svc.newMerchant({ name: "Behind Shop" });
    const early = await createPayment(svc, ahead, { expiresInMinutes: 30 });
    const late = await createPayment(svc, behind, { expiresInMinutes: 30 });
    await svc.deps.db
      .updateTable("merchants")
      .set({ clock_offset_ms: BigInt(30 * MINUTE_MS) })
      .where("id", "=", ahead.merchantId)
      .execute();
    await drainExpiry();
    assert.equal(await statusOf(early.id), "expired");
    assert.equal(await statusOf(late.id), "requires_action");
  });
});

describe("cancel", () => {
  let merchant: Credentials;
  before(async () => {
    merchant = await svc.newMerchant();
  });

  it("writes payment.canceled with the canceled record", async () => {
    const payment = await createPayment(svc, merchant);
    const res = await svc.request("POST", `/api/v1/payments/${payment.id}/cancel`, undefined, {
      credentials: merchant,
    });
    assert.equal(res.status, 200);
    const events = await eventsOf(svc.deps.db, payment.id);
    assert.deepEqual(
      events.map((e) => e.type),
      ["payment.canceled"],
    );
    assert.deepEqual(events[0]!.object, res.body.data);
  });

  it("refuses to cancel a payment whose expiresAt has come, even before the expiry job ran", async () => {
    const payment = await createPayment(svc, merchant, { expiresInMinutes: 5 });
    svc.clock.set(Date.parse(payment.expiresAt));
    const res = await svc.request("POST", `/api/v1/payments/${payment.id}/cancel`, undefined, {
      credentials: merchant,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.match(res.body.error.message, /expired/);
    // The expiry the cancel found is recorded, as the job would have written it; only the cancel is refused.
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.expired"]);
    assert.equal(await statusOf(payment.id), "expired");
  });
});

describe("late confirmation", () => {
  let merchant: Credentials;
  before(async () => {
    merchant = await svc.newMerchant();
  });

  async function expiredPayment(): Promise<any> {
    const own = await svc.newMerchant({ name: "Late Shop" });
    const payment = await createPayment(svc, own, { expiresInMinutes: 15, amount: "700.00" });
    // The merchant's own clock moves to expiresAt; the advance expires the payment at once.
    await advanceClock(svc, own, 15 * 60);
    assert.equal(await statusOf(payment.id), "expired");
    return { payment, own };
  }

  it("confirms an expired payment at 71 h 59 m: succeeded, payment.received and settlement pending", async () => {
    const { payment, own } = await expiredPayment();
    await advanceClock(svc, own, 71 * 3600 + 59 * 60);
    const res = await simulatePaymentRequest(svc, own, payment.id, "succeeded");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, "succeeded");
    const expectedNow = new Date(Date.parse(payment.expiresAt) + 71 * HOUR_MS + 59 * MINUTE_MS).toISOString();
    assert.equal(res.body.data.capturedAt, expectedNow);
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.expired", "payment.received"]);
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), ["payment_succeeded"]);
    const balances = await ledgerBalances(svc.deps.db, own.merchantId);
    assert.equal(balances.settlement_pending, 700n);
  });

  it("confirms an expired payment at exactly 72 h", async () => {
    const { payment, own } = await expiredPayment();
    await advanceClock(svc, own, 72 * 3600);
    const res = await simulatePaymentRequest(svc, own, payment.id, "succeeded");
    assert.equal(res.status, 200);
  });

  it("refuses a confirmation at 72 h 1 m with 409 and records it for the operator", async () => {
    const { payment, own } = await expiredPayment();
    await advanceClock(svc, own, 72 * 3600 + 60);
    const res = await simulatePaymentRequest(svc, own, payment.id, "succeeded");
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, "STATE_CONFLICT");
    assert.equal(res.body.error.metadata.reason, "late_confirmation_window_passed");
    assert.equal(await statusOf(payment.id), "expired");
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.expired"]);
    assert.deepEqual(await ledgerKinds(svc.deps.db, payment.id), []);

    const list = await svc.admin("GET", `/admin/v1/anomalies?merchantId=${own.merchantId}`);
    assert.equal(list.status, 200);
    assert.equal(list.body.data.total, 1);
    const anomaly = list.body.data.data[0];
    assert.equal(anomaly.subjectType, "payment");
    assert.equal(anomaly.subjectId, payment.id);
    assert.equal(anomaly.report, "payment.succeeded");
    assert.equal(anomaly.reason, "late_confirmation_window_passed");
    assert.equal(anomaly.subjectStatus, "expired");
    assert.equal(anomaly.amount, "700.00");
    assert.equal(anomaly.provider, "sandbox");
    assert.match(anomaly.callbackId, /^sbx_cb_/);
  });

  it("refuses a confirmation of a canceled payment with 409 and records it for the operator", async () => {
    const payment = await createPayment(svc, merchant);
    await svc.request("POST", `/api/v1/payments/${payment.id}/cancel`, undefined, { credentials: merchant });
    const res = await simulatePaymentRequest(svc, merchant, payment.id, "succeeded");
    assert.equal(res.status, 409);
    assert.equal(res.body.error.metadata.reason, "payment_canceled");
    assert.equal(res.body.error.metadata.status, "canceled");
    assert.deepEqual(await anomaliesOf(svc.deps.db, payment.id), [
      { reason: "payment_canceled", report: "payment.succeeded" },
    ]);
    assert.deepEqual(await eventTypes(svc.deps.db, payment.id), ["payment.canceled"]);
  });

  it("lists anomalies only with the operator token, newest first, paged", async () => {
    const refused = await svc.admin("GET", "/admin/v1/anomalies", undefined, "wrong-token-0123456789");
    assert.equal(refused.status, 401);
    const list = await svc.admin("GET", "/admin/v1/anomalies?limit=1");
    assert.equal(list.status, 200);
    assert.equal(list.body.data.limit, 1);
    assert.equal(list.body.data.data.length, 1);
    assert.ok(list.body.data.total >= 2);
  });
});

describe("sandbox routes in live", () => {
  it("answers every sandbox route 404 RESOURCE_NOT_FOUND", async () => {
    const live = await startService({
      env: { SATANG_ENV: "live", SECRET_KEY: "ab".repeat(32), ...LIVE_PROVIDER_ENV },
    });
    try {
      const payment = await createPayment(live, live.credentials);
      const routes: [string, string, unknown][] = [
        ["POST", `/api/v1/sandbox/payments/${payment.id}/simulate`, { outcome: "succeeded" }],
        ["POST", `/api/v1/sandbox/withdraws/${payment.id}/simulate`, { outcome: "paid" }],
        ["POST", "/api/v1/sandbox/settlements/run", undefined],
        ["POST", "/api/v1/sandbox/clock/advance", { seconds: 60 }],
        ["GET", "/api/v1/sandbox/clock", undefined],
      ];
      for (const [method, path, body] of routes) {
        const res = await live.request(method, path, body);
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, "RESOURCE_NOT_FOUND");
      }
      const admin = await live.admin(
        "POST",
        `/admin/v1/merchants/${live.credentials.merchantId}/clock/advance`,
        {
          seconds: 60,
        },
      );
      assert.equal(admin.status, 404);
      const callback = await live.app.inject({
        method: "POST",
        url: "/providers/sandbox/callbacks",
        payload: "{}",
      });
      assert.equal(callback.statusCode, 404);
      await assert.rejects(
        simulatePayment(live.deps, live.credentials.merchantId, payment.id, "succeeded"),
        (error: any) => error.code === "RESOURCE_NOT_FOUND",
      );
    } finally {
      await live.close();
    }
  });
});
