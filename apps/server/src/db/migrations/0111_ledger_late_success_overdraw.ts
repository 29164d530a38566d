/**
 * A payout the bank confirms after it was booked as failed or expired (the late success) is
 * booked whatever the wallet holds by then (interface.md: the withdraw goes back to a successful
 * state; CONTRACT 8: the wallet is debited again). When the merchant has spent the released
 * amount meanwhile, the available wallet goes below zero: the merchant owes the difference, no
 * new withdraw or refund can be held from the wallet until settlements bring it back above
 * what is asked, and the operator is told (an anomaly, lifecycle/anomalies.ts).
 *
 * The entry trigger's rule is unchanged for everything else: a merchant's own funds
 * (settlement_pending, wallet_available, wallet_held) never go below zero, except the
 * available wallet under an entry of a `withdraw_late_success` or `refund_late_success`
 * transaction. The exception is looked up only when an entry would take the account below
 * zero (an IF of its own, so the common condition stays a simple PL/pgSQL expression), so a
 * posting that stays above zero costs what it did.
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
    -- executor), and the lookup of the transaction's kind runs only below zero.
    IF NEW.balance_after_satang < 0
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
