/**
 * The SDK's typed refunds (CONTRACT 16): create, retrieve, list, cancel and the sandbox
 * simulation, and the typed error of a refund over the refundable amount.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { InvalidInputError, ValidationError } from "@satang/sdk";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";
import { refundReference, succeededPayment } from "../helpers/refunds.ts";

describe("SDK refunds", () => {
  let svc: TestService;
  before(async () => {
    svc = await startService();
  });
  after(async () => {
    await svc.close();
  });

  it("creates, replays, retrieves, lists, simulates and cancels refunds through the SDK", async () => {
    const payment = await succeededPayment(svc, svc.credentials, "1000.00");
    const params = {
      amount: "600.00",
      referenceId: refundReference(),
      reason: "Returned",
      idempotencyKey: refundReference("k"),
    };
    const refund = await svc.sdk.refunds.create(payment.id, params);
    assert.equal(refund.status, "pending");
    assert.equal(refund.replayed, false);
    const again = await svc.sdk.refunds.create(payment.id, params);
    assert.equal(again.id, refund.id);
    assert.equal(again.replayed, true);
    assert.equal((await svc.sdk.refunds.retrieve(refund.id)).amount, "600.00");
    const paid = await svc.sdk.sandbox.simulateRefund(refund.id, "succeeded");
    assert.equal(paid.status, "succeeded");

    const over = await svc.sdk.refunds
      .create(payment.id, { amount: "401.00", referenceId: refundReference() })
      .catch((e) => e);
    assert.ok(over instanceof InvalidInputError, String(over));
    assert.deepEqual(over.metadata, { refundable: "400.00", amount: "401.00" });

    svc.clock.advance(1000);
    const second = await svc.sdk.refunds.create(payment.id, {
      amount: "400.00",
      referenceId: refundReference(),
    });
    const canceled = await svc.sdk.refunds.cancel(second.id);
    assert.equal(canceled.status, "canceled");
    const refused = await svc.sdk.refunds.cancel(second.id).catch((e) => e);
    assert.ok(refused instanceof ValidationError, String(refused));
    assert.deepEqual(refused.metadata, { field: "status" });

    const ofPayment = await svc.sdk.refunds.listForPayment(payment.id, { sortOrder: "asc" });
    assert.deepEqual(
      ofPayment.data.map((r) => r.status),
      ["succeeded", "canceled"],
    );
    const pending = await svc.sdk.refunds.list({ paymentId: payment.id, status: "canceled" });
    assert.deepEqual(
      pending.data.map((r) => r.id),
      [second.id],
    );
    await assertLedgerConsistent(svc.deps.db);
  });
});
