/**
 * PromptPay reuse when a merchant turns it on while it has several open payments for one
 * customer and amount (made with reuse off): the slot passes from one to the next.
 *
 * Turning reuse on slots the newest open payment of each customer and amount (0095); the
 * others stayed unslotted, so once the slotted one closed (paid, canceled, expired, or gave the
 * slot up past its `expiresAt`), a create made a new payment although an older one was still
 * open: the customer held two valid QR codes for one amount. Now:
 *
 * - `payment_reuse_waiters`: the open promptpay payments that wait for their customer's and
 *   amount's slot, written when reuse is turned on (the only way an open promptpay payment of a
 *   merchant with reuse on can be without the slot while another holds it).
 * - When a slotted payment leaves the slot (its status leaves the open statuses, or it gives the
 *   slot up), a row trigger hands the slot to the newest waiter still open, if the merchant
 *   still has reuse on. The trigger fires only for a slotted row that leaves the slot (its WHEN
 *   condition), and returns at once when no waiter has its key (one index probe of a table that
 *   is empty unless reuse was turned on over duplicates). A create racing the handover finds
 *   the slot taken by the waiter and reuses it (payments/service.ts `insertPayment`); one past
 *   its own `expiresAt` is expired by that create in turn, which hands the slot on again.
 */
const OPEN = `('requires_payment_method', 'requires_confirmation', 'requires_action', 'processing', 'requires_capture')`;
/** A waiter `w` of the same merchant, customer and amount as the payment row `row`. */
const SAME_KEY = (row: string) =>
  `w.merchant_id = ${row}.merchant_id AND w.customer_bank_code = ${row}.customer_bank_code
    AND w.customer_bank_account_number = ${row}.customer_bank_account_number
    AND w.amount_satang = ${row}.amount_satang`;

export const statements: string[] = [
  `CREATE TABLE payment_reuse_waiters (
    payment_id uuid PRIMARY KEY REFERENCES payments (id) ON DELETE CASCADE,
    merchant_id uuid NOT NULL,
    customer_bank_code text NOT NULL,
    customer_bank_account_number text NOT NULL,
    amount_satang bigint NOT NULL
  )`,
  `CREATE INDEX payment_reuse_waiters_key ON payment_reuse_waiters
    (merchant_id, customer_bank_code, customer_bank_account_number, amount_satang)`,
  // As 0095 (the newest open payment of each customer and amount that has none slotted yet),
  // then every other open promptpay payment of a slotted customer and amount waits.
  `CREATE OR REPLACE FUNCTION payments_slot_promptpay_reuse(merchant uuid) RETURNS void LANGUAGE plpgsql AS $$
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
    INSERT INTO payment_reuse_waiters
        (payment_id, merchant_id, customer_bank_code, customer_bank_account_number, amount_satang)
      SELECT p.id, p.merchant_id, p.customer_bank_code, p.customer_bank_account_number, p.amount_satang
      FROM payments p
      WHERE p.merchant_id = merchant AND p.payment_method = 'promptpay' AND p.status IN ${OPEN}
        AND p.reuse_slot IS NULL
      ON CONFLICT (payment_id) DO NOTHING;
  END $$`,
  `CREATE FUNCTION payments_pass_reuse_slot() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    next_id uuid;
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM payment_reuse_waiters w WHERE ${SAME_KEY("OLD")}) THEN
      RETURN NULL;
    END IF;
    -- Waiters that closed meanwhile wait no more.
    DELETE FROM payment_reuse_waiters w USING payments p
      WHERE ${SAME_KEY("OLD")} AND p.id = w.payment_id
        AND (p.status NOT IN ${OPEN} OR p.reuse_slot IS NOT NULL);
    IF NOT (SELECT promptpay_reuse FROM merchants WHERE id = OLD.merchant_id) THEN
      RETURN NULL;
    END IF;
    SELECT p.id INTO next_id FROM payment_reuse_waiters w JOIN payments p ON p.id = w.payment_id
      WHERE ${SAME_KEY("OLD")}
      ORDER BY p.created_at DESC, p.id DESC LIMIT 1;
    IF next_id IS NOT NULL THEN
      DELETE FROM payment_reuse_waiters WHERE payment_id = next_id;
      UPDATE payments SET reuse_slot = true WHERE id = next_id;
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER payments_pass_reuse_slot AFTER UPDATE OF status, reuse_slot ON payments
    FOR EACH ROW WHEN (OLD.reuse_slot AND (NEW.reuse_slot IS NULL OR NEW.status NOT IN ${OPEN}))
    EXECUTE FUNCTION payments_pass_reuse_slot()`,
  // The merchants with reuse on today: their open payments left waiting by 0095 wait now.
  `SELECT payments_slot_promptpay_reuse(id) FROM merchants WHERE promptpay_reuse`,
];
