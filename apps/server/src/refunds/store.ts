/**
 * SQL of refunds (CONTRACT 16). Every read of the public API is scoped by merchant.
 *
 * The refundable-amount rule lives in one conditional UPDATE of the payment
 * (`addRefunded`): it adds the refund to `payments.refunded_satang` only while the sum stays
 * within the payment's amount, under the payment's row lock, so concurrent refunds of one
 * payment in any number of processes cannot together pass it; and the CHECK of 0086 refuses
 * a sum over the amount whatever a caller does.
 */
import { sql } from "kysely";
import { afterLastChange, notBeforeLastChange } from "../db/change-times.ts";
import type { Db, Trx } from "../db/handles.ts";
import { createdWithin, orderingOf, type SortColumns, selectPage } from "../db/pages.ts";
import type { NewRefund, PaymentRow, RefundRow, RefundStatus } from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";
import type { RefundSortField } from "./schemas.ts";

/** A payment as a refund sees it, locked, with its merchant's clock and wallet status. */
export type LockedPayment = PaymentRow & { clock_offset_ms: bigint; wallet_status: string };

/** Locks the merchant's payment for a refund decision (FOR UPDATE of the payment row only). */
export async function lockPaymentForRefund(
  trx: Trx,
  merchantId: string,
  paymentId: string,
): Promise<LockedPayment | undefined> {
  return trx
    .selectFrom("payments")
    .innerJoin("merchants", "merchants.id", "payments.merchant_id")
    .selectAll("payments")
    .select(["merchants.clock_offset_ms", "merchants.wallet_status"])
    .where("payments.merchant_id", "=", merchantId)
    .where("payments.id", "=", paymentId)
    .forUpdate("payments")
    .executeTakeFirst();
}

export async function isMerchantPayment(db: Db, merchantId: string, paymentId: string): Promise<boolean> {
  const row = await db
    .selectFrom("payments")
    .select("id")
    .where("merchant_id", "=", merchantId)
    .where("id", "=", paymentId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Locks a payment by id (a refund's release), for its settlement state. */
export async function lockPaymentById(trx: Trx, paymentId: string): Promise<PaymentRow | undefined> {
  return trx.selectFrom("payments").selectAll().where("id", "=", paymentId).forUpdate().executeTakeFirst();
}

/**
 * Adds a refund to its payment's refunded sum when it stays within the payment's amount.
 * Undefined when it would not (nothing is changed).
 */
export async function addRefunded(
  trx: Trx,
  change: { paymentId: string; amountSatang: bigint; settlementPartSatang: bigint },
): Promise<{ refunded_satang: bigint } | undefined> {
  return trx
    .updateTable("payments")
    .set({
      refunded_satang: sql`refunded_satang + ${change.amountSatang}`,
      refund_settlement_satang: sql`refund_settlement_satang + ${change.settlementPartSatang}`,
    })
    .where("id", "=", change.paymentId)
    .where(sql<boolean>`refunded_satang + ${change.amountSatang} <= amount_satang`)
    .returning("refunded_satang")
    .executeTakeFirst();
}

/** Takes a refund that ended unpaid off its payment's refunded sum. */
export async function subtractRefunded(
  trx: Trx,
  change: { paymentId: string; amountSatang: bigint; settlementPartSatang: bigint },
): Promise<void> {
  await trx
    .updateTable("payments")
    .set({
      refunded_satang: sql`refunded_satang - ${change.amountSatang}`,
      refund_settlement_satang: sql`refund_settlement_satang - ${change.settlementPartSatang}`,
    })
    .where("id", "=", change.paymentId)
    .execute();
}

/**
 * Keeps a refund that was just failed (and taken off its payment's refunded sum) on that sum
 * again, marked withheld: the operator failed it (lifecycle/undecided.ts), the bank has not, and
 * may still pay it. No second refund can take that amount meanwhile, and the bank's late payment
 * is booked as the refund's late success rather than refused as an over-refund
 * (reports.ts). Called in the failure's transaction, after the move. The
 * payment's row is locked already (the failure's release locked it), and the refund was counted
 * on it a moment before, so the sum stays within the payment's amount.
 */
export async function withholdRefundable(
  trx: Trx,
  row: Pick<RefundRow, "id" | "payment_id" | "amount_satang">,
) {
  await trx
    .updateTable("payments")
    .set({ refunded_satang: sql`refunded_satang + ${row.amount_satang}` })
    .where("id", "=", row.payment_id)
    .execute();
  await trx.updateTable("refunds").set({ refundable_withheld: true }).where("id", "=", row.id).execute();
}

/**
 * The bank says a withheld refund (`withholdRefundable`) was not paid: its amount leaves the
 * payment's refunded sum, and may be refunded again. Nothing when it is not withheld.
 */
export async function returnWithheld(trx: Trx, refundId: string): Promise<void> {
  const returned = await trx
    .updateTable("refunds")
    .set({ refundable_withheld: false })
    .where("id", "=", refundId)
    .where("refundable_withheld", "=", true)
    .returning(["payment_id", "amount_satang"])
    .executeTakeFirst();
  if (!returned) return;
  await trx
    .updateTable("payments")
    .set({ refunded_satang: sql`refunded_satang - ${returned.amount_satang}` })
    .where("id", "=", returned.payment_id)
    .execute();
}

/**
 * A withheld refund the bank paid after all: it is on its payment's refunded sum already, so its
 * late success adds only the part it takes from the payment's settlement, and it is no longer
 * withheld.
 */
export async function takeWithheld(
  trx: Trx,
  change: { refundId: string; paymentId: string; settlementPartSatang: bigint },
): Promise<void> {
  await trx
    .updateTable("payments")
    .set({ refund_settlement_satang: sql`refund_settlement_satang + ${change.settlementPartSatang}` })
    .where("id", "=", change.paymentId)
    .execute();
  await trx
    .updateTable("refunds")
    .set({ refundable_withheld: false })
    .where("id", "=", change.refundId)
    .execute();
}

/** Records the part of a refund taken from its payment's settlement (a late success retakes it). */
export async function setSettlementPart(
  trx: Trx,
  refundId: string,
  settlementPartSatang: bigint,
): Promise<void> {
  await trx
    .updateTable("refunds")
    .set({ settlement_part_satang: settlementPartSatang })
    .where("id", "=", refundId)
    .execute();
}

export async function insertRefund(trx: Trx, row: NewRefund): Promise<RefundRow> {
  return trx.insertInto("refunds").values(row).returningAll().executeTakeFirstOrThrow();
}

/** True when `error` is the unique violation of a refund's id, reference id or idempotency key. */
export function isRefundKeyConflict(error: unknown): boolean {
  const fields = error as { code?: unknown; table?: unknown; constraint?: unknown } | null;
  if (fields?.code !== "23505") return false;
  return (
    fields.table === "refunds" ||
    (typeof fields.constraint === "string" && fields.constraint.startsWith("refunds_"))
  );
}

/** The merchant's refunds holding this idempotency key or this reference (at most two). */
export async function findRefundsByKeys(
  db: Db,
  merchantId: string,
  keys: { idempotencyKey: string; referenceId: string },
): Promise<RefundRow[]> {
  return db
    .selectFrom("refunds")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where((eb) =>
      eb.or([eb("idempotency_key", "=", keys.idempotencyKey), eb("reference_id", "=", keys.referenceId)]),
    )
    .execute();
}

export async function findRefund(db: Db, merchantId: string, id: string): Promise<RefundRow | undefined> {
  return db
    .selectFrom("refunds")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function findRefundById(db: Db, id: string): Promise<RefundRow | undefined> {
  return db.selectFrom("refunds").selectAll().where("id", "=", id).executeTakeFirst();
}

/** Locks a refund row (the lifecycle's first lock on a refund), with its merchant's clock. */
export async function lockRefund(
  trx: Trx,
  id: string,
): Promise<(RefundRow & { clock_offset_ms: bigint; wallet_status: string }) | undefined> {
  return trx
    .selectFrom("refunds")
    .innerJoin("merchants", "merchants.id", "refunds.merchant_id")
    .selectAll("refunds")
    .select(["merchants.clock_offset_ms", "merchants.wallet_status"])
    .where("refunds.id", "=", id)
    .forUpdate("refunds")
    .executeTakeFirst();
}

export type RefundStamps = Partial<Record<"succeeded_at" | "failed_at" | "canceled_at", Date>> & {
  failure_reason?: string | null;
};

/** Moves a refund to `to` when its status is one of `from`; undefined (nothing written) otherwise. */
export async function updateRefundStatus(
  trx: Trx,
  change: {
    id: string;
    merchantId: string | undefined;
    from: readonly RefundStatus[];
    to: RefundStatus;
    at: Date;
    stamps: RefundStamps;
  },
): Promise<RefundRow | undefined> {
  let update = trx
    .updateTable("refunds")
    .set({
      status: change.to,
      updated_at: afterLastChange(change.at),
      ...Object.fromEntries(
        Object.entries(change.stamps).map(([column, value]) => [
          column,
          value instanceof Date ? notBeforeLastChange(value) : value,
        ]),
      ),
    })
    .where("id", "=", change.id)
    .where("status", "in", change.from);
  if (change.merchantId !== undefined) update = update.where("merchant_id", "=", change.merchantId);
  return update.returningAll().executeTakeFirst();
}

const SORT: SortColumns<RefundSortField> = {
  columns: {
    amount: "amount_satang",
    status: "status",
    createdAt: "created_at",
    referenceId: "reference_id",
  },
  byteOrdered: ["status", "referenceId"],
  emptyLast: [],
};

export interface RefundFilters {
  paymentId: string | undefined;
  status: RefundStatus | undefined;
}

export async function listRefundRows(
  db: Db,
  merchantId: string,
  filters: RefundFilters,
  params: ListParams<RefundSortField>,
): Promise<{ rows: RefundRow[]; total: number }> {
  let query = db.selectFrom("refunds").where("merchant_id", "=", merchantId);
  if (filters.paymentId !== undefined) query = query.where("payment_id", "=", filters.paymentId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  query = createdWithin(query, params);
  return selectPage(query, params, orderingOf(SORT, params));
}
