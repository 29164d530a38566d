/**
 * The Opn connector's recipients (docs/providers/opn.md). Opn pays a third party only to a
 * recipient it has verified and that is active, so each destination (bank, account number,
 * account holder's name) gets one recipient, created once and reused by every later payout to it.
 *
 * - `recipient_id` is null while the create has not been answered; a create whose answer was
 *   lost is made again (a spare recipient moves no money).
 * - `verified`, `active`, `failure_code`: what Opn last showed, refreshed while a payout waits.
 */
export const statements: string[] = [
  `CREATE TABLE opn_recipients (
    bank_code text NOT NULL,
    account_number text NOT NULL,
    account_name text NOT NULL,
    recipient_id text UNIQUE,
    verified boolean NOT NULL DEFAULT false,
    active boolean NOT NULL DEFAULT false,
    failure_code text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (bank_code, account_number, account_name)
  )`,
];
