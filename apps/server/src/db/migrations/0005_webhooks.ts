/**
 * Webhooks: the endpoints merchants register, one delivery row per event and endpoint, and the
 * log of every HTTP attempt.
 *
 * A delivery row is inserted in the same transaction as its event (events/outbox.ts), so an
 * event that committed always has its deliveries, even when the process dies before sending.
 * The retry columns (`next_attempt_at`, `leased_until`) hold wall-clock times: retry timing is
 * not business time, so a merchant's sandbox test clock never fires or delays a retry.
 */
export const statements: string[] = [
  `CREATE TABLE webhook_endpoints (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    url text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
    description text CHECK (char_length(description) <= 255),
    event_types text[] NOT NULL CHECK (cardinality(event_types) >= 1),
    secret_encrypted text NOT NULL,
    previous_secret_encrypted text,
    previous_secret_expires_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    deleted_at timestamptz,
    CHECK ((previous_secret_encrypted IS NULL) = (previous_secret_expires_at IS NULL))
  )`,
  `CREATE INDEX webhook_endpoints_merchant ON webhook_endpoints (merchant_id, created_at DESC, id DESC)
    WHERE deleted_at IS NULL`,
  `CREATE TABLE webhook_deliveries (
    id uuid PRIMARY KEY,
    event_id uuid NOT NULL REFERENCES events (id),
    endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id),
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
    attempt_count integer NOT NULL DEFAULT 0 CHECK (attempt_count BETWEEN 0 AND 10),
    next_attempt_at timestamptz,
    lease_id uuid,
    leased_until timestamptz,
    last_status_code integer,
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    CHECK ((status = 'pending') = (completed_at IS NULL)),
    CHECK ((lease_id IS NULL) = (leased_until IS NULL))
  )`,
  // The worker's claim reads pending rows in due order; finished rows leave the index.
  `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at NULLS FIRST, id)
    WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, created_at)`,
  `CREATE INDEX webhook_deliveries_endpoint_pending ON webhook_deliveries (endpoint_id)
    WHERE status = 'pending'`,
  `CREATE TABLE webhook_delivery_attempts (
    id uuid PRIMARY KEY,
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id),
    attempt_number integer NOT NULL CHECK (attempt_number >= 1),
    succeeded boolean NOT NULL,
    status_code integer,
    duration_ms integer NOT NULL CHECK (duration_ms >= 0),
    error text,
    started_at timestamptz NOT NULL,
    finished_at timestamptz NOT NULL,
    next_retry_at timestamptz
  )`,
  `CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, attempt_number)`,
];
