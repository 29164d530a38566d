/**
 * Each ledger entry's posting number (`posting_seq`, 0116) is drawn in the entry trigger after
 * the account's UPDATE, while the entry holds the account's row lock, instead of by the column's
 * default when the row is formed. Two postings to one account that raced (two withdraws or
 * cancels of one merchant sent at once) drew their numbers before one waited for the other's
 * lock, so the one applied second could hold the smaller number, and the ledger export, which
 * lists an account's entries by their numbers within an instant, showed balances that did not
 * follow each other. Now one account's entries are numbered in the order their balances were
 * applied. Entries already written keep their numbers.
 */
export const statements: string[] = [
  `ALTER TABLE ledger_entries ALTER COLUMN posting_seq DROP DEFAULT`,
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
    -- Numbered here, holding the account's row lock: an entry that waited for the lock is numbered
    -- after the one that held it, so one account's entries are numbered in the order applied.
    NEW.posting_seq := nextval('ledger_entries_posting_seq');
    -- Two IFs: the outer condition stays a simple expression (PL/pgSQL evaluates it without the
    -- executor), and the lookup of the transaction's kind runs only for a debit below zero.
    IF NEW.balance_after_satang < 0 AND NEW.amount_satang < 0
        AND account_kind IN ('settlement_pending', 'wallet_available', 'wallet_held') THEN
      IF account_kind <> 'wallet_available' OR NOT EXISTS (
          SELECT 1 FROM ledger_transactions
          WHERE id = NEW.transaction_id AND kind IN ('withdraw_late_success', 'refund_late_success')) THEN
        RAISE EXCEPTION 'ledger entry of % satang takes the % account % below zero (ledger_accounts_merchant_funds_not_negative)',
            NEW.amount_satang, account_kind, NEW.account_id
          USING ERRCODE = '23514', CONSTRAINT = 'ledger_accounts_merchant_funds_not_negative',
            TABLE = 'ledger_accounts';
      END IF;
    END IF;
    RETURN NEW;
  END $$`,
];
