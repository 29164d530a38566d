/**
 * The ledger export lists each account's entries in the order they were posted (migration 0116),
 * so `balance_after_thb` follows down the file: entries of one instant (a settlement run posting
 * many payments at once) are not ordered by their random ids. Checked across the export's
 * batches too (a batch ends inside one instant).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { settlementJob } from "../../src/jobs/lifecycle.ts";
import { EXPORT_BATCH_ROWS } from "../../src/lib/limits.ts";
import { ledgerCsvRecords } from "../helpers/csv.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { createPayment, HOUR_MS, simulatePaymentRequest } from "../helpers/lifecycle.ts";

let svc: TestService;

before(async () => {
  svc = await startService();
});
after(async () => {
  await svc.close();
});

const satangOf = (thb: string) => BigInt(thb.replace(".", ""));

async function succeeded(credentials: Credentials, amount: string): Promise<void> {
  const payment = await createPayment(svc, credentials, { amount });
  const res = await simulatePaymentRequest(svc, credentials, payment.id, "succeeded");
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

describe("the ledger export's order", () => {
  it("follows each account's balance down the file when many entries share an instant", async () => {
    const merchant = await svc.newMerchant({ settlementDelayHours: 24 });
    // More settlements than a batch holds, so one instant spans a batch edge.
    const count = Math.ceil(EXPORT_BATCH_ROWS / 4) + 8;
    for (let i = 0; i < count; i++) await succeeded(merchant, `${100 + i}.00`);
    svc.clock.advance(24 * HOUR_MS + 1000);
    while ((await settlementJob.runOnce(svc.deps)) > 0) {}

    const now = svc.clock.now().getTime();
    const rows = await ledgerCsvRecords(
      svc,
      merchant,
      new Date(now - 3 * 24 * HOUR_MS),
      new Date(now + HOUR_MS),
    );
    assert.equal(rows.length, count * 4, "two entries per payment's success and two per settlement");
    assert.equal(new Set(rows.map((r) => r.entry_id)).size, rows.length, "no row twice across batches");

    const settled = rows.filter((r) => r.type === "settlement" && r.account === "wallet_available");
    assert.equal(settled.length, count);
    assert.ok(
      new Set(settled.map((r) => r.created_at_utc)).size < settled.length,
      "the settlements share an instant, so their order is not decided by time alone",
    );

    const balances = new Map<string, bigint>();
    for (const [index, row] of rows.entries()) {
      const before = balances.get(row.account!) ?? 0n;
      const after = before + satangOf(row.amount_thb!);
      assert.equal(
        satangOf(row.balance_after_thb!),
        after,
        `row ${index + 2} (${row.account} ${row.type}): ${before} + ${row.amount_thb} THB`,
      );
      balances.set(row.account!, after);
    }
    const balance = await svc.request("GET", "/api/v1/balance", undefined, { credentials: merchant });
    assert.equal(balances.get("settlement_pending"), 0n);
    assert.equal(String(balances.get("wallet_available")), String(balance.body.data.walletBalance));
  });
});
