/**
 * Rows to API records. The event record is exactly the webhook body (CONTRACT 12):
 * `{ id, type, createdAt, data: { object } }`, so what the events API shows and what a receiver
 * gets are one thing, built here.
 */
import type {
  EventRow,
  EventType,
  WebhookDeliveryAttemptRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
} from "../db/types.ts";
import type { DeliveryWithAttempts, ListedDelivery } from "./store.ts";

export interface EventRecord {
  id: string;
  type: EventType;
  createdAt: string;
  data: { object: Record<string, unknown> };
}

export function eventView(row: Pick<EventRow, "id" | "type" | "created_at" | "data">): EventRecord {
  // recordEvent (outbox.ts) is the only writer of events, and it always stores `{ object }`.
  const data = row.data as EventRecord["data"];
  return { id: row.id, type: row.type, createdAt: row.created_at.toISOString(), data };
}

/** The exact bytes sent as the webhook body, and signed. */
export function eventBody(row: Pick<EventRow, "id" | "type" | "created_at" | "data">): string {
  return JSON.stringify(eventView(row));
}

export interface EndpointRecord {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  disabled: boolean;
  disabledAt: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function endpointView(row: WebhookEndpointRow, wallNow: Date): EndpointRecord {
  const rotating = row.previous_secret_expires_at !== null && row.previous_secret_expires_at > wallNow;
  return {
    id: row.id,
    url: row.url,
    events: row.event_types,
    description: row.description,
    disabled: row.disabled_at !== null,
    disabledAt: row.disabled_at === null ? null : row.disabled_at.toISOString(),
    previousSecretExpiresAt: rotating ? row.previous_secret_expires_at!.toISOString() : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());

/**
 * An attempt as shown. `retryPlanned` is false for the last attempt of a delivery that is no
 * longer pending (canceled with its endpoint, or finished): no retry follows it, whatever was
 * planned when it ended.
 */
function attemptView(row: WebhookDeliveryAttemptRow, retryPlanned: boolean) {
  return {
    attemptNumber: row.attempt_number,
    succeeded: row.succeeded,
    statusCode: row.status_code,
    durationMs: row.duration_ms,
    error: row.error,
    errorCode: row.error_code,
    responseExcerpt: row.response_excerpt,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at.toISOString(),
    nextRetryAt: retryPlanned ? iso(row.next_retry_at) : null,
  };
}

export function deliveryView(delivery: WebhookDeliveryRow, attempts: WebhookDeliveryAttemptRow[] = []) {
  return {
    id: delivery.id,
    endpointId: delivery.endpoint_id,
    status: delivery.status,
    attemptCount: delivery.attempt_count,
    nextAttemptAt:
      delivery.status === "pending" ? iso(delivery.next_attempt_at ?? delivery.created_at) : null,
    lastStatusCode: delivery.last_status_code,
    lastError: delivery.last_error,
    createdAt: delivery.created_at.toISOString(),
    completedAt: iso(delivery.completed_at),
    attempts: attempts.map((attempt, i) =>
      attemptView(attempt, delivery.status === "pending" || i < attempts.length - 1),
    ),
  };
}

/** A delivery as the deliveries list shows it: without its attempts (its event's page has them). */
export function listedDeliveryView({ delivery, eventType, endpointUrl }: ListedDelivery) {
  const { attempts: _attempts, id, endpointId, ...rest } = deliveryView(delivery);
  return { id, eventId: delivery.event_id, eventType, endpointId, endpointUrl, ...rest };
}

export function eventWithDeliveriesView(event: EventRow, deliveries: DeliveryWithAttempts[]) {
  return {
    ...eventView(event),
    deliveries: deliveries.map(({ delivery, attempts }) => deliveryView(delivery, attempts)),
  };
}
