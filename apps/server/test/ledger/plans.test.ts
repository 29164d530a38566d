/**
 * The ledger's triggers look rows up by key however small the ledger was when a connection first
 * posted (migration 0109). PostgreSQL settles on one plan for a trigger's statement after a few
 * runs on a connection and keeps it until the table's statistics change: a plan made while the
 * ledger held a handful of accounts read the whole accounts table for every entry, on every
 * later posting of that connection, until autovacuum next analyzed the table.
 */
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { sql, type Transaction } from "kysely";
import type { Database } from "../../src/db/types.ts";
import { accountIds } from "../../src/ledger/accounts.ts";
import { newId } from "../../src/lib/ids.ts";
import { startService, type TestService } from "../helpers/harness.ts";
import { assertLedgerConsistent } from "../helpers/ledger.ts";

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

/** One balanced posting inserted as the postings module does: a transaction and its two lines. */
async function postPair(
  trx: Transaction<Database>,
  merchantId: string,
  ids: { wallet_available: string; operator_adjustments: string },
  amount: bigint,
): Promise<void> {
  const id = newId();
  await trx
    .insertInto("ledger_transactions")
    .values({
      id,
      merchant_id: merchantId,
      kind: "operator_adjustment",
      subject_type: "adjustment",
      subject_id: id,
      reason: "plan test",
      created_at: svc.clock.now(),
    })
    .execute();
  await trx
    .insertInto("ledger_entries")
    .values([
      { id: newId(), transaction_id: id, account_id: ids.operator_adjustments, amount_satang: -amount },
      { id: newId(), transaction_id: id, account_id: ids.wallet_available, amount_satang: amount },
    ])
    .execute();
}

/** Whole-table reads of the ledger's tables so far in this transaction. */
async function ledgerSeqScans(trx: Transaction<Database>): Promise<Record<string, string>> {
  const { rows } = await sql<{ relname: string; seq_scan: string }>`
    SELECT relname, seq_scan::text AS seq_scan FROM pg_stat_xact_user_tables
    WHERE relname IN ('ledger_accounts', 'ledger_transactions', 'ledger_entries')`.execute(trx);
  return Object.fromEntries(rows.map((row) => [row.relname, row.seq_scan]));
}

/** `count` more merchants, each with an account. */
async function grow(trx: Transaction<Database>, label: string, count: number): Promise<void> {
  await sql`INSERT INTO merchants (id, name, settlement_delay_hours, created_at, updated_at)
    SELECT gen_random_uuid(), ${label} || ' ' || g, 0, now(), now() FROM generate_series(1, ${count}::int) g`.execute(
    trx,
  );
  await sql`INSERT INTO ledger_accounts (id, merchant_id, kind)
    SELECT gen_random_uuid(), id, 'operator_adjustments' FROM merchants WHERE name LIKE ${`${label} %`}`.execute(
    trx,
  );
}

const ROLLED_BACK = new Error("rolled back on purpose");

describe("ledger: the triggers' plans", () => {
  it("look accounts, transactions and entries up by key after the ledger grew under a settled plan", async () => {
    const merchant = await svc.newMerchant();
    const ids = await accountIds(svc.deps.db, merchant.merchantId);
    await assert.rejects(
      svc.deps.db.transaction().execute(async (trx) => {
        // The balance check runs after each statement rather than at the commit, so that its
        // own lookups are counted too.
        await sql`SET CONSTRAINTS ledger_entries_balanced IMMEDIATE`.execute(trx);
        // The plan is made while the ledger is small, as autovacuum last measured it: a hundred
        // and fifty accounts, a few pages each table.
        await grow(trx, "small", 150);
        await sql`ANALYZE ledger_accounts, ledger_transactions, ledger_entries`.execute(trx);
        // More runs than PostgreSQL makes custom plans for: the next ones use the kept plan.
        for (let i = 0; i < 8; i++) await postPair(trx, merchant.merchantId, ids, 100n);
        // The ledger grows to thousands of accounts and transactions while that plan is kept.
        await grow(trx, "grown", 3000);
        for (let i = 0; i < 300; i++) await postPair(trx, merchant.merchantId, ids, 1n);
        const before = await ledgerSeqScans(trx);
        for (let i = 0; i < 5; i++) await postPair(trx, merchant.merchantId, ids, 100n);
        assert.deepEqual(await ledgerSeqScans(trx), before, "a posting read a ledger table whole");
        throw ROLLED_BACK;
      }),
      (error) => error === ROLLED_BACK,
    );
  });
});
