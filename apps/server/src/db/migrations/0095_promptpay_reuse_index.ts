/**
 * PromptPay reuse as a unique index (docs/payments.md "PromptPay reuse"):
 *
 * - `payments.reuse_slot`: true on the payment PromptPay reuse returns for its merchant,
 *   customer bank code and account, and amount; NULL on every other payment (bank transfers,
 *   promptpay payments of a merchant with reuse off, a payment whose slot was given up).
 * - `payments_promptpay_reuse`: unique over (merchant, customer bank code, account number,
 *   amount) for slotted payments while they are open. So the create's one
 *   `INSERT ... ON CONFLICT DO NOTHING` decides reuse as it decides idempotency: a second open
 *   payment for the same customer and amount cannot be inserted, and the create that found it
 *   taken reads the open one. A status change out of the open statuses takes the row out of
 *   the index (its predicate no longer holds), so the next create inserts.
 * - Slotting: the open promptpay payments of merchants with reuse on are slotted now (the
 *   newest of each customer and amount), and again by trigger whenever a merchant's
 *   `promptpay_reuse` is turned on, so the payments it made with reuse off are found as before.
 * - `payments_open_promptpay` served the lookup the index replaces, and goes.
 */
const OPEN = `('requires_payment_method', 'requires_confirmation', 'requires_action', 'processing', 'requires_capture')`;

export const statements: string[] = [
  `ALTER TABLE payments ADD COLUMN reuse_slot boolean`,
  `ALTER TABLE payments ADD CONSTRAINT payments_reuse_slot_true CHECK (reuse_slot IS NULL OR reuse_slot)`,
  // The newest open promptpay payment of each merchant (reuse on), customer and amount that
  // has none slotted yet.
  `CREATE FUNCTION payments_slot_promptpay_reuse(merchant uuid) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE payments SET reuse_slot = true WHERE id IN (
      SELECT DISTINCT ON (p.customer_bank_code, p.customer_bank_account_number, p.amount_satang) p.id
      FROM payments p
      WHERE p.merchant_id = merchant AND p.payment_method = 'promptpay' AND p.status IN ${OPEN}
        AND p.reuse_slot IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM payments q
          WHERE q.merchant_id = p.merchant_id AND q.customer_bank_code = p.customer_bank_code
            AND q.customer_bank_account_number = p.customer_bank_account_number
            AND q.amount_satang = p.amount_satang AND q.reuse_slot AND q.status IN ${OPEN})
      ORDER BY p.customer_bank_code, p.customer_bank_account_number, p.amount_satang,
        p.created_at DESC, p.id DESC);
  END $$`,
  `SELECT payments_slot_promptpay_reuse(id) FROM merchants WHERE promptpay_reuse`,
  `CREATE UNIQUE INDEX payments_promptpay_reuse ON payments
    (merchant_id, customer_bank_code, customer_bank_account_number, amount_satang)
    WHERE reuse_slot AND status IN ${OPEN}`,
  `DROP INDEX payments_open_promptpay`,
  `CREATE FUNCTION merchants_promptpay_reuse_on() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM payments_slot_promptpay_reuse(NEW.id);
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER merchants_promptpay_reuse_on AFTER UPDATE OF promptpay_reuse ON merchants
    FOR EACH ROW WHEN (NEW.promptpay_reuse AND NOT OLD.promptpay_reuse)
    EXECUTE FUNCTION merchants_promptpay_reuse_on()`,
];
