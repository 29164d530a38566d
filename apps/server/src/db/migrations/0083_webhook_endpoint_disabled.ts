/**
 * A webhook endpoint can be disabled and enabled again (docs/webhooks.md, "Disabling an
 * endpoint"): `disabled_at` is when it was disabled, null while it is enabled. A disabled
 * endpoint keeps its URL, secret and history but receives nothing: the outbox fan-out and
 * redeliveries leave it out, and the delivery worker cancels anything already claimed for it.
 * Times are business time, like the endpoint's other timestamps.
 */
export const statements: string[] = [`ALTER TABLE webhook_endpoints ADD COLUMN disabled_at timestamptz`];
