/**
 * Migration 0081_payout_desk_records on a store that already holds desk outcomes: it fills in
 * who recorded them (the operator token, the only operator credential there was), and it stops,
 * naming the reference, rather than guess when one bank reference is recorded for two withdraws.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Trx } from "../../src/db/handles.ts";
import { statements as deskRecords } from "../../src/db/migrations/0081_payout_desk_records.ts";
import { type Credentials, startService, type TestService } from "../helpers/harness.ts";
import { fundedMerchant, withdrawBody } from "../helpers/withdraws.ts";

let svc: TestService;
let shop: Credentials;
let batchId = "";
const ids: string[] = [];
const REFERENCE = "SCB-MIGRATE-1";

before(async () => {
  svc = await startService({ env: { SATANG_PAYOUTS: "manual" } });
  shop = await fundedMerchant(svc, {}, 100_000n);
  for (const amount of ["1000.00", "2000.00", "3000.00"]) {
    svc.clock.advance(1000);
    const res = await svc.request("POST", "/api/v1/withdraws", withdrawBody({ amount }), {
      credentials: shop,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    ids.push(res.body.data.id);
  }
  batchId = (await svc.admin("POST", "/admin/v1/payout-batches", { merchantId: shop.merchantId })).body.data
    .id;
  const paid = await svc.admin("POST", `/admin/v1/payout-batches/${batchId}/items/${ids[0]}/outcome`, {
    outcome: "paid",
    bankReference: REFERENCE,
  });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
});
after(async () => {
  await svc?.close();
});

/** The desk's tables as they were before 0081. */
async function undo0081(trx: Trx): Promise<void> {
  await sql`DROP INDEX payout_batch_items_bank_reference`.execute(trx);
  await sql`ALTER TABLE payout_batch_items DROP COLUMN recorded_by, DROP COLUMN recorded_via`.execute(trx);
}

async function apply0081(trx: Trx): Promise<void> {
  for (const statement of deskRecords) await sql.raw(statement).execute(trx);
}

/** Runs `work` in a transaction that is always rolled back, so the store stays as it was. */
async function rolledBack(work: (trx: Trx) => Promise<void>): Promise<void> {
  const ROLLBACK = new Error("rollback");
  await assert.rejects(
    svc.deps.db.transaction().execute(async (trx) => {
      await work(trx);
      throw ROLLBACK;
    }),
    (error) => error === ROLLBACK,
  );
}

describe("migration 0081_payout_desk_records", () => {
  it("fills in the operator token as who recorded the outcomes already there, and nothing for open items", async () => {
    await rolledBack(async (trx) => {
      await undo0081(trx);
      await apply0081(trx);
      const rows = await trx
        .selectFrom("payout_batch_items")
        .select(["withdraw_id", "recorded_by", "recorded_via"])
        .where("batch_id", "=", batchId)
        .orderBy("position")
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.withdraw_id, row.recorded_by, row.recorded_via]),
        [
          [ids[0], "admin-token", null],
          [ids[1], null, null],
          [ids[2], null, null],
        ],
      );
    });
  });

  it("stops, naming it, when a bank reference is already recorded for two withdraws", async () => {
    await assert.rejects(
      svc.deps.db.transaction().execute(async (trx) => {
        await undo0081(trx);
        await sql`UPDATE payout_batch_items
                     SET outcome = 'paid', bank_reference = ${REFERENCE.toLowerCase()}, recorded_at = now()
                   WHERE batch_id = ${batchId} AND withdraw_id = ${ids[1]!}`.execute(trx);
        await apply0081(trx);
      }),
      /bank references are recorded for more than one withdraw: scb-migrate-1\./,
    );
    // Nothing of that attempt stayed.
    const row = await svc.deps.db
      .selectFrom("payout_batch_items")
      .select(["outcome", "recorded_by"])
      .where("withdraw_id", "=", ids[1]!)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { outcome: null, recorded_by: null });
  });
});
