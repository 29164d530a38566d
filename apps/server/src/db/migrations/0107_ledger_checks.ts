/**
 * The ledger's checks, each made once (migration 0003 made some twice):
 *
 * - An entry's transaction and account are checked by the trigger that applies it
 *   (`ledger_apply_entry`: the account must exist and belong to the transaction's merchant, so
 *   the transaction must exist too), so the entries' two foreign keys checked the same rows a
 *   second time, each with a row lock. They are dropped; what they also guarded, a referenced
 *   row deleted or its id changed, is refused by triggers: transactions are append-only
 *   already, and accounts are now never deleted and never change id. A foreign key also made
 *   a TRUNCATE of a referenced table fail; the three ledger tables now refuse TRUNCATE
 *   themselves (a statement trigger, as the audit log does), so none can be emptied under the
 *   others.
 * - The balance guard on accounts runs only when an UPDATE could break it (a balance changed
 *   outside `ledger_apply_entry`, or an owner, kind or id changed): a WHEN condition, so the
 *   applying UPDATE of every entry no longer calls a PL/pgSQL function to find nothing wrong.
 *   In the WHEN condition the trigger depth is the UPDATE's own (0 for a statement of a
 *   session, 1 inside `ledger_apply_entry`), one less than inside the function.
 */
export const statements: string[] = [
  `ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_id_fkey`,
  `ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_transaction_id_fkey`,
  `CREATE FUNCTION ledger_refuse_account_delete() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'ledger accounts are never deleted' USING ERRCODE = '55000';
  END $$`,
  `CREATE TRIGGER ledger_accounts_no_delete BEFORE DELETE ON ledger_accounts
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_account_delete()`,
  `CREATE TRIGGER ledger_accounts_no_truncate BEFORE TRUNCATE ON ledger_accounts
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_account_delete()`,
  `CREATE TRIGGER ledger_transactions_no_truncate BEFORE TRUNCATE ON ledger_transactions
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`,
  `CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`,
  `CREATE OR REPLACE FUNCTION ledger_guard_balance() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.balance_satang IS DISTINCT FROM OLD.balance_satang AND pg_trigger_depth() < 2 THEN
      RAISE EXCEPTION 'ledger account balances change only through ledger entries' USING ERRCODE = '55000';
    END IF;
    IF NEW.merchant_id IS DISTINCT FROM OLD.merchant_id OR NEW.kind IS DISTINCT FROM OLD.kind
        OR NEW.id IS DISTINCT FROM OLD.id THEN
      RAISE EXCEPTION 'ledger accounts cannot change id, owner or kind' USING ERRCODE = '55000';
    END IF;
    RETURN NEW;
  END $$`,
  `DROP TRIGGER ledger_accounts_guard_balance ON ledger_accounts`,
  `CREATE TRIGGER ledger_accounts_guard_balance BEFORE UPDATE ON ledger_accounts
    FOR EACH ROW
    WHEN ((NEW.balance_satang IS DISTINCT FROM OLD.balance_satang AND pg_trigger_depth() < 1)
      OR NEW.merchant_id IS DISTINCT FROM OLD.merchant_id OR NEW.kind IS DISTINCT FROM OLD.kind
      OR NEW.id IS DISTINCT FROM OLD.id)
    EXECUTE FUNCTION ledger_guard_balance()`,
];
