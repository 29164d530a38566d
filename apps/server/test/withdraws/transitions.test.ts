/**
 * The withdraw transition table (withdraws/transitions.ts), checked move by move against the
 * state machine of docs/withdraws.md, without a database: every transition from every status,
 * allowed or refused, and the verification deadline to the millisecond.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WITHDRAW_STATUSES, type WithdrawStatus } from "../../src/db/types.ts";
import {
  ACTIVE_WITHDRAW_STATUSES,
  ENDED_UNPAID_STATUSES,
  LIMIT_COUNTED_STATUSES,
  MERCHANT_CANCELABLE_STATUSES,
} from "../../src/withdraws/statuses.ts";
import {
  canMoveWithdraw,
  isVerificationDue,
  WITHDRAW_TRANSITIONS,
  type WithdrawTransition,
} from "../../src/withdraws/transitions.ts";

/** The moves the state machine allows, written out independently of the table. */
const ALLOWED: Record<WithdrawTransition, { from: WithdrawStatus[]; to: WithdrawStatus }> = {
  admit: { from: [], to: "pending" },
  admitForReview: { from: [], to: "awaiting_verification" },
  approve: { from: ["awaiting_verification"], to: "pending" },
  reject: { from: ["awaiting_verification"], to: "canceled" },
  cancel: { from: ["awaiting_verification", "pending"], to: "canceled" },
  expireVerification: { from: ["awaiting_verification"], to: "expired" },
  dispatch: { from: ["pending"], to: "processing" },
  pay: { from: ["processing"], to: "paid" },
  fail: { from: ["processing"], to: "failed" },
  payLate: { from: ["failed", "expired"], to: "paid" },
};

describe("the withdraw transition table", () => {
  it("has exactly the transitions of the state machine", () => {
    assert.deepEqual(Object.keys(WITHDRAW_TRANSITIONS).sort(), Object.keys(ALLOWED).sort());
  });

  for (const [transition, expected] of Object.entries(ALLOWED) as [
    WithdrawTransition,
    (typeof ALLOWED)[WithdrawTransition],
  ][]) {
    it(`${transition}: allowed from ${expected.from.join(", ") || "a new withdraw only"}, refused from every other status`, () => {
      for (const status of WITHDRAW_STATUSES) {
        assert.equal(
          canMoveWithdraw(transition, status),
          expected.from.includes(status),
          `${transition} from ${status}`,
        );
      }
      assert.equal(WITHDRAW_TRANSITIONS[transition].to, expected.to);
    });
  }

  it("writes withdraw.canceled, .processing, .paid and .failed with the moves that have them, withdraw.canceled for verification expiry, and none for admission or approval", () => {
    const events = Object.fromEntries(
      Object.entries(WITHDRAW_TRANSITIONS).map(([name, rule]) => [name, "event" in rule ? rule.event : null]),
    );
    assert.deepEqual(events, {
      admit: null,
      admitForReview: null,
      approve: null,
      reject: "withdraw.canceled",
      cancel: "withdraw.canceled",
      expireVerification: "withdraw.canceled",
      dispatch: "withdraw.processing",
      pay: "withdraw.paid",
      fail: "withdraw.failed",
      payLate: "withdraw.paid",
    });
  });

  it("holds at admission and posts for every move that ends or pays a held amount", () => {
    const posts = Object.entries(WITHDRAW_TRANSITIONS)
      .filter(([, rule]) => "posting" in rule)
      .map(([name]) => name)
      .sort();
    assert.deepEqual(posts, [
      "admit",
      "admitForReview",
      "cancel",
      "expireVerification",
      "fail",
      "pay",
      "payLate",
      "reject",
    ]);
  });
});

describe("the withdraw status sets", () => {
  it("holds the amount and blocks matching payouts while awaiting verification, pending or processing", () => {
    assert.deepEqual([...ACTIVE_WITHDRAW_STATUSES].sort(), [
      "awaiting_verification",
      "pending",
      "processing",
    ]);
  });

  it("counts the open and the paid withdraws towards the limits, and no others", () => {
    assert.deepEqual([...LIMIT_COUNTED_STATUSES].sort(), [
      "awaiting_verification",
      "paid",
      "pending",
      "processing",
    ]);
  });

  it("lets the merchant cancel only what the bank has not received", () => {
    assert.deepEqual([...MERCHANT_CANCELABLE_STATUSES].sort(), ["awaiting_verification", "pending"]);
    assert.deepEqual([...ENDED_UNPAID_STATUSES].sort(), ["canceled", "expired", "failed"]);
  });
});

describe("the verification deadline", () => {
  const deadline = new Date("2026-03-01T00:00:00.000Z");
  const awaiting = { status: "awaiting_verification" as const, verification_expires_at: deadline };

  it("is due exactly at the deadline and not a millisecond before", () => {
    assert.equal(isVerificationDue(awaiting, new Date(deadline.getTime() - 1)), false);
    assert.equal(isVerificationDue(awaiting, deadline), true);
    assert.equal(isVerificationDue(awaiting, new Date(deadline.getTime() + 1)), true);
  });

  it("applies only to a withdraw still awaiting verification", () => {
    assert.equal(isVerificationDue({ ...awaiting, status: "pending" }, deadline), false);
    assert.equal(isVerificationDue({ ...awaiting, verification_expires_at: null }, deadline), false);
  });
});
