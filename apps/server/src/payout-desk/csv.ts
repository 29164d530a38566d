/**
 * The batch file the operator pays from (docs/payout-desk.md has the layout column by column).
 * RFC 4180: comma-separated, CRLF line ends, a field quoted when it holds a comma, a double
 * quote, CR or LF, with quotes doubled inside. Preceded by a UTF-8 byte order mark so that a
 * spreadsheet shows Thai account names correctly.
 *
 * Spreadsheet-injection safe: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a CR is
 * prefixed with `'`, so a spreadsheet shows it as text instead of running it as a formula. The
 * account number is printed in full: this file is the operator's only, and the bank needs it.
 *
 * The columns the bank needs come first and keep their places; after them, what the desk knows
 * of each line (its destination type, and whether it is paid, failed or still open, with the
 * bank reference or the reason and who recorded it), so a file downloaded again shows which
 * lines are left to pay. A batch that holds refunds has two more columns at the end, saying what
 * each line pays: `kind` is `withdraw` or `refund`, and a refund's line carries its id in
 * `refund_id` (its `withdraw_id` is empty). A batch of withdraws alone keeps the file it always had.
 */
import { findBank } from "../lib/bank-codes.ts";
import { formatThb } from "../lib/money.ts";
import type { BatchItemView } from "./store.ts";
import { itemStatus, recordedByText } from "./view.ts";

export const BATCH_CSV_COLUMNS = [
  "bank_code",
  "bank_name",
  "account_number",
  "account_name",
  "amount_thb",
  "withdraw_id",
  "reference",
  "destination_type",
  "status",
  "bank_reference",
  "failure_reason",
  "recorded_by",
] as const;

/** The columns a batch that holds refunds adds after BATCH_CSV_COLUMNS. */
export const BATCH_CSV_REFUND_COLUMNS = ["kind", "refund_id"] as const;

const BYTE_ORDER_MARK = "\uFEFF";

/** A cell as the file shows it: defused when a spreadsheet would read it as a formula, then quoted. */
export function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * An account name as the bank file carries it: a control or invisible character (which names
 * recorded before the API refused them may hold) as a space, as the desk page shows it, so no
 * bank's upload reads an escape sequence, a line break or a direction mark.
 */
export function shownName(name: string): string {
  return name.replace(/[\p{Cc}\p{Cf}]+/gu, " ");
}

function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

export function batchCsv(items: readonly BatchItemView[]): string {
  const withRefunds = items.some((item) => item.kind === "refund");
  const lines = [
    csvLine(withRefunds ? [...BATCH_CSV_COLUMNS, ...BATCH_CSV_REFUND_COLUMNS] : BATCH_CSV_COLUMNS),
  ];
  for (const item of items) {
    lines.push(
      csvLine([
        item.bank_code,
        findBank(item.bank_code)?.name ?? "",
        item.bank_account_number,
        shownName(item.bank_account_name),
        formatThb(item.amount_satang),
        item.withdraw_id ?? "",
        item.reference_id,
        item.destination_type,
        itemStatus(item),
        item.bank_reference ?? "",
        item.failure_reason ?? "",
        recordedByText(item),
        ...(withRefunds ? [item.kind, item.refund_id ?? ""] : []),
      ]),
    );
  }
  return BYTE_ORDER_MARK + lines.join("");
}
