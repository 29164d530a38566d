/**
 * The public withdraw record: exactly the fields of interface.md's Withdraw table, with every
 * nullable field present as `null` (CONTRACT 0). The account number is stored in full (the
 * payout needs it) but only ever leaves masked, last four digits visible (CONTRACT 4).
 *
 * Statuses are shown as stored, including `awaiting_verification` and `expired`, which
 * interface.md names for the limit and guard rules: hiding them behind `pending` or `failed`
 * would tell the merchant something untrue about where its money is.
 */
import type { WithdrawRow } from "../db/types.ts";
import { maskAccountNumber } from "../lib/account-number.ts";
import { formatAmount } from "../lib/money.ts";
import type { WithdrawRecord } from "./schemas.ts";

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());

/** The columns the record is made of: a list reads only these (withdraws/store.ts). */
export const WITHDRAW_VIEW_COLUMNS = [
  "id",
  "amount_satang",
  "status",
  "reference_id",
  "destination_type",
  "bank_account_number",
  "bank_account_name",
  "bank_code",
  "destination_id",
  "description",
  "metadata",
  "paid_at",
  "canceled_at",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof WithdrawRow)[];

/** A withdraw as far as its record needs: the view cannot read a column a list leaves out. */
export type WithdrawViewRow = Pick<WithdrawRow, (typeof WITHDRAW_VIEW_COLUMNS)[number]>;

export function withdrawView(row: WithdrawViewRow): WithdrawRecord {
  return {
    id: row.id,
    amount: formatAmount(row.amount_satang),
    currency: "THB",
    status: row.status,
    referenceId: row.reference_id,
    destinationType: row.destination_type,
    bankAccountNumber: maskAccountNumber(row.bank_account_number),
    bankAccountName: row.bank_account_name,
    bankCode: row.bank_code,
    destinationId: row.destination_id,
    description: row.description,
    metadata: row.metadata,
    paidAt: iso(row.paid_at),
    canceledAt: iso(row.canceled_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
