/**
 * Withdraw admission (CONTRACT 7): the check order, idempotent replay, the matching-payout
 * guard, the daily and monthly limits and the balance, each at its boundary.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { MerchantInput } from "../../src/merchants/service.ts";
import { updateMerchant } from "../../src/merchants/service.ts";
import { type Credentials, startService, type TestResponse, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent, ledgerBalances } from "../helpers/ledger.ts";
import { fundedMerchant, payeeName, withdrawBody } from "../helpers/withdraws.ts";

const MINUTE = 60_000;
const GUARD_WINDOW = 15 * MINUTE;

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

const create = (credentials: Credentials, overrides: Record<string, unknown> = {}) =>
  svc.request("POST", "/api/v1/withdraws", withdrawBody(overrides), { credentials });
const createBody = (credentials: Credentials, body: unknown) =>
  svc.request("POST", "/api/v1/withdraws", body, { credentials });
const cancel = (credentials: Credentials, id: string) =>
  svc.request("POST", `/api/v1/withdraws/${id}/cancel`, undefined, { credentials });
const setStatus = (id: string, status: "processing" | "paid" | "failed" | "expired") =>
  svc.deps.db
    .updateTable("withdraws")
    .set({ status, ...(status === "paid" ? { paid_at: svc.clock.now() } : {}) })
    .where("id", "=", id)
    .execute();

function assertCreated(res: { status: number; body: unknown }): void {
  assert.equal(res.status, 201, JSON.stringify(res.body));
}

function assertError(res: TestResponse, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, code);
}

/** Replaces the character at `index` so the name differs from `base` in exactly one place. */
function oneOff(base: string, index: number): string {
  const replacement = base[index] === "x" ? "y" : "x";
  return base.slice(0, index) + replacement + base.slice(index + 1);
}

describe("withdraw admission: idempotent replay", () => {
  it("returns the original withdraw with 200 and Idempotent-Replayed: true for the same key and body", async () => {
    const m = await fundedMerchant(svc);
    const body = withdrawBody({ idempotencyKey: "key-1", metadata: { a: "1", b: "2" } });
    const first = await createBody(m, body);
    assertCreated(first);
    assert.equal(first.headers["idempotent-replayed"], undefined);
    // Key order does not matter: the bodies are compared as parsed JSON.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await svc.request("POST", "/api/v1/withdraws", undefined, {
      credentials: m,
      rawBody: JSON.stringify(reordered, null, 2),
    });
    assert.equal(again.status, 200);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.body.data, first.body.data);
  });

  it("refuses the same key with a different body with 422 IDEMPOTENCY_KEY_MISMATCH", async () => {
    const m = await fundedMerchant(svc);
    const body = withdrawBody({ idempotencyKey: "key-2" });
    assertCreated(await createBody(m, body));
    const changed = await createBody(m, { ...body, amount: "1001.00" });
    assertError(changed, 422, "IDEMPOTENCY_KEY_MISMATCH");
  });

  it("consumes no limit capacity and no balance on a replay", async () => {
    const m = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 1_000n }, 1_500n);
    const body = withdrawBody({ amount: "1000", idempotencyKey: "key-3" });
    assertCreated(await createBody(m, body));
    for (let i = 0; i < 3; i++) assert.equal((await createBody(m, body)).status, 200);
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 500n);
    assert.equal(balances.wallet_held, 1_000n);
    const next = await create(m, { amount: "1" });
    assertError(next, 400, "INVALID_INPUT");
    assert.equal(next.body.error.metadata.dailyTotal, "1000.00");
  });

  it("replays before every other check: a frozen wallet and a would-be guard match still get the original", async () => {
    const m = await fundedMerchant(svc);
    const body = withdrawBody({ idempotencyKey: "key-4" });
    assertCreated(await createBody(m, body));
    await updateMerchant(svc.deps, m.merchantId, { walletStatus: "frozen" });
    const again = await createBody(m, body);
    assert.equal(again.status, 200);
    assert.equal(again.headers["idempotent-replayed"], "true");
  });

  it("replays the withdraw as it is now, after a cancel", async () => {
    const m = await fundedMerchant(svc);
    const body = withdrawBody({ idempotencyKey: "key-5" });
    const first = await createBody(m, body);
    await cancel(m, first.body.data.id);
    const again = await createBody(m, body);
    assert.equal(again.status, 200);
    assert.equal(again.body.data.status, "canceled");
  });

  it("keeps keys per merchant: another merchant's same key creates its own withdraw", async () => {
    const a = await fundedMerchant(svc);
    const b = await fundedMerchant(svc);
    const body = withdrawBody({ idempotencyKey: "shared-key" });
    const first = await createBody(a, body);
    const second = await createBody(b, body);
    assertCreated(first);
    assertCreated(second);
    assert.notEqual(first.body.data.id, second.body.data.id);
  });
});

describe("withdraw admission: check order", () => {
  it("refuses a used referenceId with 409 DUPLICATE_REFERENCE_ID, even with a new key", async () => {
    const m = await fundedMerchant(svc);
    assertCreated(await create(m, { referenceId: "dup-1", idempotencyKey: "a" }));
    const res = await create(m, { referenceId: "dup-1", idempotencyKey: "b", amount: "5" });
    assertError(res, 409, "DUPLICATE_REFERENCE_ID");
    assert.equal(res.body.error.metadata.field, "referenceId");
  });

  it("keeps references per merchant", async () => {
    const a = await fundedMerchant(svc);
    const b = await fundedMerchant(svc);
    assertCreated(await create(a, { referenceId: "same-ref" }));
    assertCreated(await create(b, { referenceId: "same-ref" }));
  });

  it("checks the duplicate reference before the wallet status", async () => {
    const m = await fundedMerchant(svc);
    assertCreated(await create(m, { referenceId: "dup-2" }));
    await updateMerchant(svc.deps, m.merchantId, { walletStatus: "frozen" });
    assertError(await create(m, { referenceId: "dup-2" }), 409, "DUPLICATE_REFERENCE_ID");
  });

  for (const status of ["frozen", "closed"] as const) {
    it(`refuses any withdraw from a ${status} wallet with 403 WALLET_INACTIVE`, async () => {
      const m = await fundedMerchant(svc, { walletStatus: status });
      const res = await create(m);
      assertError(res, 403, "WALLET_INACTIVE");
      const balances = await ledgerBalances(svc.deps.db, m.merchantId);
      assert.equal(balances.wallet_held, 0n);
    });
  }

  it("checks the wallet status before the payout guard", async () => {
    const m = await fundedMerchant(svc);
    const name = payeeName();
    assertCreated(await create(m, { customerBankAccountName: name }));
    await updateMerchant(svc.deps, m.merchantId, { walletStatus: "frozen" });
    assertError(await create(m, { customerBankAccountName: name }), 403, "WALLET_INACTIVE");
  });

  it("checks the payout guard before the limits", async () => {
    const m = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 1_000n });
    const name = payeeName();
    assertCreated(await create(m, { amount: "1000", customerBankAccountName: name }));
    assertError(await create(m, { amount: "1000", customerBankAccountName: name }), 409, "STATE_CONFLICT");
  });

  it("checks the daily limit before the monthly limit", async () => {
    const m = await fundedMerchant(svc, {
      dailyWithdrawLimitSatang: 1_000n,
      monthlyWithdrawLimitSatang: 1_000n,
    });
    const res = await create(m, { amount: "1001" });
    assertError(res, 400, "INVALID_INPUT");
    assert.deepEqual(Object.keys(res.body.error.metadata).sort(), ["amount", "dailyLimit", "dailyTotal"]);
  });

  it("checks the limits before the balance", async () => {
    const m = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 1_000n }, 10n);
    assertError(await create(m, { amount: "1001" }), 400, "INVALID_INPUT");
    assertError(await create(m, { amount: "1000" }), 400, "INSUFFICIENT_BALANCE");
  });

  it("stores nothing and holds nothing when a check refuses", async () => {
    const m = await fundedMerchant(svc, {}, 100n);
    assertError(await create(m, { amount: "101" }), 400, "INSUFFICIENT_BALANCE");
    const rows = await svc.deps.db
      .selectFrom("withdraws")
      .select("id")
      .where("merchant_id", "=", m.merchantId)
      .execute();
    assert.equal(rows.length, 0);
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 100n);
  });
});

describe("withdraw admission: balance", () => {
  it("admits a withdraw of exactly the available wallet and leaves it at zero", async () => {
    const m = await fundedMerchant(svc, {}, 5_000n);
    assertCreated(await create(m, { amount: "5000" }));
    const balances = await ledgerBalances(svc.deps.db, m.merchantId);
    assert.equal(balances.wallet_available, 0n);
    assert.equal(balances.wallet_held, 5_000n);
  });

  it("refuses a withdraw one satang above the available wallet with 400 INSUFFICIENT_BALANCE", async () => {
    const m = await fundedMerchant(svc, {}, 5_000n);
    const res = await create(m, { amount: "5001" });
    assertError(res, 400, "INSUFFICIENT_BALANCE");
    assert.deepEqual(res.body.error.metadata, { available: "5000.00", amount: "5001.00" });
    // People read the message: each figure with its unit and in baht.
    assert.equal(
      res.body.error.message,
      "Insufficient wallet balance: 5000.00 satang (50.00 THB) available, 5001.00 satang (50.01 THB) requested",
    );
  });

  it("does not count held amounts as available", async () => {
    const m = await fundedMerchant(svc, {}, 1_000n);
    assertCreated(await create(m, { amount: "600" }));
    assertError(await create(m, { amount: "401" }), 400, "INSUFFICIENT_BALANCE");
    assertCreated(await create(m, { amount: "400" }));
  });

  it("refuses any withdraw from an unfunded wallet", async () => {
    const m = await fundedMerchant(svc, {}, 0n);
    assertError(await create(m, { amount: "1" }), 400, "INSUFFICIENT_BALANCE");
  });
});

describe("withdraw admission: matching-payout guard", () => {
  const blockedBy = (res: TestResponse, existing: { id: string; status: string }) => {
    assertError(res, 409, "STATE_CONFLICT");
    assert.equal(res.body.error.metadata.existingWithdrawId, existing.id);
    assert.equal(res.body.error.metadata.existingWithdrawStatus, existing.status);
  };

  it("refuses a second payout of the same amount to the same name while the first is pending (active_payout)", async () => {
    const m = await fundedMerchant(svc);
    const first = await create(m, { customerBankAccountName: "Somchai Jaidee" });
    assertCreated(first);
    const res = await create(m, { customerBankAccountName: "Somchai Jaidee" });
    blockedBy(res, first.body.data);
    assert.equal(res.body.error.metadata.reason, "active_payout");
    assert.equal(res.body.error.metadata.retryAfter, undefined);
  });

  it("keeps blocking while the match is active, whatever its age", async () => {
    const m = await fundedMerchant(svc);
    const first = await create(m, { customerBankAccountName: "Active Forever" });
    await setStatus(first.body.data.id, "processing");
    svc.clock.advance(3 * 24 * 60 * MINUTE);
    const res = await create(m, { customerBankAccountName: "Active Forever" });
    assert.equal(res.body.error.metadata.reason, "active_payout");
    assert.equal(res.body.error.metadata.existingWithdrawStatus, "processing");
  });

  it("blocks behind a withdraw awaiting verification", async () => {
    const m = await fundedMerchant(svc, { withdrawVerificationThresholdSatang: 1_000n });
    const first = await create(m, { customerBankAccountName: "Verify Me Please" });
    assert.equal(first.body.data.status, "awaiting_verification");
    svc.clock.advance(60 * MINUTE);
    const res = await create(m, { customerBankAccountName: "Verify Me Please" });
    blockedBy(res, first.body.data);
    assert.equal(res.body.error.metadata.reason, "active_payout");
  });

  it("ignores case, whitespace and punctuation when comparing names", async () => {
    const m = await fundedMerchant(svc);
    const first = await create(m, { customerBankAccountName: "Somchai Jaidee" });
    const res = await create(m, { customerBankAccountName: "  SOMCHAI-jai.dee, " });
    blockedBy(res, first.body.data);
  });

  it("compares Thai names by code point", async () => {
    const m = await fundedMerchant(svc);
    const first = await create(m, { customerBankAccountName: "สมชาย ใจดี" });
    const res = await create(m, { customerBankAccountName: "สมชาย  ใจดี." });
    blockedBy(res, first.body.data);
  });

  it("keeps titles: 'Mr. Somchai Jaidee' does not match 'Somchai Jaidee'", async () => {
    const m = await fundedMerchant(svc);
    assertCreated(await create(m, { customerBankAccountName: "Somchai Jaidee" }));
    assertCreated(await create(m, { customerBankAccountName: "Mr. Somchai Jaidee" }));
  });

  it("does not match names exactly 90% similar (10 characters, one different)", async () => {
    const m = await fundedMerchant(svc);
    const base = "abcdefghij";
    assertCreated(await create(m, { customerBankAccountName: base }));
    assertCreated(await create(m, { customerBankAccountName: oneOff(base, 4) }));
  });

  it("matches names just above 90% similar (11 characters, one different)", async () => {
    const m = await fundedMerchant(svc);
    const base = "abcdefghijk";
    const first = await create(m, { customerBankAccountName: base });
    assertCreated(first);
    blockedBy(await create(m, { customerBankAccountName: oneOff(base, 4) }), first.body.data);
  });

  it("is not bypassed by a different bank account number, bank or destination type", async () => {
    const m = await fundedMerchant(svc);
    const first = await create(m, {
      customerBankAccountName: "Same Person",
      customerBankAccountNumber: "1111111111",
      customerBankCode: "004",
    });
    blockedBy(
      await create(m, {
        customerBankAccountName: "Same Person",
        customerBankAccountNumber: "2222222222",
        customerBankCode: "014",
        destinationType: "wallet",
      }),
      first.body.data,
    );
  });

  it("is not bypassed by a new or omitted idempotency key", async () => {
    const m = await fundedMerchant(svc);
    const first = await create(m, { customerBankAccountName: "Key Changer", idempotencyKey: "k-1" });
    blockedBy(
      await create(m, { customerBankAccountName: "Key Changer", idempotencyKey: "k-2" }),
      first.body.data,
    );
    blockedBy(await create(m, { customerBankAccountName: "Key Changer" }), first.body.data);
  });

  it("treats different amounts and different merchants independently", async () => {
    const m = await fundedMerchant(svc);
    const other = await fundedMerchant(svc);
    assertCreated(await create(m, { customerBankAccountName: "Independent Payee", amount: "1000" }));
    assertCreated(await create(m, { customerBankAccountName: "Independent Payee", amount: "1001" }));
    assertCreated(await create(other, { customerBankAccountName: "Independent Payee", amount: "1000" }));
  });

  for (const terminal of ["canceled", "paid", "failed", "expired"] as const) {
    it(`blocks for 15 minutes after a ${terminal} match (recent_payout) and admits at the 15th minute`, async () => {
      const m = await fundedMerchant(svc);
      const name = `Recent ${terminal} Payee`;
      const first = await create(m, { customerBankAccountName: name });
      assertCreated(first);
      if (terminal === "canceled") await cancel(m, first.body.data.id);
      else await setStatus(first.body.data.id, terminal);
      const createdAt = Date.parse(first.body.data.createdAt);

      svc.clock.set(createdAt + GUARD_WINDOW - 1);
      const blocked = await create(m, { customerBankAccountName: name });
      blockedBy(blocked, { id: first.body.data.id, status: terminal });
      assert.equal(blocked.body.error.metadata.reason, "recent_payout");
      assert.equal(blocked.body.error.metadata.retryAfter, new Date(createdAt + GUARD_WINDOW).toISOString());

      svc.clock.set(createdAt + GUARD_WINDOW);
      assertCreated(await create(m, { customerBankAccountName: name }));
    });
  }

  it("reports active_payout when both an active and a recent terminal match exist", async () => {
    const m = await fundedMerchant(svc);
    // Similarity is not transitive: each of A and B is 95% like N but only 90% like each other,
    // so both can exist while each blocks N.
    const n = "abcdefghijklmnopqrst";
    const a = oneOff(n, 0);
    const b = oneOff(n, 19);
    const active = await create(m, { customerBankAccountName: a });
    assertCreated(active);
    svc.clock.advance(MINUTE);
    const terminal = await create(m, { customerBankAccountName: b });
    assertCreated(terminal);
    await cancel(m, terminal.body.data.id);
    const res = await create(m, { customerBankAccountName: n });
    blockedBy(res, active.body.data);
    assert.equal(res.body.error.metadata.reason, "active_payout");
    assert.equal(res.body.error.metadata.retryAfter, undefined);
  });

  it("sets retryAfter from the latest of several recent terminal matches", async () => {
    const m = await fundedMerchant(svc);
    const n = "klmnopqrstuvwxyzabcd";
    const early = await create(m, { customerBankAccountName: oneOff(n, 0) });
    await cancel(m, early.body.data.id);
    svc.clock.advance(5 * MINUTE);
    const late = await create(m, { customerBankAccountName: oneOff(n, 19) });
    await cancel(m, late.body.data.id);
    svc.clock.advance(MINUTE);
    const res = await create(m, { customerBankAccountName: n });
    blockedBy(res, { id: late.body.data.id, status: "canceled" });
    assert.equal(
      res.body.error.metadata.retryAfter,
      new Date(Date.parse(late.body.data.createdAt) + GUARD_WINDOW).toISOString(),
    );
  });

  it("measures the 15 minutes in the merchant's business time", async () => {
    const m = await fundedMerchant(svc);
    const first = await create(m, { customerBankAccountName: "Test Clock Payee" });
    await cancel(m, first.body.data.id);
    // The merchant's sandbox test clock moves 15 minutes; the service clock does not.
    await svc.deps.db
      .updateTable("merchants")
      .set({ clock_offset_ms: BigInt(GUARD_WINDOW) })
      .where("id", "=", m.merchantId)
      .execute();
    assertCreated(await create(m, { customerBankAccountName: "Test Clock Payee" }));
  });
});

describe("withdraw admission: daily and monthly limits", () => {
  // Mid-month, mid-day UTC, so a few minutes or hours never cross a window by accident.
  const MID_MONTH = Date.UTC(2026, 2, 14, 12, 0, 0);

  const limited = async (input: Partial<MerchantInput>) => {
    svc.clock.set(MID_MONTH);
    return fundedMerchant(svc, input, 100_000_000n);
  };

  it("admits a withdraw that reaches the daily limit exactly", async () => {
    const m = await limited({ dailyWithdrawLimitSatang: 10_000n });
    assertCreated(await create(m, { amount: "6000" }));
    assertCreated(await create(m, { amount: "4000" }));
  });

  it("refuses one satang over the daily limit with 400 INVALID_INPUT and the daily metadata", async () => {
    const m = await limited({ dailyWithdrawLimitSatang: 10_000n });
    assertCreated(await create(m, { amount: "6000" }));
    const res = await create(m, { amount: "4001" });
    assertError(res, 400, "INVALID_INPUT");
    assert.deepEqual(res.body.error.metadata, {
      dailyTotal: "6000.00",
      amount: "4001.00",
      dailyLimit: "10000.00",
    });
    assert.match(res.body.error.message, /6000\.00/);
    assert.match(res.body.error.message, /10000\.00/);
  });

  it("admits a withdraw that reaches the monthly limit exactly, across days", async () => {
    const m = await limited({ monthlyWithdrawLimitSatang: 20_000n });
    assertCreated(await create(m, { amount: "12000" }));
    svc.clock.advance(24 * 60 * MINUTE);
    assertCreated(await create(m, { amount: "8000" }));
  });

  it("refuses one satang over the monthly limit with 400 INVALID_INPUT and the monthly metadata", async () => {
    const m = await limited({ dailyWithdrawLimitSatang: 15_000n, monthlyWithdrawLimitSatang: 20_000n });
    assertCreated(await create(m, { amount: "12000" }));
    svc.clock.advance(24 * 60 * MINUTE);
    const res = await create(m, { amount: "8001" });
    assertError(res, 400, "INVALID_INPUT");
    assert.deepEqual(res.body.error.metadata, {
      monthlyTotal: "12000.00",
      amount: "8001.00",
      monthlyLimit: "20000.00",
    });
    assert.match(res.body.error.message, /12000\.00/);
    assert.match(res.body.error.message, /20000\.00/);
  });

  it("counts awaiting_verification, pending, processing and paid withdraws", async () => {
    const m = await limited({
      dailyWithdrawLimitSatang: 10_000n,
      withdrawVerificationThresholdSatang: 4_000n,
    });
    const awaiting = await create(m, { amount: "4000" });
    assert.equal(awaiting.body.data.status, "awaiting_verification");
    assertCreated(await create(m, { amount: "1000" }));
    const processing = await create(m, { amount: "2000" });
    await setStatus(processing.body.data.id, "processing");
    const paid = await create(m, { amount: "3000" });
    await setStatus(paid.body.data.id, "paid");
    const res = await create(m, { amount: "1" });
    assertError(res, 400, "INVALID_INPUT");
    assert.equal(res.body.error.metadata.dailyTotal, "10000.00");
  });

  it("counts nothing for failed, canceled and expired withdraws", async () => {
    const m = await limited({ dailyWithdrawLimitSatang: 3_000n });
    const failed = await create(m, { amount: "1000" });
    await setStatus(failed.body.data.id, "failed");
    const canceled = await create(m, { amount: "1001" });
    await cancel(m, canceled.body.data.id);
    const expired = await create(m, { amount: "1002" });
    await setStatus(expired.body.data.id, "expired");
    assertCreated(await create(m, { amount: "3000" }));
  });

  it("counts a late-confirmed success again and blocks admissions until the period resets", async () => {
    const m = await limited({ dailyWithdrawLimitSatang: 3_000n });
    const failed = await create(m, { amount: "3000" });
    await setStatus(failed.body.data.id, "failed");
    assertCreated(await create(m, { amount: "2000" }));
    // The provider confirms the failed payout after all: it counts again, over the limit.
    await setStatus(failed.body.data.id, "paid");
    const res = await create(m, { amount: "1" });
    assertError(res, 400, "INVALID_INPUT");
    assert.equal(res.body.error.metadata.dailyTotal, "5000.00");
    svc.clock.advance(24 * 60 * MINUTE);
    assertCreated(await create(m, { amount: "3000" }));
  });

  it("resets the daily window at midnight UTC", async () => {
    svc.clock.set(Date.UTC(2026, 2, 14, 23, 59, 59, 999));
    const m = await fundedMerchant(svc, { dailyWithdrawLimitSatang: 1_000n }, 100_000n);
    assertCreated(await create(m, { amount: "1000" }));
    assertError(await create(m, { amount: "1" }), 400, "INVALID_INPUT");
    svc.clock.advance(1);
    assertCreated(await create(m, { amount: "1000" }));
  });

  it("resets the monthly window at the first of the month UTC", async () => {
    svc.clock.set(Date.UTC(2026, 2, 31, 23, 59, 59, 999));
    const m = await fundedMerchant(svc, { monthlyWithdrawLimitSatang: 1_000n }, 100_000n);
    assertCreated(await create(m, { amount: "1000" }));
    const res = await create(m, { amount: "1" });
    assertError(res, 400, "INVALID_INPUT");
    assert.equal(res.body.error.metadata.monthlyTotal, "1000.00");
    svc.clock.advance(1);
    assertCreated(await create(m, { amount: "1000" }));
  });

  it("applies no limit when the merchant has none", async () => {
    const m = await limited({});
    assertCreated(await create(m, { amount: "9000000" }));
    assertCreated(await create(m, { amount: "9000001" }));
  });

  it("keeps each merchant's limits to its own withdraws", async () => {
    const a = await limited({ dailyWithdrawLimitSatang: 1_000n });
    const b = await limited({ dailyWithdrawLimitSatang: 1_000n });
    assertCreated(await create(a, { amount: "1000" }));
    assertCreated(await create(b, { amount: "1000" }));
  });
});
