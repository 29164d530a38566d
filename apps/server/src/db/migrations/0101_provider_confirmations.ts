/**
 * One confirmations table and one payment-check schedule for every connector (CONTRACT 15,
 * docs/providers/README.md): the lifecycle's collections flow (lifecycle/collections.ts) keeps
 * them whatever the connector.
 *
 * - `scb_confirmations` -> `provider_confirmations`: every notification a connector received,
 *   one row per (provider, transaction id). The rows kept so far were all SCB's. `ref1` ->
 *   `reference` (a notice may name none), `claimed_biller_id` -> `claimed_payee` (whom the
 *   notice says was paid, when it says).
 * - `scb_payment_checks` -> `payment_checks`: when the reconciler next asks a payment's
 *   connector about it (a payment belongs to one connector: `payments.provider`).
 * - `scb_sweeps` -> `collection_sweeps`: the daily sweep's progress over one Bangkok date, for
 *   every connector that sweeps (lifecycle/collections-sweep.ts).
 */
export const statements: string[] = [
  `ALTER TABLE scb_confirmations RENAME TO provider_confirmations`,
  `ALTER TABLE provider_confirmations ADD COLUMN provider text NOT NULL DEFAULT 'scb'`,
  `ALTER TABLE provider_confirmations ALTER COLUMN provider DROP DEFAULT`,
  `ALTER TABLE provider_confirmations RENAME COLUMN ref1 TO reference`,
  `ALTER TABLE provider_confirmations ALTER COLUMN reference DROP NOT NULL`,
  `ALTER TABLE provider_confirmations RENAME COLUMN claimed_biller_id TO claimed_payee`,
  `ALTER TABLE provider_confirmations DROP CONSTRAINT scb_confirmations_pkey`,
  `ALTER TABLE provider_confirmations ADD CONSTRAINT provider_confirmations_pkey
    PRIMARY KEY (provider, transaction_id)`,
  `ALTER INDEX scb_confirmations_recheck RENAME TO provider_confirmations_recheck`,
  `ALTER TABLE scb_payment_checks RENAME TO payment_checks`,
  `ALTER INDEX scb_payment_checks_pkey RENAME TO payment_checks_pkey`,
  `ALTER TABLE scb_sweeps RENAME TO collection_sweeps`,
  `ALTER INDEX scb_sweeps_pkey RENAME TO collection_sweeps_pkey`,
];
