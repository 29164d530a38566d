/**
 * Live collection and payouts through SCB (docs/providers/scb.md).
 *
 * - `payments.collection_reference`: the ref1 of a live PromptPay payment's bill payment QR
 *   (upper-case A-Z 0-9, at most 20). The customer's bank pays the operator's biller id under
 *   it, so it is unique across the deployment, not only per merchant.
 * - `scb_confirmations`: every payment confirmation SCB posted, one row per SCB transaction id,
 *   with what its check decided. A confirmation whose check could not be made (SCB unreachable)
 *   stays `unavailable` and the reconciler checks it again.
 * - `scb_payment_checks`: when the reconciler next asks SCB about a payment whose confirmation
 *   may have been lost.
 * - `scb_transfers`: one credit transfer per withdraw. The tokenizer id SCB answered to the
 *   credit initiate is stored here before any confirm is sent, and `confirm_sent_at` is set (by
 *   one conditional update) before the one confirm leaves, so no process ever confirms twice.
 * - `scb_exchanges`: every call to SCB and its answer, redacted, for the operator.
 *
 * Whether a transaction id was credited is `provider_callbacks` (provider 'scb', callback id =
 * SCB's transaction id): its primary key is the rule that one transaction credits once.
 */
export const statements: string[] = [
  `ALTER TABLE payments ADD COLUMN collection_reference text
    CHECK (collection_reference ~ '^[A-Z0-9]{1,20}$')`,
  `CREATE UNIQUE INDEX payments_collection_reference ON payments (collection_reference)
    WHERE collection_reference IS NOT NULL`,
  // Live PromptPay payments the reconciler asks SCB about: open ones, and expired ones within
  // the late-confirmation window.
  `CREATE INDEX payments_collection_open ON payments (created_at)
    WHERE collection_reference IS NOT NULL AND status IN ('requires_payment_method',
      'requires_confirmation', 'requires_action', 'processing', 'requires_capture', 'expired')`,

  `CREATE TABLE scb_confirmations (
    transaction_id text PRIMARY KEY,
    ref1 text NOT NULL,
    claimed_amount_satang bigint,
    claimed_biller_id text,
    paid_at timestamptz NOT NULL,
    payment_id uuid REFERENCES payments (id),
    status text NOT NULL CHECK (status IN ('received', 'verified', 'not_found', 'mismatch',
      'unavailable')),
    result text,
    detail text,
    deliveries integer NOT NULL CHECK (deliveries >= 1),
    checks integer NOT NULL DEFAULT 0 CHECK (checks >= 0),
    next_check_at timestamptz,
    received_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  `CREATE INDEX scb_confirmations_recheck ON scb_confirmations (next_check_at)
    WHERE status IN ('received', 'unavailable')`,

  `CREATE TABLE scb_payment_checks (
    payment_id uuid PRIMARY KEY REFERENCES payments (id),
    checks integer NOT NULL CHECK (checks >= 0),
    last_error text,
    next_check_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,

  `CREATE TABLE scb_transfers (
    withdraw_id uuid PRIMARY KEY REFERENCES withdraws (id),
    partner_transaction_id text NOT NULL UNIQUE CHECK (char_length(partner_transaction_id) = 25),
    amount_satang bigint NOT NULL CHECK (amount_satang > 0),
    tokenizer_id text NOT NULL UNIQUE,
    initiated_at timestamptz NOT NULL,
    confirm_sent_at timestamptz,
    scb_status text,
    last_error text,
    next_inquiry_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,

  `CREATE TABLE scb_exchanges (
    id bigserial PRIMARY KEY,
    operation text NOT NULL,
    request_uid text NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    attempt integer NOT NULL,
    started_at timestamptz NOT NULL,
    duration_ms integer NOT NULL,
    request_body jsonb,
    response_status integer,
    response_body jsonb,
    error text
  )`,
  `CREATE INDEX scb_exchanges_started ON scb_exchanges (started_at DESC, id DESC)`,
];
