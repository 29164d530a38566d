/**
 * The Opn transfer a payout's key names for another amount than the payout's, when Opn's list
 * shows one (docs/providers/opn.md): never adopted, never booked, and while it stands the operator
 * may not resolve the payout failed, since Opn may pay it (or has). Null otherwise; cleared when
 * Opn's list no longer shows a transfer under the key for another amount.
 */
export const statements: string[] = [`ALTER TABLE opn_transfers ADD COLUMN other_amount_transfer_id text`];
