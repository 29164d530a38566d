/**
 * An endpoint's due deliveries are sent oldest due first (docs/webhooks.md), also while none of
 * them has been tried: a delivery not yet tried has no `next_attempt_at` and is due since it was
 * made, so the claim orders by `coalesce(next_attempt_at, created_at)`. 0020's index ordered
 * untried deliveries by id, a random UUID, so during a backlog one made early could wait for
 * the whole backlog. The index keeps 0020's name, leading column and predicate, so the endpoint's
 * other scans (its pending deliveries canceled at once) read through it as before.
 */
export const statements: string[] = [
  `DROP INDEX webhook_deliveries_endpoint_due`,
  `CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries
    (endpoint_id, (coalesce(next_attempt_at, created_at)), id) WHERE status = 'pending'`,
];
