/**
 * Refunds (CONTRACT 16): a merchant gives a succeeded payment's money back, in whole or in part.
 *
 * - `refunds`: one row per refund, unique per merchant by reference and by idempotency key.
 *   `settlement_part_satang` is the part taken from the payment's own settlement (the rest was
 *   held from the wallet), so a release puts each part back where it came from.
 * - `payments.refunded_satang`: the sum of the payment's refunds that are not failed or
 *   canceled, and `payments.refund_settlement_satang` the part of it taken from settlement.
 *   The first is the refundable-amount rule in the database: a CHECK keeps it within the
 *   payment's amount, whatever a caller does (ARCHITECTURE "pair assertions").
 * - The closed lists of event types, event object types, ledger kinds and ledger subjects
 *   gain the refund's.
 */
export const statements: string[] = [
  `CREATE TABLE refunds (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    payment_id uuid NOT NULL REFERENCES payments (id),
    integration_id uuid,
    amount_satang bigint NOT NULL CHECK (amount_satang > 0),
    settlement_part_satang bigint NOT NULL,
    currency text NOT NULL CHECK (currency = 'THB'),
    status text NOT NULL CHECK (status IN ('pending', 'processing', 'succeeded', 'failed', 'canceled')),
    reference_id text NOT NULL,
    reason text,
    metadata jsonb,
    failure_reason text,
    bank_code text NOT NULL,
    bank_account_number text NOT NULL,
    bank_account_name text NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    succeeded_at timestamptz,
    failed_at timestamptz,
    canceled_at timestamptz,
    CONSTRAINT refunds_merchant_reference UNIQUE (merchant_id, reference_id),
    CONSTRAINT refunds_merchant_idempotency_key UNIQUE (merchant_id, idempotency_key),
    CONSTRAINT refunds_settlement_part_within_amount CHECK (
      settlement_part_satang >= 0 AND settlement_part_satang <= amount_satang),
    CONSTRAINT refunds_succeeded_has_time CHECK (status <> 'succeeded' OR succeeded_at IS NOT NULL),
    CONSTRAINT refunds_failed_has_time CHECK (status <> 'failed' OR failed_at IS NOT NULL),
    CONSTRAINT refunds_canceled_has_time CHECK (status <> 'canceled' OR canceled_at IS NOT NULL)
  )`,
  `CREATE INDEX refunds_payment_created ON refunds (payment_id, created_at, id)`,
  `CREATE INDEX refunds_merchant_created ON refunds (merchant_id, created_at DESC, id DESC)`,
  `CREATE INDEX refunds_open_status ON refunds (status, created_at)
    WHERE status IN ('pending', 'processing')`,
  `ALTER TABLE payments
    ADD COLUMN refunded_satang bigint NOT NULL DEFAULT 0,
    ADD COLUMN refund_settlement_satang bigint NOT NULL DEFAULT 0`,
  `ALTER TABLE payments ADD CONSTRAINT payments_refunds_within_amount CHECK (
    refunded_satang >= 0 AND refunded_satang <= amount_satang
    AND refund_settlement_satang >= 0 AND refund_settlement_satang <= refunded_satang)`,
  `ALTER TABLE events DROP CONSTRAINT events_type_check`,
  `ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN ('payment.received',
    'payment.failed', 'payment.expired', 'payment.canceled', 'withdraw.processing',
    'withdraw.paid', 'withdraw.failed', 'withdraw.canceled', 'refund.processing',
    'refund.succeeded', 'refund.failed', 'refund.canceled'))`,
  `ALTER TABLE events DROP CONSTRAINT events_object_type_check`,
  `ALTER TABLE events ADD CONSTRAINT events_object_type_check
    CHECK (object_type IN ('payment', 'withdraw', 'refund'))`,
  `ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_kind_check`,
  `ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_kind_check CHECK (kind IN (
    'payment_succeeded', 'settlement', 'withdraw_hold', 'withdraw_release', 'withdraw_paid',
    'withdraw_late_success', 'operator_adjustment', 'refund_hold', 'refund_release',
    'refund_paid', 'refund_late_success'))`,
  `ALTER TABLE ledger_transactions DROP CONSTRAINT ledger_transactions_subject_type_check`,
  `ALTER TABLE ledger_transactions ADD CONSTRAINT ledger_transactions_subject_type_check
    CHECK (subject_type IN ('payment', 'withdraw', 'adjustment', 'refund'))`,
];
