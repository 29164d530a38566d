/** Batch rows -> the records the operator API answers (schemas.ts). */
import { maskAccountNumber } from "../lib/account-number.ts";
import { findBank } from "../lib/bank-codes.ts";
import { formatAmount } from "../lib/money.ts";
import type { BatchItemRecord, BatchRecord, BatchSummaryRecord } from "./schemas.ts";
import type { BatchItemView, BatchSummaryRow } from "./store.ts";

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());

export function batchSummaryView(row: BatchSummaryRow): BatchSummaryRecord {
  return {
    id: row.id,
    status: row.status,
    createdBy: row.created_by,
    createdByOperator: row.created_by_operator,
    itemCount: row.item_count,
    totalAmount: formatAmount(row.total_satang),
    paidCount: row.paid_count,
    failedCount: row.failed_count,
    openCount: row.item_count - row.paid_count - row.failed_count,
    paidAmount: formatAmount(BigInt(row.paid_satang)),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    closedAt: iso(row.closed_at),
  };
}

export function batchItemView(item: BatchItemView): BatchItemRecord {
  return {
    position: item.position,
    kind: item.kind,
    withdrawId: item.withdraw_id,
    refundId: item.refund_id,
    merchantId: item.merchant_id,
    referenceId: item.reference_id,
    amount: formatAmount(item.amount_satang),
    destinationType: item.destination_type,
    bankCode: item.bank_code,
    bankName: findBank(item.bank_code)?.name ?? null,
    bankNameTh: findBank(item.bank_code)?.nameTh ?? null,
    bankAccountNumber: maskAccountNumber(item.bank_account_number),
    bankAccountName: item.bank_account_name,
    withdrawStatus: item.withdraw_status,
    refundStatus: item.refund_status,
    outcome: item.outcome,
    bankReference: item.bank_reference,
    failureReason: item.failure_reason,
    recordedAt: iso(item.recorded_at),
    recordedBy: item.recorded_by,
    recordedVia: item.recorded_via,
  };
}

/** What an item's line says of its outcome: open until one is recorded. */
export function itemStatus(item: Pick<BatchItemView, "outcome">): "open" | "paid" | "failed" {
  return item.outcome ?? "open";
}

/** Who recorded an outcome, for people: "admin-token via desk"; empty while there is none. */
export function recordedByText(item: Pick<BatchItemView, "recorded_by" | "recorded_via">): string {
  if (item.recorded_by === null) return "";
  return item.recorded_via === null ? item.recorded_by : `${item.recorded_by} via ${item.recorded_via}`;
}

export function batchView(row: BatchSummaryRow, items: readonly BatchItemView[]): BatchRecord {
  return { ...batchSummaryView(row), items: items.map(batchItemView) };
}
