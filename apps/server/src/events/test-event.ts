/**
 * A test event: one signed `ping` POSTed to one endpoint at once, so a merchant can check its
 * receiver (URL, TLS, signature verification) without waiting for a real event.
 *
 * It is signed and sent exactly like a delivery (the same URL checks, headers, deadline and
 * secrets, both during a rotation), but it is not an event: nothing is stored, it is never
 * retried, it does not show in the events list, and it goes to this endpoint only, whatever
 * event types the endpoint subscribes to. The body:
 * `{ id, type: "ping", createdAt, data: { object: { object: "webhook_endpoint", id, url } } }`,
 * with a new `id` (the `webhook-id`) on every test.
 */
import type { Merchant } from "../db/types.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { type EndpointContext, endpointNotFound } from "./endpoints.ts";
import { postWebhook } from "./sender.ts";
import { webhookHeaders } from "./signing.ts";
import { findActiveEndpoint } from "./store.ts";

export const TEST_EVENT_TYPE = "ping";

export interface TestEventResult {
  /** The test's `webhook-id`. */
  id: string;
  endpointId: string;
  succeeded: boolean;
  /** The receiver's HTTP status, or null when none arrived. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  sentAt: string;
}

export async function sendTestEvent(
  ctx: Omit<EndpointContext, "clock">,
  merchant: Merchant,
  endpointId: string,
): Promise<TestEventResult> {
  const row = isUuid(endpointId) ? await findActiveEndpoint(ctx.db, merchant.id, endpointId) : undefined;
  if (!row) throw endpointNotFound();
  const id = newId();
  const sentAt = ctx.wallClock.now();
  const body = JSON.stringify({
    id,
    type: TEST_EVENT_TYPE,
    createdAt: sentAt.toISOString(),
    data: { object: { object: "webhook_endpoint", id: row.id, url: row.url } },
  });
  const secrets = [ctx.secrets.open(row.secret_encrypted)];
  if (row.previous_secret_encrypted !== null && (row.previous_secret_expires_at ?? sentAt) > sentAt) {
    secrets.push(ctx.secrets.open(row.previous_secret_encrypted));
  }
  const settings = ctx.webhooks;
  const outcome = await postWebhook({
    url: row.url,
    body,
    headers: webhookHeaders(secrets, id, sentAt, body),
    policy: settings,
    resolve: settings.resolve,
    timeoutMs: settings.timeoutMs,
  });
  return { id, endpointId: row.id, ...outcome, sentAt: sentAt.toISOString() };
}
