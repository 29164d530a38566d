/**
 * Migration 0101 keeps what SCB left: the confirmations, the payment checks and the sweeps kept
 * under SCB's table names become the generic tables' rows, with provider `scb`, and the new
 * primary key (provider, transaction id) lets another connector use the same transaction id.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PGlite } from "@electric-sql/pglite";
import { MIGRATIONS } from "../../src/db/migrate.ts";

const TARGET = "0101_provider_confirmations";

async function migrated(db: PGlite, until: (name: string) => boolean) {
  for (const name of Object.keys(MIGRATIONS).sort()) {
    if (!until(name)) continue;
    for (const statement of MIGRATIONS[name] ?? []) await db.exec(statement);
  }
}

describe("migration 0101: provider confirmations", () => {
  it("keeps SCB's confirmations, payment checks and sweeps as the generic tables' rows", async () => {
    const db = new PGlite();
    try {
      await migrated(db, (name) => name < TARGET);
      await db.exec(`INSERT INTO scb_confirmations (transaction_id, ref1, claimed_amount_satang,
        claimed_biller_id, paid_at, status, result, deliveries, received_at, updated_at)
        VALUES ('TX1', 'REF1', 25050, '010555', now(), 'verified', 'applied', 2, now(), now())`);
      await db.exec(`INSERT INTO scb_sweeps (sweep_date, status, started_at, asked, found)
        VALUES ('2026-01-15', 'finished', now(), 3, 1)`);
      await migrated(db, (name) => name === TARGET);

      const confirmations = await db.query<Record<string, unknown>>(
        "SELECT provider, transaction_id, reference, claimed_amount_satang::text AS amount, claimed_payee, status, deliveries FROM provider_confirmations",
      );
      assert.deepEqual(confirmations.rows, [
        {
          provider: "scb",
          transaction_id: "TX1",
          reference: "REF1",
          amount: "25050",
          claimed_payee: "010555",
          status: "verified",
          deliveries: 2,
        },
      ]);
      const sweeps = await db.query<Record<string, unknown>>(
        "SELECT sweep_date, asked FROM collection_sweeps",
      );
      assert.deepEqual(sweeps.rows, [{ sweep_date: "2026-01-15", asked: 3 }]);
      const checks = await db.query("SELECT * FROM payment_checks");
      assert.deepEqual(checks.rows, []);

      // Another connector may use the same transaction id; the same connector may not.
      await db.exec(`INSERT INTO provider_confirmations (provider, transaction_id, reference, paid_at,
        status, deliveries, received_at, updated_at)
        VALUES ('opn', 'TX1', NULL, now(), 'received', 1, now(), now())`);
      await assert.rejects(
        db.exec(`INSERT INTO provider_confirmations (provider, transaction_id, reference, paid_at,
          status, deliveries, received_at, updated_at)
          VALUES ('scb', 'TX1', 'REF1', now(), 'received', 1, now(), now())`),
        /provider_confirmations_pkey/,
      );
    } finally {
      await db.close();
    }
  });
});
