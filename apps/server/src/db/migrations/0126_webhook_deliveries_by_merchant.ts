/**
 * The dashboard's list of a merchant's webhook deliveries (CONTRACT 13, docs/dashboard.md) reads
 * them by merchant, newest first, ties broken by id: this index serves its page and its total
 * without a scan of every merchant's deliveries.
 */
export const statements: string[] = [
  `CREATE INDEX webhook_deliveries_merchant_created ON webhook_deliveries (merchant_id, created_at, id)`,
];
