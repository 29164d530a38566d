/**
 * The event outbox: one row per state change a merchant is told about, written in the same
 * transaction as the change itself, so an event exists exactly when its change committed.
 */
export const statements: string[] = [
  `CREATE TABLE events (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    type text NOT NULL CHECK (type IN ('payment.received', 'payment.failed', 'payment.expired',
      'payment.canceled', 'withdraw.processing', 'withdraw.paid', 'withdraw.failed',
      'withdraw.canceled')),
    object_type text NOT NULL CHECK (object_type IN ('payment', 'withdraw')),
    object_id uuid NOT NULL,
    data jsonb NOT NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX events_merchant_created ON events (merchant_id, created_at DESC, id DESC)`,
  `CREATE INDEX events_object ON events (object_id, created_at)`,
];
