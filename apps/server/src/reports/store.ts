/**
 * The reads behind the CSV exports: one batch of a merchant's rows created in [dateFrom, dateTo)
 * after a keyset position, oldest first with `id` breaking ties. An export reads batch after
 * batch and never holds more than one in memory; a row inserted meanwhile behind the position
 * is not revisited, one ahead of it is read when the export gets there.
 *
 * Business timestamps are written from the service's clock (whole milliseconds), so a position
 * taken from a JavaScript `Date` compares exactly.
 */
import { type RawBuilder, type SelectQueryBuilder, sql } from "kysely";
import type { Db } from "../db/handles.ts";
import type {
  DestinationType,
  LedgerAccountKind,
  LedgerTransactionKind,
  PaymentMethod,
  PaymentStatus,
  RefundStatus,
  WithdrawStatus,
} from "../db/types.ts";

/**
 * Where the last batch ended: the (created_at, id) of its last row, and for the ledger its
 * posting number (0 for an entry posted before entries were numbered).
 */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
  postingSeq?: bigint;
}

export interface ExportWindow {
  merchantId: string;
  dateFrom: Date;
  dateTo: Date;
  after: KeysetPosition | undefined;
  limit: number;
}

/**
 * Limits `query` to the window: created in [dateFrom, dateTo), after the position (a row
 * comparison `(created, id) > (at, id)`, or `(created, seq, id)` with a posting order),
 * oldest first, at most `limit` rows.
 */
// biome-ignore lint/suspicious/noExplicitAny: any select over any join of the schema
function inWindow<QB extends SelectQueryBuilder<any, any, any>>(
  query: QB,
  columns: { created: string; id: string; seq?: RawBuilder<bigint> },
  window: ExportWindow,
): QB {
  const created = sql.ref(columns.created);
  const id = sql.ref(columns.id);
  const seq = columns.seq;
  let filtered = query.where(created, ">=", window.dateFrom).where(created, "<", window.dateTo);
  const after = window.after;
  if (after && seq) {
    filtered = filtered.where(
      sql<boolean>`(${created}, ${seq}, ${id}) > (${after.createdAt}, ${after.postingSeq ?? 0n}, ${after.id})`,
    );
  } else if (after) {
    filtered = filtered.where(sql<boolean>`(${created}, ${id}) > (${after.createdAt}, ${after.id})`);
  }
  const ordered = filtered.orderBy(created, "asc");
  return (seq ? ordered.orderBy(seq, "asc") : ordered).orderBy(id, "asc").limit(window.limit) as QB;
}

export interface PaymentExportFilters {
  status?: PaymentStatus;
  paymentMethod?: PaymentMethod;
}

export async function paymentExportBatch(db: Db, window: ExportWindow, filters: PaymentExportFilters) {
  let query = db
    .selectFrom("payments")
    .select([
      "id",
      "reference_id",
      "status",
      "payment_method",
      "amount_satang",
      "currency",
      "customer_bank_account_name",
      "customer_bank_account_number",
      "customer_bank_code",
      "description",
      "created_at",
      "captured_at",
      "canceled_at",
      "expires_at",
    ])
    .where("merchant_id", "=", window.merchantId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.paymentMethod !== undefined) query = query.where("payment_method", "=", filters.paymentMethod);
  return inWindow(query, { created: "created_at", id: "id" }, window).execute();
}

export type PaymentExportRow = Awaited<ReturnType<typeof paymentExportBatch>>[number];

export interface WithdrawExportFilters {
  status?: WithdrawStatus;
  destinationType?: DestinationType;
}

export async function withdrawExportBatch(db: Db, window: ExportWindow, filters: WithdrawExportFilters) {
  let query = db
    .selectFrom("withdraws")
    .select([
      "id",
      "reference_id",
      "status",
      "destination_type",
      "amount_satang",
      "currency",
      "bank_account_name",
      "bank_account_number",
      "bank_code",
      "description",
      "created_at",
      "paid_at",
      "failed_at",
      "canceled_at",
    ])
    .where("merchant_id", "=", window.merchantId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.destinationType !== undefined)
    query = query.where("destination_type", "=", filters.destinationType);
  return inWindow(query, { created: "created_at", id: "id" }, window).execute();
}

export type WithdrawExportRow = Awaited<ReturnType<typeof withdrawExportBatch>>[number];

export interface LedgerExportFilters {
  type?: LedgerTransactionKind;
  account?: LedgerAccountKind;
}

/**
 * Ledger entries of the merchant's accounts, with their transaction and, for a payment, a
 * withdraw or a refund, its reference, status and account (masked by the caller).
 */
/**
 * Entries of one instant in the order they were posted (migration 0116), so each account's
 * `balance_after` follows down the file; entries posted before the numbering count as 0 and
 * keep their order by id.
 */
const POSTING_ORDER = sql<bigint>`coalesce(e.posting_seq, 0)`;

export async function ledgerExportBatch(db: Db, window: ExportWindow, filters: LedgerExportFilters) {
  let query = db
    .selectFrom("ledger_entries as e")
    .innerJoin("ledger_transactions as t", "t.id", "e.transaction_id")
    .innerJoin("ledger_accounts as a", "a.id", "e.account_id")
    .leftJoin("payments as p", (join) =>
      join.on("t.subject_type", "=", "payment").onRef("p.id", "=", "t.subject_id"),
    )
    .leftJoin("withdraws as w", (join) =>
      join.on("t.subject_type", "=", "withdraw").onRef("w.id", "=", "t.subject_id"),
    )
    .leftJoin("refunds as r", (join) =>
      join.on("t.subject_type", "=", "refund").onRef("r.id", "=", "t.subject_id"),
    )
    .select([
      "e.id as id",
      "t.id as transaction_id",
      "t.kind as kind",
      "a.kind as account",
      "t.subject_type as subject_type",
      "t.subject_id as subject_id",
      "t.reason as reason",
      "e.amount_satang as amount_satang",
      "e.balance_after_satang as balance_after_satang",
      POSTING_ORDER.as("posting_seq"),
      "t.created_at as created_at",
      "p.reference_id as payment_reference",
      "p.status as payment_status",
      "p.customer_bank_account_number as payment_account",
      "w.reference_id as withdraw_reference",
      "w.status as withdraw_status",
      "w.bank_account_number as withdraw_account",
      "r.reference_id as refund_reference",
      "r.status as refund_status",
      "r.bank_account_number as refund_account",
    ])
    .where("t.merchant_id", "=", window.merchantId)
    .where("a.merchant_id", "=", window.merchantId);
  if (filters.type !== undefined) query = query.where("t.kind", "=", filters.type);
  if (filters.account !== undefined) query = query.where("a.kind", "=", filters.account);
  return inWindow(query, { created: "t.created_at", id: "e.id", seq: POSTING_ORDER }, window).execute();
}

export type LedgerExportRow = Awaited<ReturnType<typeof ledgerExportBatch>>[number];

export interface RefundExportFilters {
  status?: RefundStatus;
  paymentId?: string;
}

export async function refundExportBatch(db: Db, window: ExportWindow, filters: RefundExportFilters) {
  let query = db
    .selectFrom("refunds")
    .select([
      "id",
      "payment_id",
      "reference_id",
      "status",
      "amount_satang",
      "currency",
      "reason",
      "failure_reason",
      "bank_account_name",
      "bank_account_number",
      "bank_code",
      "created_at",
      "succeeded_at",
      "failed_at",
      "canceled_at",
    ])
    .where("merchant_id", "=", window.merchantId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.paymentId !== undefined) query = query.where("payment_id", "=", filters.paymentId);
  return inWindow(query, { created: "created_at", id: "id" }, window).execute();
}

export type RefundExportRow = Awaited<ReturnType<typeof refundExportBatch>>[number];
