/**
 * The double-entry ledger (CONTRACT 8), withdraws and their saved destinations (CONTRACT 7).
 *
 * The ledger's guarantees live in the database, not only in ledger/postings.ts:
 * - every ledger transaction's entries sum to zero, checked at commit by a deferred constraint
 *   trigger, so a transaction can insert its lines one by one but can never commit unbalanced;
 * - an account's balance is moved only by inserting an entry (a trigger applies the entry and
 *   records the balance after it), so a balance always equals the sum of its entries;
 * - entries and ledger transactions are append-only;
 * - a merchant's own money (settlement pending, wallet available, wallet held) never goes
 *   negative (CHECK on the account row).
 *
 * Withdraws carry their money rules as constraints too: a positive amount, unique reference and
 * idempotency key per merchant, and timestamps that match the status.
 */
export const statements: string[] = [
  `CREATE TABLE ledger_accounts (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    kind text NOT NULL CHECK (kind IN ('settlement_pending', 'wallet_available', 'wallet_held',
      'provider_clearing', 'payout_clearing', 'operator_adjustments')),
    balance_satang bigint NOT NULL DEFAULT 0,
    CONSTRAINT ledger_accounts_merchant_kind UNIQUE (merchant_id, kind),
    CONSTRAINT ledger_accounts_merchant_funds_not_negative CHECK (
      kind NOT IN ('settlement_pending', 'wallet_available', 'wallet_held') OR balance_satang >= 0)
  )`,
  `CREATE TABLE ledger_transactions (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    kind text NOT NULL CHECK (kind IN ('payment_succeeded', 'settlement', 'withdraw_hold',
      'withdraw_release', 'withdraw_paid', 'withdraw_late_success', 'operator_adjustment')),
    subject_type text NOT NULL CHECK (subject_type IN ('payment', 'withdraw', 'adjustment')),
    subject_id uuid NOT NULL,
    reason text,
    created_at timestamptz NOT NULL
  )`,
  // Each event happens to a subject at most once (a payment succeeds once, a hold is released
  // once), so a repeated provider callback or a retried job cannot post the same movement twice.
  `CREATE UNIQUE INDEX ledger_transactions_once_per_subject
    ON ledger_transactions (subject_type, subject_id, kind)`,
  `CREATE INDEX ledger_transactions_merchant_created
    ON ledger_transactions (merchant_id, created_at DESC, id DESC)`,
  `CREATE TABLE ledger_entries (
    id uuid PRIMARY KEY,
    transaction_id uuid NOT NULL REFERENCES ledger_transactions (id),
    account_id uuid NOT NULL REFERENCES ledger_accounts (id),
    amount_satang bigint NOT NULL CHECK (amount_satang <> 0),
    balance_after_satang bigint NOT NULL,
    CONSTRAINT ledger_entries_one_line_per_account UNIQUE (transaction_id, account_id)
  )`,
  `CREATE INDEX ledger_entries_account ON ledger_entries (account_id)`,

  // Applies an entry to its account and records the balance after it. The account must belong
  // to the transaction's merchant. The row lock this UPDATE takes is also what serializes
  // concurrent postings to one account.
  `CREATE FUNCTION ledger_apply_entry() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE ledger_accounts
      SET balance_satang = balance_satang + NEW.amount_satang
      WHERE id = NEW.account_id
        AND merchant_id = (SELECT merchant_id FROM ledger_transactions WHERE id = NEW.transaction_id)
      RETURNING balance_satang INTO NEW.balance_after_satang;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'ledger entry names account % outside its transaction''s merchant', NEW.account_id
        USING ERRCODE = '23503';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER ledger_entries_apply BEFORE INSERT ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_apply_entry()`,

  // The balance guarantee: checked when the transaction commits, after all of its lines are in.
  `CREATE FUNCTION ledger_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    total numeric;
  BEGIN
    SELECT COALESCE(SUM(amount_satang), 0) INTO total
      FROM ledger_entries WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
      RAISE EXCEPTION 'ledger transaction % is unbalanced: its entries sum to %', NEW.transaction_id, total
        USING ERRCODE = '23514';
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced()`,

  `CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION '% rows are append-only', TG_TABLE_NAME USING ERRCODE = '55000';
  END $$`,
  `CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`,
  `CREATE TRIGGER ledger_transactions_append_only BEFORE UPDATE OR DELETE ON ledger_transactions
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`,
  // A balance may change only from inside ledger_apply_entry (trigger depth 2), never by a
  // direct UPDATE, so it cannot drift from the sum of the account's entries.
  `CREATE FUNCTION ledger_guard_balance() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.balance_satang IS DISTINCT FROM OLD.balance_satang AND pg_trigger_depth() < 2 THEN
      RAISE EXCEPTION 'ledger account balances change only through ledger entries' USING ERRCODE = '55000';
    END IF;
    IF NEW.merchant_id IS DISTINCT FROM OLD.merchant_id OR NEW.kind IS DISTINCT FROM OLD.kind THEN
      RAISE EXCEPTION 'ledger accounts cannot change owner or kind' USING ERRCODE = '55000';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER ledger_accounts_guard_balance BEFORE UPDATE ON ledger_accounts
    FOR EACH ROW EXECUTE FUNCTION ledger_guard_balance()`,

  // Merchants created before this migration get their accounts now; later ones get them
  // lazily (ledger/accounts.ts ensureMerchantAccounts, idempotent).
  `INSERT INTO ledger_accounts (id, merchant_id, kind, balance_satang)
    SELECT gen_random_uuid(), m.id, k.kind, 0
    FROM merchants m
    CROSS JOIN (VALUES ('settlement_pending'), ('wallet_available'), ('wallet_held'),
      ('provider_clearing'), ('payout_clearing'), ('operator_adjustments')) AS k (kind)
    ON CONFLICT (merchant_id, kind) DO NOTHING`,

  `CREATE TABLE withdraw_destinations (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    destination_type text NOT NULL CHECK (destination_type IN ('bank_account', 'wallet')),
    bank_code text NOT NULL,
    account_number text NOT NULL,
    account_name text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT withdraw_destinations_unique UNIQUE (merchant_id, destination_type, bank_code, account_number)
  )`,

  `CREATE TABLE withdraws (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    integration_id uuid REFERENCES integrations (id),
    amount_satang bigint NOT NULL CHECK (amount_satang > 0),
    currency text NOT NULL CHECK (currency = 'THB'),
    status text NOT NULL CHECK (status IN ('awaiting_verification', 'pending', 'processing', 'paid',
      'failed', 'canceled', 'expired')),
    reference_id text NOT NULL,
    destination_type text NOT NULL CHECK (destination_type IN ('bank_account', 'wallet')),
    destination_id uuid NOT NULL REFERENCES withdraw_destinations (id),
    bank_account_name text NOT NULL,
    bank_account_number text NOT NULL,
    bank_code text NOT NULL,
    description text,
    metadata jsonb,
    idempotency_key text NOT NULL,
    request_hash text NOT NULL,
    verification_expires_at timestamptz,
    paid_at timestamptz,
    failed_at timestamptz,
    canceled_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CONSTRAINT withdraws_reference_unique UNIQUE (merchant_id, reference_id),
    CONSTRAINT withdraws_idempotency_unique UNIQUE (merchant_id, idempotency_key),
    CONSTRAINT withdraws_canceled_has_time CHECK (status <> 'canceled' OR canceled_at IS NOT NULL),
    CONSTRAINT withdraws_paid_has_time CHECK (status <> 'paid' OR paid_at IS NOT NULL),
    CONSTRAINT withdraws_verification_has_expiry CHECK (
      status <> 'awaiting_verification' OR verification_expires_at IS NOT NULL)
  )`,
  // The limit sums read one UTC day or month of one merchant and nothing else: this index
  // holds the amount and status beside the key, so the sum is an index-only range scan whose
  // cost follows the rows in the window, not the merchant's whole history. The recent half of
  // the payout guard (created in the last 15 minutes) reads the same range, and the list's
  // default order (created_at, id) walks it too.
  `CREATE INDEX withdraws_merchant_created ON withdraws (merchant_id, created_at, id)
    INCLUDE (amount_satang, status)`,
  // The active half of the payout guard: open payouts of any age with the same amount.
  `CREATE INDEX withdraws_active_amount ON withdraws (merchant_id, amount_satang)
    WHERE status IN ('awaiting_verification', 'pending', 'processing')`,
  `CREATE INDEX withdraws_merchant_status_created ON withdraws (merchant_id, status, created_at, id)`,
  `CREATE INDEX withdraws_verification_expiry ON withdraws (verification_expires_at)
    WHERE status = 'awaiting_verification'`,
];
