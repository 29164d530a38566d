/**
 * SQL of the manual payout desk (docs/payout-desk.md): batches, their items, and claiming the
 * pending withdraws a new batch takes.
 */
import { sql } from "kysely";
import type { Db } from "../db/handles.ts";
import { type WithOffset, withOffsets } from "../db/rows.ts";
import type {
  PayoutBatchItemRow,
  PayoutBatchRow,
  PayoutBatchStatus,
  PayoutOutcome,
  WithdrawRow,
} from "../db/types.ts";

/**
 * Locks up to `limit` pending withdraws, oldest first, optionally of one merchant. `SKIP
 * LOCKED`: two batch creations running at once each take different withdraws, and neither
 * waits for the other; whatever the first takes is processing when it commits, so the second
 * never sees it pending again.
 */
export async function claimPendingForBatch(
  db: Db,
  options: { limit: number; merchantId?: string | undefined },
): Promise<WithOffset<WithdrawRow>[]> {
  let query = db
    .selectFrom("withdraws")
    .innerJoin("merchants", "merchants.id", "withdraws.merchant_id")
    .selectAll("withdraws")
    .select("merchants.clock_offset_ms")
    .where("withdraws.status", "=", "pending");
  if (options.merchantId !== undefined) query = query.where("withdraws.merchant_id", "=", options.merchantId);
  const rows = await query
    .orderBy("withdraws.created_at")
    .orderBy("withdraws.id")
    .limit(options.limit)
    .forUpdate("withdraws")
    .skipLocked()
    .execute();
  return withOffsets(rows);
}

export async function insertBatch(
  db: Db,
  batch: { id: string; createdBy: string; itemCount: number; totalSatang: bigint; at: Date },
): Promise<void> {
  await db
    .insertInto("payout_batches")
    .values({
      id: batch.id,
      status: "open",
      created_by: batch.createdBy,
      item_count: batch.itemCount,
      total_satang: batch.totalSatang,
      created_at: batch.at,
      updated_at: batch.at,
      closed_at: null,
    })
    .execute();
}

export async function insertBatchItems(
  db: Db,
  batchId: string,
  withdraws: readonly WithdrawRow[],
): Promise<void> {
  await db
    .insertInto("payout_batch_items")
    .values(
      withdraws.map((row, index) => ({
        batch_id: batchId,
        batch_status: "open" as const,
        position: index + 1,
        withdraw_id: row.id,
        merchant_id: row.merchant_id,
        amount_satang: row.amount_satang,
        outcome: null,
        bank_reference: null,
        failure_reason: null,
        recorded_at: null,
        recorded_by: null,
        recorded_via: null,
      })),
    )
    .execute();
}

/** A batch with what its items' outcomes add up to. */
export interface BatchSummaryRow extends PayoutBatchRow {
  paid_count: number;
  failed_count: number;
  paid_satang: bigint;
}

function summaries(db: Db) {
  return db
    .selectFrom("payout_batches as b")
    .selectAll("b")
    .select([
      sql<number>`(SELECT count(*)::int FROM payout_batch_items i WHERE i.batch_id = b.id AND i.outcome = 'paid')`.as(
        "paid_count",
      ),
      sql<number>`(SELECT count(*)::int FROM payout_batch_items i WHERE i.batch_id = b.id AND i.outcome = 'failed')`.as(
        "failed_count",
      ),
      sql<bigint>`(SELECT coalesce(sum(i.amount_satang), 0)::bigint FROM payout_batch_items i WHERE i.batch_id = b.id AND i.outcome = 'paid')`.as(
        "paid_satang",
      ),
    ]);
}

export async function findBatch(db: Db, id: string): Promise<BatchSummaryRow | undefined> {
  return summaries(db).where("b.id", "=", id).executeTakeFirst();
}

export async function listBatches(
  db: Db,
  options: { status?: PayoutBatchStatus | undefined; page: number; limit: number },
): Promise<{ rows: BatchSummaryRow[]; total: number }> {
  let query = summaries(db);
  let count = db.selectFrom("payout_batches").select(sql<number>`count(*)::int`.as("total"));
  if (options.status !== undefined) {
    query = query.where("b.status", "=", options.status);
    count = count.where("status", "=", options.status);
  }
  const [rows, total] = await Promise.all([
    query
      .orderBy("b.created_at", "desc")
      .orderBy("b.id", "desc")
      .limit(options.limit)
      .offset((options.page - 1) * options.limit)
      .execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows, total: total.total };
}

/** An item with the withdraw it pays, as the operator's views and the CSV show it. */
export interface BatchItemView extends PayoutBatchItemRow {
  withdraw_status: WithdrawRow["status"];
  reference_id: string;
  destination_type: WithdrawRow["destination_type"];
  bank_code: string;
  bank_account_number: string;
  bank_account_name: string;
}

export async function listBatchItems(db: Db, batchId: string): Promise<BatchItemView[]> {
  return db
    .selectFrom("payout_batch_items as i")
    .innerJoin("withdraws as w", "w.id", "i.withdraw_id")
    .selectAll("i")
    .select([
      "w.status as withdraw_status",
      "w.reference_id",
      "w.destination_type",
      "w.bank_code",
      "w.bank_account_number",
      "w.bank_account_name",
    ])
    .where("i.batch_id", "=", batchId)
    .orderBy("i.position")
    .execute();
}

/** Locks the batch row: outcomes of one batch are recorded one at a time, so the last closes it. */
export async function lockBatch(db: Db, id: string): Promise<PayoutBatchRow | undefined> {
  return db.selectFrom("payout_batches").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

export async function lockBatchItem(
  db: Db,
  batchId: string,
  withdrawId: string,
): Promise<PayoutBatchItemRow | undefined> {
  return db
    .selectFrom("payout_batch_items")
    .selectAll()
    .where("batch_id", "=", batchId)
    .where("withdraw_id", "=", withdrawId)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The item that already holds a bank reference, compared as the unique index compares them
 * (case-insensitively), or undefined.
 */
export async function findItemByBankReference(
  db: Db,
  bankReference: string,
): Promise<Pick<PayoutBatchItemRow, "batch_id" | "withdraw_id"> | undefined> {
  return db
    .selectFrom("payout_batch_items")
    .select(["batch_id", "withdraw_id"])
    .where(sql<string>`lower(bank_reference)`, "=", sql<string>`lower(${bankReference})`)
    .where("bank_reference", "is not", null)
    .executeTakeFirst();
}

/** The unique index that keeps a bank reference to one withdraw (migration 0081). */
const BANK_REFERENCE_INDEX = "payout_batch_items_bank_reference";

/** True when `error` is the unique violation of a bank reference already recorded. */
export function isBankReferenceConflict(error: unknown): boolean {
  const fields = error as { code?: unknown; constraint?: unknown } | null;
  return fields?.code === "23505" && fields.constraint === BANK_REFERENCE_INDEX;
}

export async function setItemOutcome(
  db: Db,
  key: { batchId: string; withdrawId: string },
  outcome: {
    outcome: PayoutOutcome;
    bankReference: string | null;
    failureReason: string | null;
    at: Date;
    recordedBy: string;
    recordedVia: "api" | "cli" | "desk";
  },
): Promise<void> {
  await db
    .updateTable("payout_batch_items")
    .set({
      outcome: outcome.outcome,
      bank_reference: outcome.bankReference,
      failure_reason: outcome.failureReason,
      recorded_at: outcome.at,
      recorded_by: outcome.recordedBy,
      recorded_via: outcome.recordedVia,
    })
    .where("batch_id", "=", key.batchId)
    .where("withdraw_id", "=", key.withdrawId)
    .where("outcome", "is", null)
    .execute();
}

/**
 * Closes the batch when no item is left without an outcome (the item rows follow through the
 * cascading key). True when it closed.
 */
export async function closeBatchIfDone(db: Db, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable("payout_batches")
    .set({ status: "closed", closed_at: at, updated_at: at })
    .where("id", "=", id)
    .where("status", "=", "open")
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("payout_batch_items")
            .select(sql`1`.as("one"))
            .where("payout_batch_items.batch_id", "=", id)
            .where("payout_batch_items.outcome", "is", null),
        ),
      ),
    )
    .executeTakeFirst();
  return (result.numUpdatedRows ?? 0n) > 0n;
}

export async function touchBatch(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable("payout_batches").set({ updated_at: at }).where("id", "=", id).execute();
}
