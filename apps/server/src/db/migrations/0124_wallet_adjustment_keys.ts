/**
 * Idempotency keys of operator wallet adjustments (docs/ledger.md): an operator whose adjustment
 * timed out or whose connection dropped retries it with the same key and gets the entry it
 * made, never a second credit or debit. One row per key and merchant, naming the ledger
 * transaction the key made and the hash of the body it was made with (a different body under
 * the key is 422, as for payments and withdraws).
 */
export const statements: string[] = [
  `CREATE TABLE wallet_adjustment_keys (
     merchant_id uuid NOT NULL REFERENCES merchants (id),
     idempotency_key text NOT NULL,
     request_hash text NOT NULL,
     transaction_id uuid NOT NULL REFERENCES ledger_transactions (id),
     PRIMARY KEY (merchant_id, idempotency_key)
   )`,
];
