/**
 * Payout money safety (docs/providers/scb.md "Undecided transfers", CONTRACT 15).
 *
 * - `scb_transfers` is written before the first credit initiate leaves, not after its answer:
 *   `state` says where the transfer stands (`initiating`: initiates may have reached SCB, no
 *   tokenizer is known; `initiated`: the tokenizer is stored; `rejected`: the first and only
 *   initiate was refused, so nothing exists to confirm; `closed`: no confirm will ever be sent
 *   again, the fence taken before a transfer is failed on SCB's inquiry). `initiate_attempts`
 *   counts the initiates that may have reached SCB: only the refusal of the first and only one
 *   is final. The tokenizer id is null until an initiate answers one.
 * - `payouts.undecided_alerted_at`: when the alert for a payout left undecided past
 *   PAYOUT_UNDECIDED_ALERT_S was raised (logged once per payout).
 * - `payout_resolutions`: the operator's decision on an undecided payout: who decided (an actor
 *   string, today `admin_token`, later a named operator token), the outcome, the reason, the
 *   bank's reference and the bank's evidence as the operator saw it. One per withdraw.
 */
export const statements: string[] = [
  `ALTER TABLE scb_transfers ALTER COLUMN tokenizer_id DROP NOT NULL`,
  `ALTER TABLE scb_transfers ADD COLUMN state text NOT NULL DEFAULT 'initiated'
    CHECK (state IN ('initiating', 'initiated', 'rejected', 'closed'))`,
  `ALTER TABLE scb_transfers ADD COLUMN initiate_attempts integer NOT NULL DEFAULT 1
    CHECK (initiate_attempts >= 0)`,
  // A transfer whose confirm may be claimed has its tokenizer; one still initiating has none.
  `ALTER TABLE scb_transfers ADD CONSTRAINT scb_transfers_tokenizer_known
    CHECK (state IN ('initiating', 'rejected') OR tokenizer_id IS NOT NULL)`,
  `ALTER TABLE scb_transfers ADD CONSTRAINT scb_transfers_confirm_needs_tokenizer
    CHECK (confirm_sent_at IS NULL OR tokenizer_id IS NOT NULL)`,

  `ALTER TABLE payouts ADD COLUMN undecided_alerted_at timestamptz`,
  // The undecided list and the alert: open payouts by age.
  `CREATE INDEX payouts_open_created ON payouts (created_at) WHERE state <> 'completed'`,

  `CREATE TABLE payout_resolutions (
    withdraw_id uuid PRIMARY KEY REFERENCES withdraws (id),
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    provider text NOT NULL,
    outcome text NOT NULL CHECK (outcome IN ('paid', 'failed')),
    reason text NOT NULL CHECK (char_length(reason) BETWEEN 1 AND 500),
    bank_reference text CHECK (char_length(bank_reference) BETWEEN 1 AND 100),
    actor text NOT NULL CHECK (char_length(actor) BETWEEN 1 AND 200),
    evidence jsonb,
    request_id text,
    created_at timestamptz NOT NULL
  )`,
];
