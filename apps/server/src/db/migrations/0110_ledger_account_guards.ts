/**
 * The ledger accounts' rules, checked where they cost nothing on the applying UPDATE.
 *
 * Every entry updates its account through `ledger_apply_entry`, one UPDATE per entry run by the
 * trigger. PostgreSQL prepares a table's CHECK constraints and the WHEN conditions of its row
 * triggers afresh for each such UPDATE (they are kept per statement run, and each entry's UPDATE
 * is one run), which cost more than the UPDATE itself: about 16 µs of the 47 µs an entry took.
 * The same rules now hold as follows:
 *
 * - An account's kind is one of the six: a domain, checked when a kind is written (an account
 *   is inserted, or its kind set, which is refused anyway), not on every balance change.
 * - A merchant's own funds (settlement_pending, wallet_available, wallet_held) never go below
 *   zero: balances change only through `ledger_apply_entry`, which refuses an entry that takes
 *   such an account below zero (SQLSTATE 23514, naming the check it replaces,
 *   ledger_accounts_merchant_funds_not_negative), and an account starts at zero.
 * - A balance changes only through an entry: an UPDATE that writes balance_satang is refused
 *   unless it runs inside `ledger_apply_entry` (a statement trigger on the column, so no
 *   condition is prepared per row).
 * - An account's id, owner and kind never change: an UPDATE that writes any of them is refused
 *   whatever the value (a statement trigger on those columns).
 */
export const statements: string[] = [
  `CREATE DOMAIN ledger_account_kind AS text CHECK (VALUE IN ('settlement_pending', 'wallet_available',
    'wallet_held', 'provider_clearing', 'payout_clearing', 'operator_adjustments'))`,
  `DROP TRIGGER ledger_accounts_guard_balance ON ledger_accounts`,
  `DROP FUNCTION ledger_guard_balance()`,
  `ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check`,
  `ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_merchant_funds_not_negative`,
  `ALTER TABLE ledger_accounts ALTER COLUMN kind TYPE ledger_account_kind`,
  `CREATE OR REPLACE FUNCTION ledger_apply_entry() RETURNS trigger LANGUAGE plpgsql
  SET enable_seqscan = off AS $$
  DECLARE
    account_kind text;
  BEGIN
    UPDATE ledger_accounts
      SET balance_satang = balance_satang + NEW.amount_satang
      WHERE id = NEW.account_id
        AND merchant_id = (SELECT merchant_id FROM ledger_transactions WHERE id = NEW.transaction_id)
      RETURNING balance_satang, kind INTO NEW.balance_after_satang, account_kind;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'ledger entry names account % outside its transaction''s merchant', NEW.account_id
        USING ERRCODE = '23503';
    END IF;
    IF NEW.balance_after_satang < 0
        AND account_kind IN ('settlement_pending', 'wallet_available', 'wallet_held') THEN
      RAISE EXCEPTION 'ledger entry of % satang takes the % account % below zero (ledger_accounts_merchant_funds_not_negative)',
          NEW.amount_satang, account_kind, NEW.account_id
        USING ERRCODE = '23514', CONSTRAINT = 'ledger_accounts_merchant_funds_not_negative',
          TABLE = 'ledger_accounts';
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE FUNCTION ledger_refuse_balance_write() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- Depth 1 is this trigger on a statement of a session; inside ledger_apply_entry it is 2.
    IF pg_trigger_depth() < 2 THEN
      RAISE EXCEPTION 'ledger account balances change only through ledger entries' USING ERRCODE = '55000';
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER ledger_accounts_balance_writes BEFORE UPDATE OF balance_satang ON ledger_accounts
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_balance_write()`,
  `CREATE FUNCTION ledger_refuse_account_rekey() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'ledger accounts cannot change id, owner or kind' USING ERRCODE = '55000';
  END $$`,
  `CREATE TRIGGER ledger_accounts_fixed_keys BEFORE UPDATE OF id, merchant_id, kind ON ledger_accounts
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_account_rekey()`,
  `CREATE FUNCTION ledger_refuse_opening_balance() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'a ledger account starts at zero; its balance changes only through ledger entries'
      USING ERRCODE = '55000';
  END $$`,
  `CREATE TRIGGER ledger_accounts_start_at_zero BEFORE INSERT ON ledger_accounts
    FOR EACH ROW WHEN (NEW.balance_satang <> 0) EXECUTE FUNCTION ledger_refuse_opening_balance()`,
];
