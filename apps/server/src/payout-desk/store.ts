/**
 * SQL of the manual payout desk (docs/payout-desk.md): batches, their items (each a withdraw or
 * a refund, migration 0096), and claiming the pending withdraws and refunds a new batch takes.
 */
import { sql } from "kysely";
import { isFixedValue } from "../db/fixed-sets.ts";
import type { Db } from "../db/handles.ts";
import { type WithOffset, withOffsets } from "../db/rows.ts";
import type {
  PayoutBatchItemRow,
  PayoutBatchRow,
  PayoutBatchStatus,
  PayoutOutcome,
  RefundRow,
  WithdrawRow,
} from "../db/types.ts";
import { pageOffset } from "../lib/page-offset.ts";
import { type PayoutSubject, type PayoutSubjectKind, subjectColumn } from "../lib/payout-subjects.ts";
import { merchantOfRow } from "../lifecycle/business-time-sql.ts";

/**
 * Locks up to `limit` pending withdraws, oldest first, optionally of one merchant. `SKIP
 * LOCKED`: two batch creations running at once each take different withdraws, and neither
 * waits for the other; whatever the first takes is processing when it commits, so the second
 * never sees it pending again. A frozen or closed wallet's wait: a frozen wallet pays nothing
 * out (docs/payout-desk.md).
 */
export async function claimPendingForBatch(
  db: Db,
  options: { limit: number; merchantId?: string | undefined },
): Promise<WithOffset<WithdrawRow>[]> {
  let query = db
    .selectFrom("withdraws")
    .innerJoinLateral(merchantOfRow("withdraws"), (join) => join.onTrue())
    .selectAll("withdraws")
    .select("merchants.clock_offset_ms")
    .where(isFixedValue("withdraws.status", "pending"))
    .where("merchants.wallet_status", "=", "active");
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

/** The same for pending refunds: they are paid from the desk like withdraws. */
export async function claimPendingRefundsForBatch(
  db: Db,
  options: { limit: number; merchantId?: string | undefined },
): Promise<WithOffset<RefundRow>[]> {
  let query = db
    .selectFrom("refunds")
    .innerJoinLateral(merchantOfRow("refunds"), (join) => join.onTrue())
    .selectAll("refunds")
    .select("merchants.clock_offset_ms")
    .where(isFixedValue("refunds.status", "pending"))
    .where("merchants.wallet_status", "=", "active");
  if (options.merchantId !== undefined) query = query.where("refunds.merchant_id", "=", options.merchantId);
  const rows = await query
    .orderBy("refunds.created_at")
    .orderBy("refunds.id")
    .limit(options.limit)
    .forUpdate("refunds")
    .skipLocked()
    .execute();
  return withOffsets(rows);
}

/** One line of a new batch: a withdraw or a refund taken into it. */
export interface NewBatchLine {
  subject: PayoutSubject;
  merchantId: string;
  amountSatang: bigint;
}

export async function insertBatch(
  db: Db,
  batch: {
    id: string;
    createdBy: string;
    createdByOperator: string;
    itemCount: number;
    totalSatang: bigint;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto("payout_batches")
    .values({
      id: batch.id,
      status: "open",
      created_by: batch.createdBy,
      created_by_operator: batch.createdByOperator,
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
  lines: readonly NewBatchLine[],
): Promise<void> {
  await db
    .insertInto("payout_batch_items")
    .values(
      lines.map((line, index) => ({
        batch_id: batchId,
        batch_status: "open" as const,
        position: index + 1,
        withdraw_id: line.subject.kind === "withdraw" ? line.subject.id : null,
        refund_id: line.subject.kind === "refund" ? line.subject.id : null,
        merchant_id: line.merchantId,
        amount_satang: line.amountSatang,
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
      .offset(pageOffset(options.page, options.limit))
      .execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows, total: total.total };
}

/**
 * An item with the withdraw or refund it pays, as the operator's views and the CSV show it. A
 * refund is paid to its destination: the payment's customer account unless the refund named one.
 */
export interface BatchItemView extends PayoutBatchItemRow {
  kind: PayoutSubjectKind;
  withdraw_status: WithdrawRow["status"] | null;
  refund_status: RefundRow["status"] | null;
  reference_id: string;
  destination_type: WithdrawRow["destination_type"];
  bank_code: string;
  bank_account_number: string;
  bank_account_name: string;
}

export async function listBatchItems(db: Db, batchId: string): Promise<BatchItemView[]> {
  const rows = await db
    .selectFrom("payout_batch_items as i")
    .leftJoin("withdraws as w", "w.id", "i.withdraw_id")
    .leftJoin("refunds as r", "r.id", "i.refund_id")
    .selectAll("i")
    .select([
      "w.status as withdraw_status",
      "r.status as refund_status",
      sql<string>`coalesce(w.reference_id, r.reference_id)`.as("reference_id"),
      sql<WithdrawRow["destination_type"]>`coalesce(w.destination_type, 'bank_account')`.as(
        "destination_type",
      ),
      sql<string>`coalesce(w.bank_code, r.bank_code)`.as("bank_code"),
      sql<string>`coalesce(w.bank_account_number, r.bank_account_number)`.as("bank_account_number"),
      sql<string>`coalesce(w.bank_account_name, r.bank_account_name)`.as("bank_account_name"),
    ])
    .where("i.batch_id", "=", batchId)
    .orderBy("i.position")
    .execute();
  return rows.map((row) => ({ ...row, kind: row.refund_id === null ? "withdraw" : "refund" }));
}

/** Locks the batch row: outcomes of one batch are recorded one at a time, so the last closes it. */
export async function lockBatch(db: Db, id: string): Promise<PayoutBatchRow | undefined> {
  return db.selectFrom("payout_batches").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
}

export async function lockBatchItem(
  db: Db,
  batchId: string,
  subject: PayoutSubject,
): Promise<PayoutBatchItemRow | undefined> {
  return db
    .selectFrom("payout_batch_items")
    .selectAll()
    .where("batch_id", "=", batchId)
    .where(subjectColumn(subject.kind), "=", subject.id)
    .forUpdate()
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
  key: { batchId: string; subject: PayoutSubject },
  outcome: {
    outcome: PayoutOutcome;
    bankReference: string | null;
    failureReason: string | null;
    /** The outcome recorded before: null for a line without one, `failed` for the late success. */
    replacing: PayoutOutcome | null;
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
    .where(subjectColumn(key.subject.kind), "=", key.subject.id)
    .where("outcome", outcome.replacing === null ? "is" : "=", outcome.replacing)
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
