/**
 * One Opn transfer per payout key (the withdraw or refund id), recorded before it is sent
 * (docs/providers/opn.md):
 *
 * - `waiting_recipient`: no transfer was ever asked for; the destination's recipient is not yet
 *   verified and active at Opn. Past OPN_RECIPIENT_VERIFY_MAX_S the payout fails from here.
 * - `sending`: a create was sent (`send_attempts` counts them) and its answer may be lost: Opn is
 *   asked (by id, else by listing transfers for `metadata.satang_key`) before any other create.
 * - `sent`: Opn answered with `transfer_id`; from here only Opn's transfer decides the payout.
 * - `refused`: Opn refused the only create (4xx): nothing was made, the payout failed.
 * - `abandoned`: the recipient was never verified in time, or Opn rejected it: failed, no transfer.
 */
export const statements: string[] = [
  `CREATE TABLE opn_transfers (
    payout_key text PRIMARY KEY,
    bank_code text NOT NULL,
    account_number text NOT NULL,
    account_name text NOT NULL,
    amount_satang bigint NOT NULL CHECK (amount_satang > 0),
    state text NOT NULL CHECK (state IN ('waiting_recipient', 'sending', 'sent', 'refused', 'abandoned')),
    transfer_id text UNIQUE,
    send_attempts integer NOT NULL DEFAULT 0,
    last_attempt_at timestamptz,
    failure_reason text,
    last_error text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
];
