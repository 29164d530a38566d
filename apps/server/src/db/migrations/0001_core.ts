/**
 * Core schema: merchants, integrations, payments, operator settings and the signature replay
 * table. Money invariants live here too (CHECK constraints, unique indexes), so a bug in the
 * service cannot store a negative amount or a second record for one idempotency key.
 */
export const statements: string[] = [
  `CREATE TABLE merchants (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    daily_withdraw_limit_satang bigint CHECK (daily_withdraw_limit_satang > 0),
    monthly_withdraw_limit_satang bigint CHECK (monthly_withdraw_limit_satang > 0),
    settlement_delay_hours integer NOT NULL CHECK (settlement_delay_hours >= 0),
    collection_bank_code text,
    collection_account_number text,
    collection_account_name text,
    promptpay_id text,
    promptpay_reuse boolean NOT NULL DEFAULT true,
    wallet_status text NOT NULL DEFAULT 'active' CHECK (wallet_status IN ('active', 'frozen', 'closed')),
    withdraw_verification_threshold_satang bigint CHECK (withdraw_verification_threshold_satang > 0),
    clock_offset_ms bigint NOT NULL DEFAULT 0 CHECK (clock_offset_ms >= 0),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  `CREATE TABLE integrations (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    name text,
    api_key text NOT NULL UNIQUE,
    secret_encrypted text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('sandbox', 'live')),
    redirect_url text,
    require_signature_v2 boolean NOT NULL DEFAULT false,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX integrations_merchant ON integrations (merchant_id)`,
  `CREATE TABLE payments (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    integration_id uuid NOT NULL REFERENCES integrations (id),
    amount_satang bigint NOT NULL CHECK (amount_satang > 0),
    currency text NOT NULL CHECK (currency = 'THB'),
    status text NOT NULL CHECK (status IN ('requires_payment_method', 'requires_confirmation',
      'requires_action', 'processing', 'requires_capture', 'succeeded', 'canceled', 'expired',
      'payment_failed')),
    payment_method text CHECK (payment_method IN ('promptpay', 'bank_transfer')),
    reference_id text NOT NULL,
    description text,
    metadata jsonb,
    client_secret text NOT NULL,
    merchant_reference text,
    customer_bank_account_name text NOT NULL,
    customer_bank_account_number text NOT NULL,
    customer_bank_code text NOT NULL,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    qr_payload text,
    bank_transfer_reference text,
    redirect_url text,
    expires_at timestamptz,
    confirmed_at timestamptz,
    captured_at timestamptz,
    canceled_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT payments_reference_unique UNIQUE (merchant_id, reference_id),
    CONSTRAINT payments_idempotency_unique UNIQUE (merchant_id, idempotency_key),
    CONSTRAINT payments_transfer_reference_unique UNIQUE (merchant_id, bank_transfer_reference),
    CONSTRAINT payments_canceled_has_time CHECK (status <> 'canceled' OR canceled_at IS NOT NULL)
  )`,
  `CREATE INDEX payments_merchant_created ON payments (merchant_id, created_at DESC, id DESC)`,
  `CREATE INDEX payments_merchant_status_created ON payments (merchant_id, status, created_at DESC, id DESC)`,
  `CREATE INDEX payments_open_promptpay ON payments
    (merchant_id, customer_bank_code, customer_bank_account_number, amount_satang)
    WHERE payment_method = 'promptpay' AND status IN ('requires_payment_method',
      'requires_confirmation', 'requires_action', 'processing', 'requires_capture')`,
  `CREATE INDEX payments_merchant_reference ON payments (merchant_id, merchant_reference)
    WHERE merchant_reference IS NOT NULL`,
  `CREATE TABLE server_settings (
    key text PRIMARY KEY,
    value text NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE TABLE signature_uses (
    api_key text NOT NULL,
    timestamp_ms bigint NOT NULL,
    signature text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (api_key, timestamp_ms, signature)
  )`,
  `CREATE INDEX signature_uses_expiry ON signature_uses (expires_at)`,
];
