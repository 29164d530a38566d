/**
 * Migration 0110 moves the ledger accounts' rules off each entry's UPDATE (docs/ledger.md, "The
 * balance guarantee") on a ledger that already holds money: the accounts keep their kinds and
 * balances, postings go on, and each rule still refuses what it refused before.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { MIGRATIONS } from "../../src/db/migrate.ts";

const TARGET = "0110_ledger_account_guards";
const MERCHANT = "00000000-0000-4000-8000-000000000001";
const AVAILABLE = "00000000-0000-4000-8000-0000000000a1";
const ADJUSTMENTS = "00000000-0000-4000-8000-0000000000a2";

async function migrated(db: PGlite, until: (name: string) => boolean) {
  for (const name of Object.keys(MIGRATIONS).sort()) {
    if (!until(name)) continue;
    for (const statement of MIGRATIONS[name] ?? []) await db.exec(statement);
  }
}

/** One balanced posting moving `amount` satang into the wallet from the operator's account. */
const adjustment = (amount: number) => `
  BEGIN;
  INSERT INTO ledger_transactions (id, merchant_id, kind, subject_type, subject_id, reason, created_at)
    VALUES (gen_random_uuid(), '${MERCHANT}', 'operator_adjustment', 'adjustment', gen_random_uuid(), 'test', now());
  INSERT INTO ledger_entries (id, transaction_id, account_id, amount_satang)
    SELECT gen_random_uuid(), t.id, a.account, a.amount FROM
      (SELECT id FROM ledger_transactions ORDER BY created_at DESC, id LIMIT 1) t,
      (VALUES ('${AVAILABLE}'::uuid, ${amount}::bigint), ('${ADJUSTMENTS}'::uuid, ${-amount}::bigint)) a (account, amount);
  COMMIT;`;

const balances = async (db: PGlite) =>
  (
    await db.query<{ kind: string; balance: string }>(
      "SELECT kind, balance_satang::text AS balance FROM ledger_accounts ORDER BY kind",
    )
  ).rows;

describe("migration 0110: the ledger accounts' rules", () => {
  it("keeps a funded ledger's accounts, and each rule refuses after it as before", async () => {
    const db = new PGlite();
    try {
      await migrated(db, (name) => name < TARGET);
      await db.exec(`INSERT INTO merchants (id, name, settlement_delay_hours, created_at, updated_at)
        VALUES ('${MERCHANT}', 'shop', 0, now(), now())`);
      await db.exec(`INSERT INTO ledger_accounts (id, merchant_id, kind) VALUES
        ('${AVAILABLE}', '${MERCHANT}', 'wallet_available'), ('${ADJUSTMENTS}', '${MERCHANT}', 'operator_adjustments')`);
      await db.exec(adjustment(50_000));
      await migrated(db, (name) => name === TARGET);

      assert.deepEqual(await balances(db), [
        { kind: "operator_adjustments", balance: "-50000" },
        { kind: "wallet_available", balance: "50000" },
      ]);
      await db.exec(adjustment(-20_000));
      assert.deepEqual(await balances(db), [
        { kind: "operator_adjustments", balance: "-30000" },
        { kind: "wallet_available", balance: "30000" },
      ]);
      const after = await db.query<{ after: string }>(
        `SELECT balance_after_satang::text AS after FROM ledger_entries WHERE account_id = '${AVAILABLE}' ORDER BY balance_after_satang`,
      );
      assert.deepEqual(
        after.rows.map((row) => row.after),
        ["30000", "50000"],
      );

      // One satang more than the wallet holds is refused, and the refusal leaves nothing behind.
      await assert.rejects(db.exec(adjustment(-30_001)), /ledger_accounts_merchant_funds_not_negative/);
      await db.exec("ROLLBACK");
      await db.exec(adjustment(-30_000));
      assert.equal((await balances(db)).find((row) => row.kind === "wallet_available")?.balance, "0");
      await assert.rejects(
        db.exec(`UPDATE ledger_accounts SET balance_satang = 1 WHERE id = '${AVAILABLE}'`),
        /only through ledger entries/,
      );
      await assert.rejects(
        db.exec(`UPDATE ledger_accounts SET kind = 'wallet_held' WHERE id = '${AVAILABLE}'`),
        /cannot change id, owner or kind/,
      );
    } finally {
      await db.close();
    }
  });
});
