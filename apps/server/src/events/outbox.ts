/**
 * The transactional outbox. A service that changes the state of a payment or a withdraw calls
 * `recordEvent` with the same transaction handle, so the event commits with the change or not
 * at all. In that same transaction it queues one delivery for each of the merchant's webhook
 * endpoints that subscribes to the event's type (events/store.ts), so a crash after the commit
 * cannot lose a delivery: the worker (events/delivery.ts) finds the row and sends it.
 */

import type { Db } from "../db/handles.ts";
import type { EventObjectType, EventRow, EventType } from "../db/types.ts";
import { newId } from "../lib/ids.ts";
import { insertDeliveriesForEvent } from "./store.ts";

interface EventInput {
  merchantId: string;
  type: EventType;
  objectType: EventObjectType;
  /** The full current record, exactly as the API returns it. */
  object: { id: string } & Record<string, unknown>;
  /** Business time of the change. */
  occurredAt: Date;
}

export async function recordEvent(trx: Db, input: EventInput): Promise<EventRow> {
  const event = await trx
    .insertInto("events")
    .values({
      id: newId(),
      merchant_id: input.merchantId,
      type: input.type,
      object_type: input.objectType,
      object_id: input.object.id,
      data: JSON.stringify({ object: input.object }),
      created_at: input.occurredAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertDeliveriesForEvent(trx, event);
  return event;
}
