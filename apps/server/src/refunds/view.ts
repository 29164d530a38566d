/**
 * The public refund record (CONTRACT 16): every field, nullable ones present as `null`
 * (CONTRACT 0). The destination account number is stored in full (the payout needs it) and
 * only ever leaves masked (CONTRACT 4).
 */
import type { RefundRow } from "../db/types.ts";
import { maskAccountNumber } from "../lib/account-number.ts";
import { formatAmount } from "../lib/money.ts";
import type { RefundRecord } from "./schemas.ts";

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());

export function refundView(row: RefundRow): RefundRecord {
  return {
    id: row.id,
    paymentId: row.payment_id,
    amount: formatAmount(row.amount_satang),
    currency: "THB",
    status: row.status,
    referenceId: row.reference_id,
    reason: row.reason,
    metadata: row.metadata,
    failureReason: row.failure_reason,
    destination: {
      bankCode: row.bank_code,
      accountNumber: maskAccountNumber(row.bank_account_number),
      accountName: row.bank_account_name,
    },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    succeededAt: iso(row.succeeded_at),
    failedAt: iso(row.failed_at),
    canceledAt: iso(row.canceled_at),
  };
}
