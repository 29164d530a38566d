/**
 * The operator credential that created a payout batch (docs/payout-desk.md): `created_by` is the
 * label the request gave (a person's name at a desk several people share), and this column is the
 * name of the operator token the request came with, as the audit log has it, so a label cannot
 * pass a batch off as another operator's. Null for batches made before this column.
 */
export const statements: string[] = [`ALTER TABLE payout_batches ADD COLUMN created_by_operator text`];
