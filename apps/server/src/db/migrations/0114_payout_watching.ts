/**
 * A payout the operator resolved `failed` while the bank had not said so is watched: its attempt
 * record moves to `watching` instead of `completed`, and the reconciler keeps asking the bank
 * about it (lifecycle/payouts.ts). If the bank shows the transfer executed after all, the
 * withdraw (or refund) is booked as a late success, debited again, and recorded for the
 * operator; if the bank shows it failed, or never received it, the record is completed. Nothing
 * is ever sent for a watched payout: its withdraw or refund is no longer `processing`, which every
 * connector step's fence requires (providers/payout-fence.ts).
 */
export const statements: string[] = [
  `ALTER TABLE payouts DROP CONSTRAINT payouts_state_check`,
  `ALTER TABLE payouts ADD CONSTRAINT payouts_state_check
    CHECK (state IN ('sending', 'accepted', 'unknown', 'completed', 'watching'))`,
];
