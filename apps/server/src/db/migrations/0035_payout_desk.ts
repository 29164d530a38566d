/**
 * The manual payout desk (docs/payout-desk.md): batches of withdraws the operator pays by hand
 * from the bank's own channel, and the outcome recorded for each.
 *
 * - An item carries its batch's status (`batch_status`), kept equal to it by the database: the
 *   composite foreign key on (batch_id, batch_status) cascades when the batch closes. That lets
 *   a partial unique index say what the rule says: a withdraw is in at most one OPEN batch,
 *   whatever the processes creating batches do.
 * - A closed batch has an outcome for every item: the CHECK on the item refuses the cascade
 *   (and so the closing UPDATE) while one is missing.
 * - An outcome is paid with the bank's reference, or failed with a reason, never both.
 */
export const statements: string[] = [
  `CREATE TABLE payout_batches (
    id uuid PRIMARY KEY,
    status text NOT NULL CHECK (status IN ('open', 'closed')),
    created_by text NOT NULL CHECK (char_length(created_by) BETWEEN 1 AND 100),
    item_count integer NOT NULL CHECK (item_count > 0),
    total_satang bigint NOT NULL CHECK (total_satang > 0),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    closed_at timestamptz,
    CONSTRAINT payout_batches_closed_at CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
    CONSTRAINT payout_batches_id_status UNIQUE (id, status)
  )`,
  `CREATE INDEX payout_batches_created ON payout_batches (created_at DESC, id DESC)`,
  `CREATE TABLE payout_batch_items (
    batch_id uuid NOT NULL,
    batch_status text NOT NULL,
    position integer NOT NULL CHECK (position >= 1),
    withdraw_id uuid NOT NULL REFERENCES withdraws (id),
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    amount_satang bigint NOT NULL CHECK (amount_satang > 0),
    outcome text CHECK (outcome IN ('paid', 'failed')),
    bank_reference text CHECK (char_length(bank_reference) BETWEEN 1 AND 100),
    failure_reason text CHECK (char_length(failure_reason) BETWEEN 1 AND 255),
    recorded_at timestamptz,
    PRIMARY KEY (batch_id, withdraw_id),
    CONSTRAINT payout_batch_items_position UNIQUE (batch_id, position),
    CONSTRAINT payout_batch_items_batch FOREIGN KEY (batch_id, batch_status)
      REFERENCES payout_batches (id, status) ON UPDATE CASCADE,
    CONSTRAINT payout_batch_items_outcome CHECK (
      (outcome IS NULL AND bank_reference IS NULL AND failure_reason IS NULL AND recorded_at IS NULL)
      OR (outcome = 'paid' AND bank_reference IS NOT NULL AND failure_reason IS NULL AND recorded_at IS NOT NULL)
      OR (outcome = 'failed' AND failure_reason IS NOT NULL AND bank_reference IS NULL AND recorded_at IS NOT NULL)
    ),
    CONSTRAINT payout_batch_items_closed_with_outcome CHECK (batch_status = 'open' OR outcome IS NOT NULL)
  )`,
  `CREATE UNIQUE INDEX payout_batch_items_open_withdraw ON payout_batch_items (withdraw_id)
    WHERE batch_status = 'open'`,
  `CREATE INDEX payout_batch_items_withdraw ON payout_batch_items (withdraw_id)`,
];
