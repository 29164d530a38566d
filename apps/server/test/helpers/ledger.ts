/**
 * Ledger helpers for tests: fund a wallet the way an operator does, and check the ledger's
 * invariants after a test (every transaction sums to zero, and every account's balance equals
 * the sum of its entries).
 */
import assert from "node:assert/strict";
import { sql } from "kysely";
import type { Db } from "../../src/db/handles.ts";
import type { Deps } from "../../src/deps.ts";
import { adjustWallet } from "../../src/ledger/adjustments.ts";

/** Credits the merchant's available wallet through an operator adjustment. */
export async function fundWallet(deps: Deps, merchantId: string, amountSatang: bigint): Promise<void> {
  await adjustWallet(deps, merchantId, { amountSatang, reason: "test funding" });
}

export async function assertLedgerConsistent(db: Db): Promise<void> {
  const total = await sql<{ total: bigint }>`
    select coalesce(sum(amount_satang), 0)::bigint as total from ledger_entries`.execute(db);
  assert.equal(total.rows[0]!.total, 0n, "all ledger entries together sum to zero");

  const unbalanced = await sql<{ transaction_id: string }>`
    select transaction_id from ledger_entries group by transaction_id
    having sum(amount_satang) <> 0`.execute(db);
  assert.deepEqual(unbalanced.rows, [], "every ledger transaction sums to zero");

  const drifted = await sql<{ id: string }>`
    select a.id from ledger_accounts a
    left join ledger_entries e on e.account_id = a.id
    group by a.id, a.balance_satang
    having a.balance_satang <> coalesce(sum(e.amount_satang), 0)`.execute(db);
  assert.deepEqual(drifted.rows, [], "every account balance equals the sum of its entries");

  const negative = await sql<{ id: string }>`
    select a.id from ledger_accounts a
    where a.kind in ('settlement_pending', 'wallet_available', 'wallet_held') and a.balance_satang < 0
      -- A late success debits the available wallet again, below zero if it was spent meanwhile.
      and not (a.kind = 'wallet_available' and exists (select 1 from ledger_entries e
        join ledger_transactions t on t.id = e.transaction_id
        where e.account_id = a.id and t.kind in ('withdraw_late_success', 'refund_late_success')))`.execute(
    db,
  );
  assert.deepEqual(
    negative.rows,
    [],
    "no merchant balance is negative (but an available wallet a late success overdrew)",
  );
}

/** The merchant's balances by account kind, read straight from the ledger. */
export async function ledgerBalances(db: Db, merchantId: string): Promise<Record<string, bigint>> {
  const rows = await db
    .selectFrom("ledger_accounts")
    .select(["kind", "balance_satang"])
    .where("merchant_id", "=", merchantId)
    .execute();
  return Object.fromEntries(rows.map((row) => [row.kind, row.balance_satang]));
}
