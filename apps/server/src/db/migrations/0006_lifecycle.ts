/**
 * Lifecycles (docs/lifecycle.md): what moves payments and withdraws after they are created.
 *
 * - `payments.settled_at`: when a succeeded payment's amount moved from settlement pending to
 *   the wallet. The ledger's unique (subject, kind) index already refuses a second settlement;
 *   the column is what the settlement job's partial index finds due work by.
 * - `payouts`: one row per withdraw handed to a provider, written in the same transaction that
 *   moves the withdraw to processing and before the provider is called. It is the attempt
 *   record that lets a crashed or timed-out send be reconciled by asking the provider, with the
 *   same idempotency key (the withdraw id), instead of being sent again as a new payout.
 * - `provider_callbacks`: every provider report processed, keyed by the provider's own
 *   callback id, so the same callback delivered twice changes nothing the second time.
 * - `provider_anomalies`: provider reports the service refused although they may mean money
 *   moved (a payment confirmed after the late-confirmation window, a payout reported paid for a
 *   canceled withdraw, ...), kept for the operator.
 * - `sandbox_payouts`: the simulated bank's own book of payouts. It lives in the database, not
 *   in process memory, so every server and worker process sees the same simulated bank.
 */
export const statements: string[] = [
  `ALTER TABLE payments ADD COLUMN settled_at timestamptz`,
  `ALTER TABLE payments ADD CONSTRAINT payments_settled_only_succeeded CHECK (
    settled_at IS NULL OR status = 'succeeded')`,
  // Payments waiting for the customer, by the time they expire: the expiry job's due scan.
  `CREATE INDEX payments_expiry_due ON payments (expires_at)
    WHERE status IN ('requires_payment_method', 'requires_confirmation', 'requires_action')`,
  // Succeeded payments not settled yet, oldest capture first: the settlement job's due scan.
  `CREATE INDEX payments_settlement_due ON payments (captured_at)
    WHERE status = 'succeeded' AND settled_at IS NULL`,
  // Pending withdraws in the order they were created: the payout dispatcher's queue.
  `CREATE INDEX withdraws_pending_dispatch ON withdraws (created_at) WHERE status = 'pending'`,

  `CREATE TABLE payouts (
    withdraw_id uuid PRIMARY KEY REFERENCES withdraws (id),
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    provider text NOT NULL,
    idempotency_key text NOT NULL,
    state text NOT NULL CHECK (state IN ('sending', 'accepted', 'unknown', 'completed')),
    send_attempts integer NOT NULL CHECK (send_attempts >= 1),
    checks integer NOT NULL DEFAULT 0 CHECK (checks >= 0),
    provider_reference text,
    last_error text,
    next_check_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT payouts_idempotency_unique UNIQUE (provider, idempotency_key)
  )`,
  `CREATE INDEX payouts_due ON payouts (next_check_at) WHERE state <> 'completed'`,

  `CREATE TABLE provider_callbacks (
    provider text NOT NULL,
    callback_id text NOT NULL,
    subject_type text NOT NULL CHECK (subject_type IN ('payment', 'payout')),
    subject_id text NOT NULL,
    outcome text NOT NULL,
    result text NOT NULL CHECK (result IN ('applied', 'refused')),
    reason text,
    received_at timestamptz NOT NULL,
    PRIMARY KEY (provider, callback_id)
  )`,

  `CREATE TABLE provider_anomalies (
    id uuid PRIMARY KEY,
    merchant_id uuid REFERENCES merchants (id),
    provider text NOT NULL,
    subject_type text NOT NULL CHECK (subject_type IN ('payment', 'withdraw')),
    subject_id text NOT NULL,
    report text NOT NULL,
    subject_status text,
    reason text NOT NULL,
    message text NOT NULL,
    amount_satang bigint,
    callback_id text,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX provider_anomalies_created ON provider_anomalies (created_at DESC, id DESC)`,
  `CREATE INDEX provider_anomalies_merchant ON provider_anomalies (merchant_id, created_at DESC, id DESC)`,

  `CREATE TABLE sandbox_payouts (
    payout_key text PRIMARY KEY,
    amount_satang bigint NOT NULL CHECK (amount_satang > 0),
    status text NOT NULL CHECK (status IN ('accepted', 'paid', 'failed')),
    send_count integer NOT NULL CHECK (send_count >= 0),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
];
