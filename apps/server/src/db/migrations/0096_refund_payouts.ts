/**
 * Refunds are paid out like withdraws (docs/refunds.md "Live", docs/lifecycle.md): the payout
 * attempt, the SCB transfer, the operator's resolution and the payout desk's batch item are each
 * about one "payout subject", a withdraw or a refund.
 *
 * - `payouts`, `scb_transfers`, `payout_resolutions`: `refund_id` beside `withdraw_id`, exactly one
 *   of them set (a CHECK), each unique, so a refund has at most one payout attempt, one SCB
 *   transfer and one resolution, as a withdraw has. The primary keys on `withdraw_id` become
 *   unique constraints (a primary key column cannot be null); every lookup by `withdraw_id` reads
 *   the same index as before.
 * - `payout_batch_items`: a refund is a line of a batch. The item key becomes (batch, withdraw) or
 *   (batch, refund), and a refund, like a withdraw, is in at most one open batch (a partial
 *   unique index on the mirrored batch status).
 * - `scb_exchanges.refund_id`: the refund whose transfer an exchange names, for the operator.
 * - `provider_anomalies.subject_type` gains `refund`: a refused bank answer about a refund.
 */
export const statements: string[] = [
  `ALTER TABLE payouts DROP CONSTRAINT payouts_pkey`,
  `ALTER TABLE payouts ALTER COLUMN withdraw_id DROP NOT NULL`,
  `ALTER TABLE payouts ADD COLUMN refund_id uuid REFERENCES refunds (id)`,
  `ALTER TABLE payouts
    ADD CONSTRAINT payouts_withdraw_unique UNIQUE (withdraw_id),
    ADD CONSTRAINT payouts_refund_unique UNIQUE (refund_id),
    ADD CONSTRAINT payouts_one_subject CHECK ((withdraw_id IS NULL) <> (refund_id IS NULL))`,

  `ALTER TABLE scb_transfers DROP CONSTRAINT scb_transfers_pkey`,
  `ALTER TABLE scb_transfers ALTER COLUMN withdraw_id DROP NOT NULL`,
  `ALTER TABLE scb_transfers ADD COLUMN refund_id uuid REFERENCES refunds (id)`,
  `ALTER TABLE scb_transfers
    ADD CONSTRAINT scb_transfers_withdraw_unique UNIQUE (withdraw_id),
    ADD CONSTRAINT scb_transfers_refund_unique UNIQUE (refund_id),
    ADD CONSTRAINT scb_transfers_one_subject CHECK ((withdraw_id IS NULL) <> (refund_id IS NULL))`,

  `ALTER TABLE payout_resolutions DROP CONSTRAINT payout_resolutions_pkey`,
  `ALTER TABLE payout_resolutions ALTER COLUMN withdraw_id DROP NOT NULL`,
  `ALTER TABLE payout_resolutions ADD COLUMN refund_id uuid REFERENCES refunds (id)`,
  `ALTER TABLE payout_resolutions
    ADD CONSTRAINT payout_resolutions_withdraw_unique UNIQUE (withdraw_id),
    ADD CONSTRAINT payout_resolutions_refund_unique UNIQUE (refund_id),
    ADD CONSTRAINT payout_resolutions_one_subject CHECK ((withdraw_id IS NULL) <> (refund_id IS NULL))`,

  `ALTER TABLE payout_batch_items DROP CONSTRAINT payout_batch_items_pkey`,
  `ALTER TABLE payout_batch_items ALTER COLUMN withdraw_id DROP NOT NULL`,
  `ALTER TABLE payout_batch_items ADD COLUMN refund_id uuid REFERENCES refunds (id)`,
  `ALTER TABLE payout_batch_items
    ADD CONSTRAINT payout_batch_items_batch_withdraw UNIQUE (batch_id, withdraw_id),
    ADD CONSTRAINT payout_batch_items_batch_refund UNIQUE (batch_id, refund_id),
    ADD CONSTRAINT payout_batch_items_one_subject CHECK ((withdraw_id IS NULL) <> (refund_id IS NULL))`,
  `CREATE UNIQUE INDEX payout_batch_items_open_refund ON payout_batch_items (refund_id)
    WHERE batch_status = 'open' AND refund_id IS NOT NULL`,
  `CREATE INDEX payout_batch_items_refund ON payout_batch_items (refund_id) WHERE refund_id IS NOT NULL`,

  `ALTER TABLE scb_exchanges ADD COLUMN refund_id uuid`,
  `CREATE INDEX scb_exchanges_refund ON scb_exchanges (refund_id, started_at DESC, id DESC)
    WHERE refund_id IS NOT NULL`,

  `ALTER TABLE provider_anomalies DROP CONSTRAINT provider_anomalies_subject_type_check`,
  `ALTER TABLE provider_anomalies ADD CONSTRAINT provider_anomalies_subject_type_check
    CHECK (subject_type IN ('payment', 'withdraw', 'refund'))`,
];
