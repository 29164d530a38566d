/**
 * Webhook delivery at volume, and what the attempt log says.
 *
 * - The claim (events/store.ts `claimDueDeliveries`) walks the endpoints that have pending
 *   deliveries and takes each one's due rows in order, so it needs pending rows by endpoint in
 *   due order, and the leases held per endpoint without reading its whole backlog.
 * - Each attempt keeps an `error_code` from a closed list (events/attempt-errors.ts) and the
 *   start of the receiver's answer (`response_excerpt`, at most 1 KB).
 */
export const statements: string[] = [
  `CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries
    (endpoint_id, next_attempt_at NULLS FIRST, id) WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_endpoint_leased ON webhook_deliveries (endpoint_id, leased_until)
    WHERE status = 'pending' AND lease_id IS NOT NULL`,
  `DROP INDEX webhook_deliveries_endpoint_pending`,
  `ALTER TABLE webhook_delivery_attempts ADD COLUMN error_code text`,
  `ALTER TABLE webhook_delivery_attempts ADD COLUMN response_excerpt text
    CHECK (octet_length(response_excerpt) <= 1024)`,
];
