/**
 * The pure rules of withdraw admission, checked without a database: the matching-payout guard's
 * decision (withdraws/guard.ts), the limit error (withdraws/limits.ts) at its boundaries, and the
 * UTC day and month windows the limits count in.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WithdrawStatus } from "../../src/db/types.ts";
import { decideGuard, PAYOUT_GUARD_WINDOW_MS } from "../../src/withdraws/guard.ts";
import { limitError, utcDay, utcMonth } from "../../src/withdraws/limits.ts";
import type { GuardCandidate } from "../../src/withdraws/store.ts";

const NOW = new Date("2026-03-10T08:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);

function candidate(
  id: string,
  status: WithdrawStatus,
  createdAt: Date,
  name = "Somchai Jaidee",
): GuardCandidate {
  return { id, status, created_at: createdAt, bank_account_name: name };
}

describe("the matching-payout guard's decision", () => {
  it("blocks on an open match of any age, reported as active_payout without retryAfter", () => {
    const block = decideGuard([candidate("a", "pending", ago(30 * 86_400_000))], "Somchai Jaidee", NOW);
    assert.deepEqual(block, {
      existingWithdrawId: "a",
      existingWithdrawStatus: "pending",
      reason: "active_payout",
    });
  });

  it("blocks on a terminal match created less than 15 minutes ago, until its window ends", () => {
    const block = decideGuard(
      [candidate("b", "failed", ago(PAYOUT_GUARD_WINDOW_MS - 1))],
      "Somchai Jaidee",
      NOW,
    );
    assert.equal(block?.reason, "recent_payout");
    assert.equal(block?.retryAfter, new Date(NOW.getTime() + 1).toISOString());
  });

  it("lets a payout through once the terminal match is exactly 15 minutes old", () => {
    assert.equal(
      decideGuard([candidate("c", "paid", ago(PAYOUT_GUARD_WINDOW_MS))], "Somchai Jaidee", NOW),
      undefined,
    );
  });

  it("reports an open match before a newer terminal one", () => {
    const block = decideGuard(
      [candidate("new", "failed", ago(1_000)), candidate("old", "processing", ago(60_000))],
      "Somchai Jaidee",
      NOW,
    );
    assert.equal(block?.existingWithdrawId, "old");
    assert.equal(block?.reason, "active_payout");
  });

  it("matches names more than 90% alike, ignoring case, spaces and punctuation, and no others", () => {
    const open = (name: string) => [candidate("d", "pending", ago(1_000), name)];
    assert.ok(decideGuard(open("SOMCHAI  JAIDEE."), "Somchai Jaidee", NOW));
    assert.equal(decideGuard(open("Somsak Jaidee"), "Somchai Jaidee", NOW), undefined);
  });
});

describe("the limit error", () => {
  const limits = { dailySatang: 10_000n, monthlySatang: 50_000n };

  it("admits an amount that reaches the daily limit exactly, and refuses one satang more", () => {
    assert.equal(limitError(limits, { dailySatang: 9_000n, monthlySatang: 9_000n }, 1_000n), undefined);
    const error = limitError(limits, { dailySatang: 9_000n, monthlySatang: 9_000n }, 1_001n);
    assert.equal(error?.code, "INVALID_INPUT");
    assert.deepEqual(error?.metadata, { dailyTotal: "9000.00", amount: "1001.00", dailyLimit: "10000.00" });
  });

  it("checks the daily limit before the monthly one", () => {
    const error = limitError(limits, { dailySatang: 10_000n, monthlySatang: 50_000n }, 1n);
    assert.match(error?.message ?? "", /^Daily/);
  });

  it("refuses one satang over the monthly limit when the day still has room", () => {
    const error = limitError(
      { dailySatang: null, monthlySatang: 50_000n },
      { dailySatang: 0n, monthlySatang: 49_000n },
      1_001n,
    );
    assert.deepEqual(error?.metadata, {
      monthlyTotal: "49000.00",
      amount: "1001.00",
      monthlyLimit: "50000.00",
    });
    assert.equal(
      limitError(
        { dailySatang: null, monthlySatang: 50_000n },
        { dailySatang: 0n, monthlySatang: 49_000n },
        1_000n,
      ),
      undefined,
    );
  });

  it("has no limit where the merchant has none", () => {
    assert.equal(
      limitError(
        { dailySatang: null, monthlySatang: null },
        { dailySatang: 10n ** 15n, monthlySatang: 10n ** 15n },
        10n ** 12n,
      ),
      undefined,
    );
  });
});

describe("the UTC windows of the limits", () => {
  it("runs a day from UTC midnight to the next, whatever the hour", () => {
    assert.deepEqual(utcDay(new Date("2026-03-10T23:59:59.999Z")), {
      from: new Date("2026-03-10T00:00:00.000Z"),
      to: new Date("2026-03-11T00:00:00.000Z"),
    });
  });

  it("runs a month from its first UTC midnight to the next month's, across the year end", () => {
    assert.deepEqual(utcMonth(new Date("2026-12-31T12:00:00.000Z")), {
      from: new Date("2026-12-01T00:00:00.000Z"),
      to: new Date("2027-01-01T00:00:00.000Z"),
    });
    assert.deepEqual(utcMonth(new Date("2028-02-29T00:00:00.000Z")), {
      from: new Date("2028-02-01T00:00:00.000Z"),
      to: new Date("2028-03-01T00:00:00.000Z"),
    });
  });
});
