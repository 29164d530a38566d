/**
 * The events API: list a merchant's events, retrieve one with its delivery log, and schedule a
 * redelivery. A redelivery is a new delivery row with its own attempts and retry schedule; it
 * carries the same `webhook-id` (the event id), so a receiver that already processed the event
 * recognizes it as a duplicate.
 */

import { type Db, withTransaction } from "../db/handles.ts";
import type { EventType, Merchant } from "../db/types.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { endpointNotFound } from "./endpoints.ts";
import type { ListDeliveriesQuery, ListEventsQuery, RedeliverBody } from "./schemas.ts";
import { ALL_EVENTS } from "./schemas.ts";
import {
  findActiveEndpoint,
  findDeliveriesOfEvent,
  findEvent,
  findSubscribedEndpoints,
  insertRedeliveries,
  listDeliveryRows,
  listEventRows,
} from "./store.ts";
import {
  deliveryView,
  type EventRecord,
  eventView,
  eventWithDeliveriesView,
  listedDeliveryView,
} from "./view.ts";

export const eventNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Event not found");

/** What the events services use: the database or a transaction, and real time for redeliveries. */
export interface EventContext {
  db: Db;
  wallClock: Clock;
}

export async function listEvents(
  ctx: Pick<EventContext, "db">,
  merchant: Merchant,
  query: ListEventsQuery,
): Promise<Page<EventRecord>> {
  const params = parseListQuery<"createdAt">(query, "createdAt");
  const { rows, total } = await listEventRows(ctx.db, merchant.id, query.type, params);
  return listPage(rows.map(eventView), total, params);
}

/**
 * A page of the merchant's webhook deliveries across its endpoints and events (the dashboard's
 * deliveries list, CONTRACT 13). An endpoint id that is not a merchant's endpoint matches nothing.
 */
export async function listDeliveries(
  ctx: Pick<EventContext, "db">,
  merchant: Merchant,
  query: ListDeliveriesQuery,
): Promise<Page<ReturnType<typeof listedDeliveryView>>> {
  const params = parseListQuery<"createdAt">(query, "createdAt");
  const filters = { status: query.status, eventType: query.eventType, endpointId: query.endpointId };
  const { rows, total } = await listDeliveryRows(ctx.db, merchant.id, filters, params);
  return listPage(rows.map(listedDeliveryView), total, params);
}

export async function getEvent(ctx: Pick<EventContext, "db">, merchant: Merchant, id: string) {
  if (!isUuid(id)) throw eventNotFound();
  const event = await findEvent(ctx.db, merchant.id, id);
  if (!event) throw eventNotFound();
  return eventWithDeliveriesView(event, await findDeliveriesOfEvent(ctx.db, event.id));
}

function subscribes(eventTypes: string[], type: EventType): boolean {
  return eventTypes.includes(ALL_EVENTS) || eventTypes.includes(type);
}

/** A redelivery to one endpoint that is disabled. */
export const endpointDisabled = () =>
  new AppError("STATE_CONFLICT", "The webhook endpoint is disabled; enable it first", {
    reason: "endpoint_disabled",
  });

/** A redelivery when no endpoint subscribes to the event's type. */
export const noSubscribedEndpoint = (type: string) =>
  new AppError("STATE_CONFLICT", `No webhook endpoint subscribes to ${type} events`, {
    reason: "no_subscribed_endpoint",
  });

/** A redelivery to one endpoint that does not subscribe to the event's type. */
export const endpointNotSubscribed = (type: string) =>
  new AppError("VALIDATION_ERROR", `The endpoint does not subscribe to ${type} events`, {
    field: "endpointId",
  });

export async function redeliverEvent(ctx: EventContext, merchant: Merchant, id: string, body: RedeliverBody) {
  if (!isUuid(id)) throw eventNotFound();
  const merchantId = merchant.id;
  const rows = await withTransaction(ctx.db, async (trx) => {
    const event = await findEvent(trx, merchantId, id);
    if (!event) throw eventNotFound();
    let endpointIds: string[];
    if (body.endpointId !== undefined) {
      const endpoint = await findActiveEndpoint(trx, merchantId, body.endpointId);
      if (!endpoint) throw endpointNotFound();
      if (endpoint.disabled_at !== null) throw endpointDisabled();
      if (!subscribes(endpoint.event_types, event.type)) throw endpointNotSubscribed(event.type);
      endpointIds = [endpoint.id];
    } else {
      endpointIds = (await findSubscribedEndpoints(trx, merchantId, event.type)).map((e) => e.id);
      if (endpointIds.length === 0) throw noSubscribedEndpoint(event.type);
    }
    const createdAt = ctx.wallClock.now();
    return insertRedeliveries(
      trx,
      endpointIds.map((endpointId) => ({
        id: newId(),
        eventId: event.id,
        endpointId,
        merchantId,
        createdAt,
      })),
    );
  });
  return { eventId: id, deliveries: rows.map((row) => deliveryView(row)) };
}
