/**
 * The payment transition table (payments/transitions.ts) and the timing rules beside it,
 * checked without a database: every transition from every status, allowed or refused, the
 * expiry moment and the 72-hour late-confirmation window to the millisecond.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PAYMENT_STATUSES, type PaymentStatus } from "../../src/db/types.ts";
import { withinLateConfirmationWindow } from "../../src/payments/reports.ts";
import { FINAL_PAYMENT_STATUSES, OPEN_PAYMENT_STATUSES } from "../../src/payments/statuses.ts";
import {
  canMovePayment,
  isExpiryDue,
  PAYMENT_TRANSITIONS,
  type PaymentTransition,
} from "../../src/payments/transitions.ts";

const AWAITING: PaymentStatus[] = ["requires_payment_method", "requires_confirmation", "requires_action"];
const OPEN: PaymentStatus[] = [...AWAITING, "processing", "requires_capture"];

/** The moves the state machine allows, written out independently of the table. */
const ALLOWED: Record<PaymentTransition, { from: PaymentStatus[]; to: PaymentStatus }> = {
  create: { from: [], to: "requires_action" },
  cancel: { from: OPEN, to: "canceled" },
  expire: { from: AWAITING, to: "expired" },
  process: { from: AWAITING, to: "processing" },
  succeed: { from: OPEN, to: "succeeded" },
  confirmLate: { from: ["expired"], to: "succeeded" },
  fail: { from: OPEN, to: "payment_failed" },
};

describe("the payment transition table", () => {
  it("has exactly the transitions of the state machine", () => {
    assert.deepEqual(Object.keys(PAYMENT_TRANSITIONS).sort(), Object.keys(ALLOWED).sort());
  });

  for (const [transition, expected] of Object.entries(ALLOWED) as [
    PaymentTransition,
    (typeof ALLOWED)[PaymentTransition],
  ][]) {
    it(`${transition}: allowed from ${expected.from.join(", ") || "a new payment only"}, refused from every other status`, () => {
      for (const status of PAYMENT_STATUSES) {
        assert.equal(
          canMovePayment(transition, status),
          expected.from.includes(status),
          `${transition} from ${status}`,
        );
      }
      assert.equal(PAYMENT_TRANSITIONS[transition].to, expected.to);
    });
  }

  it("books the amount for settlement with every success, and with nothing else", () => {
    const posts = Object.entries(PAYMENT_TRANSITIONS)
      .filter(([, rule]) => "posting" in rule)
      .map(([name]) => name)
      .sort();
    assert.deepEqual(posts, ["confirmLate", "succeed"]);
  });

  it("writes payment.received for both successes, and the matching event for cancel, expiry and failure", () => {
    const events = Object.fromEntries(
      Object.entries(PAYMENT_TRANSITIONS).map(([name, rule]) => [name, "event" in rule ? rule.event : null]),
    );
    assert.deepEqual(events, {
      create: null,
      cancel: "payment.canceled",
      expire: "payment.expired",
      process: null,
      succeed: "payment.received",
      confirmLate: "payment.received",
      fail: "payment.failed",
    });
  });

  it("names every status either open or final, never both", () => {
    for (const status of PAYMENT_STATUSES) {
      assert.notEqual(
        OPEN_PAYMENT_STATUSES.includes(status),
        FINAL_PAYMENT_STATUSES.includes(status),
        status,
      );
    }
  });
});

describe("payment timing rules", () => {
  const expiresAt = new Date("2026-03-01T12:00:00.000Z");

  it("expires a payment awaiting the customer exactly at expiresAt, not a millisecond before", () => {
    const row = { status: "requires_action" as const, expires_at: expiresAt };
    assert.equal(isExpiryDue(row, new Date(expiresAt.getTime() - 1)), false);
    assert.equal(isExpiryDue(row, expiresAt), true);
  });

  it("never expires a payment the provider is processing, or one without expiresAt", () => {
    assert.equal(isExpiryDue({ status: "processing", expires_at: expiresAt }, expiresAt), false);
    assert.equal(isExpiryDue({ status: "requires_action", expires_at: null }, expiresAt), false);
  });

  it("accepts a late confirmation until 72 hours after expiresAt inclusive, and refuses one a millisecond later", () => {
    const row = { expires_at: expiresAt };
    const deadline = expiresAt.getTime() + 72 * 3_600_000;
    assert.equal(withinLateConfirmationWindow(row, new Date(deadline)), true);
    assert.equal(withinLateConfirmationWindow(row, new Date(deadline + 1)), false);
  });
});
