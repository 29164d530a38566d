/**
 * The idempotency keys PromptPay reuse answered (CONTRACT 5): a create whose own key is new but
 * whose customer account and amount match an open payment gets that payment (200) instead of a
 * new one. Its key is then bound to the payment it was given, as a created payment's key is, so
 * a retry with the same key and body returns that payment again (200, `Idempotent-Replayed`)
 * after it was paid, canceled or expired, and the same key with another body is 422, instead of
 * a second payment for one order.
 *
 * A reused payment keeps its own key; the key of the request it answered is kept here, with the
 * hash of that request's body. Only keys the merchant sent are kept: a generated key is never
 * sent again. Every create's insert skips a row whose key is here (payments/store.ts), and the
 * create then answers from this table (payments/service.ts).
 */
export const statements: string[] = [
  `CREATE TABLE payment_key_aliases (
    merchant_id uuid NOT NULL,
    idempotency_key text NOT NULL,
    payment_id uuid NOT NULL REFERENCES payments (id) ON DELETE CASCADE,
    request_hash text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (merchant_id, idempotency_key)
  )`,
  `CREATE INDEX payment_key_aliases_payment ON payment_key_aliases (payment_id)`,
];
