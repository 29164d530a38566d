/**
 * An overdrawn available wallet (a late success booked after the merchant spent the released
 * amount, 0111) is paid back by what credits it: settlements and the operator's credits.
 *
 * 0111 refused every entry that left a merchant's own account below zero, so while a wallet was
 * overdrawn a settlement smaller than the debt was refused (the settlement job failed on it at
 * every run, and the merchant's collected money stayed in settlement pending), and so was an
 * operator's credit that did not cover the whole debt. The rule is now what it protects: an
 * entry that lowers a merchant's own account (settlement_pending, wallet_available,
 * wallet_held) never leaves it below zero, except the available wallet under a
 * `withdraw_late_success` or `refund_late_success` transaction. An entry that raises an account
 * is applied whatever the balance, so a debt shrinks with each settlement until the wallet is
 * above zero again; nothing can be held from it meanwhile (every hold lowers it).
 */
export const statements: string[] = [
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
