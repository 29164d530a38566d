/**
 * The SCB collection side's bookkeeping (docs/providers/scb.md):
 *
 * - `scb_exchanges.unreadable`: why the connector could not read an answer SCB gave (a row
 *   without a readable transaction id, amount or time, a body that is not JSON). The operator
 *   lists these exchanges (`?unreadable=true`) and the metric counts them.
 * - `provider_anomalies.closed_at`, `resolution`: an anomaly that stopped being true (SCB's
 *   inquiry showed the transaction later and it was credited) is closed, not deleted.
 * - `scb_payment_checks.last_checked_at`: the real time of the reconciler's last answered
 *   question about a payment, so that the next one asks only the Bangkok dates since then.
 * - `scb_transactions`: every transaction SCB showed for the operator's biller (by a
 *   confirmation's check, the reconciler or the daily sweep), with what became of it: the day's
 *   paid-in figures of the operator's daily report.
 * - `scb_sweeps`: the daily sweep of each Bangkok date, resumable by any worker.
 */
export const statements: string[] = [
  `ALTER TABLE scb_exchanges ADD COLUMN unreadable text`,
  `CREATE INDEX scb_exchanges_unreadable ON scb_exchanges (started_at DESC, id DESC)
    WHERE unreadable IS NOT NULL`,

  `ALTER TABLE provider_anomalies
    ADD COLUMN closed_at timestamptz,
    ADD COLUMN resolution text`,
  `CREATE INDEX provider_anomalies_open_callback ON provider_anomalies (provider, callback_id)
    WHERE closed_at IS NULL AND callback_id IS NOT NULL`,

  `ALTER TABLE scb_payment_checks ADD COLUMN last_checked_at timestamptz`,

  `CREATE TABLE scb_transactions (
    transaction_id text PRIMARY KEY,
    ref1 text NOT NULL,
    amount_satang bigint NOT NULL CHECK (amount_satang >= 0),
    paid_at timestamptz,
    paid_date text NOT NULL CHECK (paid_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    payment_id uuid,
    result text NOT NULL,
    seen_by text NOT NULL CHECK (seen_by IN ('confirmation', 'reconciler', 'sweep')),
    first_seen_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  `CREATE INDEX scb_transactions_date ON scb_transactions (paid_date)`,

  `CREATE TABLE scb_sweeps (
    sweep_date text PRIMARY KEY CHECK (sweep_date ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'),
    status text NOT NULL CHECK (status IN ('running', 'finished')),
    cursor_created_at timestamptz,
    cursor_id uuid,
    asked integer NOT NULL DEFAULT 0 CHECK (asked >= 0),
    found integer NOT NULL DEFAULT 0 CHECK (found >= 0),
    last_error text,
    lease_until timestamptz,
    started_at timestamptz NOT NULL,
    finished_at timestamptz
  )`,
];
