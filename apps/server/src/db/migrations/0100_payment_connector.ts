/**
 * A payment remembers the connector that took it (CONTRACT 15: made payments stay with their
 * connector, always), and that connector's own id of it (Opn's charge id; SCB has none, its
 * payments are found by `collection_reference`).
 *
 * - `payments.provider`: the connector's name (`scb`, `opn`); NULL for a sandbox payment, which
 *   the simulated bank decides. Live payments made before connectors were named were all SCB's:
 *   they are the ones with a `collection_reference`.
 * - `payments.provider_payment_id`: unique per connector where set, so one provider payment can
 *   never be two of ours.
 */
export const statements: string[] = [
  `ALTER TABLE payments ADD COLUMN provider text`,
  `ALTER TABLE payments ADD COLUMN provider_payment_id text`,
  `UPDATE payments SET provider = 'scb' WHERE collection_reference IS NOT NULL`,
  `CREATE UNIQUE INDEX payments_provider_payment_unique
    ON payments (provider, provider_payment_id) WHERE provider_payment_id IS NOT NULL`,
];
