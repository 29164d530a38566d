/**
 * SQL of events and webhooks: endpoints, the delivery queue with its claim, the attempt log,
 * and the event reads of the events API. Every read of the public API is scoped by merchant.
 */
import { sql } from "kysely";
import type {
  EventRow,
  EventType,
  WebhookDeliveryAttemptRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
} from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";
import type { Db } from "../merchants/store.ts";

/**
 * Class id of this module's advisory locks (two-key form, as payments/store.ts explains), so
 * they never collide with another module's.
 */
const WEBHOOKS_LOCK_CLASS = 0x5745_4248;

// Endpoints

/** Serializes endpoint creation per merchant, so the per-merchant cap holds under concurrency. */
export async function lockMerchantEndpoints(db: Db, merchantId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${WEBHOOKS_LOCK_CLASS}::int4, hashtext(${merchantId}))`.execute(db);
}

export async function countActiveEndpoints(db: Db, merchantId: string): Promise<number> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .select((eb) => eb.fn.countAll<bigint>().as("n"))
    .where("merchant_id", "=", merchantId)
    .where("deleted_at", "is", null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertEndpoint(
  db: Db,
  row: Omit<WebhookEndpointRow, "previous_secret_encrypted" | "previous_secret_expires_at" | "deleted_at">,
): Promise<WebhookEndpointRow> {
  return db
    .insertInto("webhook_endpoints")
    .values({ ...row, previous_secret_encrypted: null, previous_secret_expires_at: null, deleted_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findActiveEndpoint(
  db: Db,
  merchantId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
}

export async function listActiveEndpoints(
  db: Db,
  merchantId: string,
  window: { offset: number; limit: number },
): Promise<{ rows: WebhookEndpointRow[]; total: number }> {
  const base = db
    .selectFrom("webhook_endpoints")
    .where("merchant_id", "=", merchantId)
    .where("deleted_at", "is", null);
  const counted = await base.select((eb) => eb.fn.countAll<bigint>().as("n")).executeTakeFirstOrThrow();
  const total = Number(counted.n);
  if (window.offset >= total) return { rows: [], total };
  const rows = await base
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(window.limit)
    .offset(window.offset)
    .execute();
  return { rows, total };
}

/** Soft-deletes, so the delivery history of past events keeps naming the endpoint. */
export async function markEndpointDeleted(
  db: Db,
  merchantId: string,
  id: string,
  at: Date,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable("webhook_endpoints")
    .set({ deleted_at: at, updated_at: at })
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

export async function cancelPendingDeliveriesOf(db: Db, endpointId: string, at: Date): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({ status: "canceled", completed_at: at, next_attempt_at: null, lease_id: null, leased_until: null })
    .where("endpoint_id", "=", endpointId)
    .where("status", "=", "pending")
    .execute();
}

/**
 * Replaces the secret; the current one becomes the previous one until `previousExpiresAt`.
 * A second rotation within the overlap drops the oldest secret.
 */
export async function rotateEndpointSecretRow(
  db: Db,
  merchantId: string,
  id: string,
  change: { secretEncrypted: string; previousExpiresAt: Date; at: Date },
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable("webhook_endpoints")
    .set((eb) => ({
      previous_secret_encrypted: eb.ref("secret_encrypted"),
      previous_secret_expires_at: change.previousExpiresAt,
      secret_encrypted: change.secretEncrypted,
      updated_at: change.at,
    }))
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

// Deliveries

/**
 * The outbox fan-out: one pending delivery for each of the merchant's endpoints that
 * subscribes to the event's type, inserted in the caller's transaction (the event's own).
 * An endpoint created after this commits does not receive the event; one deleted before does
 * not either.
 */
export async function insertDeliveriesForEvent(db: Db, event: EventRow): Promise<void> {
  await sql`
    insert into webhook_deliveries (id, event_id, endpoint_id, merchant_id, status)
    select gen_random_uuid(), ${event.id}, e.id, e.merchant_id, 'pending'
    from webhook_endpoints e
    where e.merchant_id = ${event.merchant_id}
      and e.deleted_at is null
      and (${event.type}::text = any (e.event_types) or '*' = any (e.event_types))
  `.execute(db);
}

/** The merchant's endpoints that subscribe to `type` now. */
export async function findSubscribedEndpoints(
  db: Db,
  merchantId: string,
  type: EventType,
): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("deleted_at", "is", null)
    .where((eb) =>
      eb.or([
        eb(sql.val<string>(type), "=", eb.fn.any("event_types")),
        eb(sql.val<string>("*"), "=", eb.fn.any("event_types")),
      ]),
    )
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .execute();
}

export async function insertRedeliveries(
  db: Db,
  rows: Array<{ id: string; eventId: string; endpointId: string; merchantId: string; createdAt: Date }>,
): Promise<WebhookDeliveryRow[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto("webhook_deliveries")
    .values(
      rows.map((row) => ({
        id: row.id,
        event_id: row.eventId,
        endpoint_id: row.endpointId,
        merchant_id: row.merchantId,
        status: "pending" as const,
        attempt_count: 0,
        next_attempt_at: null,
        lease_id: null,
        leased_until: null,
        last_status_code: null,
        last_error: null,
        created_at: row.createdAt,
        completed_at: null,
      })),
    )
    .returningAll()
    .execute();
}

export interface ClaimOptions {
  now: Date;
  leaseId: string;
  leasedUntil: Date;
  /** Most rows to claim. */
  capacity: number;
  /** Most rows of one endpoint under lease at once, counting leases already held. */
  perEndpoint: number;
}

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  leaseId: string;
  attemptNumber: number;
  eventId: string;
  eventType: EventType;
  eventCreatedAt: Date;
  eventData: Record<string, unknown>;
  endpointId: string;
  url: string;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
  endpointDeleted: boolean;
}

/**
 * Claims due deliveries by giving them a lease: `FOR UPDATE SKIP LOCKED` makes concurrent
 * claimers in any number of processes take disjoint rows, and the lease keeps a claimed row
 * away from other claimers until it is recorded or the lease runs out (the worker died; the
 * delivery is then sent again, which is what at-least-once means).
 *
 * Fairness: each endpoint contributes at most `perEndpoint` rows minus the leases it already
 * holds, so a slow endpoint with a long backlog fills a few slots and never the whole batch.
 * Two claimers running at the same instant can each take an endpoint's allowance, so the cap
 * is exact per process and at most one allowance per concurrent claimer above it overall.
 */
export async function claimDueDeliveries(db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (options.capacity <= 0) return [];
  const { now } = options;
  const claimed = await sql<{ id: string; attempt_count: number }>`
    with busy as (
      select endpoint_id, count(*)::int as n
      from webhook_deliveries
      where status = 'pending' and leased_until > ${now}
      group by endpoint_id
    ),
    candidates as (
      select d.id,
        row_number() over (partition by d.endpoint_id order by d.next_attempt_at nulls first, d.id) as rank,
        coalesce(b.n, 0) as busy
      from webhook_deliveries d
      left join busy b on b.endpoint_id = d.endpoint_id
      where d.status = 'pending'
        and (d.next_attempt_at is null or d.next_attempt_at <= ${now})
        and (d.leased_until is null or d.leased_until <= ${now})
    )
    update webhook_deliveries d
    set lease_id = ${options.leaseId}, leased_until = ${options.leasedUntil}
    where d.id in (
      select w.id
      from webhook_deliveries w
      where w.id in (select c.id from candidates c where c.rank + c.busy <= ${options.perEndpoint})
        and w.status = 'pending'
        and (w.next_attempt_at is null or w.next_attempt_at <= ${now})
        and (w.leased_until is null or w.leased_until <= ${now})
      order by w.next_attempt_at nulls first, w.id
      limit ${options.capacity}
      for update skip locked
    )
    returning d.id, d.attempt_count
  `.execute(db);
  if (claimed.rows.length === 0) return [];

  const attempts = new Map(claimed.rows.map((row) => [row.id, Number(row.attempt_count)]));
  const rows = await db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("events as e", "e.id", "d.event_id")
    .innerJoin("webhook_endpoints as w", "w.id", "d.endpoint_id")
    .select([
      "d.id as id",
      "d.event_id as eventId",
      "e.type as eventType",
      "e.created_at as eventCreatedAt",
      "e.data as eventData",
      "d.endpoint_id as endpointId",
      "w.url as url",
      "w.secret_encrypted as secretEncrypted",
      "w.previous_secret_encrypted as previousSecretEncrypted",
      "w.previous_secret_expires_at as previousSecretExpiresAt",
      "w.deleted_at as endpointDeletedAt",
    ])
    .where("d.id", "in", [...attempts.keys()])
    .orderBy("d.next_attempt_at", (ob) => ob.asc().nullsFirst())
    .orderBy("d.id")
    .execute();
  return rows.map(({ endpointDeletedAt, ...row }) => ({
    ...row,
    leaseId: options.leaseId,
    attemptNumber: (attempts.get(row.id) ?? 0) + 1,
    endpointDeleted: endpointDeletedAt !== null,
  }));
}

export interface AttemptRecord {
  deliveryId: string;
  leaseId: string;
  attemptId: string;
  attemptNumber: number;
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  startedAt: Date;
  finishedAt: Date;
  /** When the next attempt is due; null when there is none (success, or the last attempt). */
  nextRetryAt: Date | null;
}

/**
 * Logs one attempt and moves the delivery on: succeeded, failed (no retry left) or pending
 * with its next attempt time. The state change applies only while this worker's lease holds
 * and the delivery is still pending (a delete of the endpoint may have canceled it meanwhile);
 * the attempt is logged either way, because it happened.
 */
export async function recordAttempt(db: Db, record: AttemptRecord): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("webhook_delivery_attempts")
      .values({
        id: record.attemptId,
        delivery_id: record.deliveryId,
        attempt_number: record.attemptNumber,
        succeeded: record.succeeded,
        status_code: record.statusCode,
        duration_ms: record.durationMs,
        error: record.error,
        started_at: record.startedAt,
        finished_at: record.finishedAt,
        next_retry_at: record.nextRetryAt,
      })
      .execute();
    const finished = record.succeeded || record.nextRetryAt === null;
    await trx
      .updateTable("webhook_deliveries")
      .set({
        status: record.succeeded ? "succeeded" : finished ? "failed" : "pending",
        attempt_count: record.attemptNumber,
        next_attempt_at: finished ? null : record.nextRetryAt,
        lease_id: null,
        leased_until: null,
        last_status_code: record.statusCode,
        last_error: record.error,
        completed_at: finished ? record.finishedAt : null,
      })
      .where("id", "=", record.deliveryId)
      .where("lease_id", "=", record.leaseId)
      .where("status", "=", "pending")
      .execute();
  });
}

/** Cancels a claimed delivery whose endpoint was deleted after the claim. */
export async function cancelClaimedDelivery(db: Db, id: string, leaseId: string, at: Date): Promise<void> {
  await db
    .updateTable("webhook_deliveries")
    .set({ status: "canceled", completed_at: at, next_attempt_at: null, lease_id: null, leased_until: null })
    .where("id", "=", id)
    .where("lease_id", "=", leaseId)
    .where("status", "=", "pending")
    .execute();
}

// Events

export async function findEvent(db: Db, merchantId: string, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom("events")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** One page of a merchant's events, newest first, ties broken by id. */
export async function listEventRows(
  db: Db,
  merchantId: string,
  type: EventType | undefined,
  params: ListParams<"createdAt">,
): Promise<{ rows: EventRow[]; total: number }> {
  let query = db.selectFrom("events").where("merchant_id", "=", merchantId);
  if (type !== undefined) query = query.where("type", "=", type);
  if (params.dateFrom !== undefined) query = query.where("created_at", ">=", params.dateFrom);
  if (params.dateTo !== undefined) query = query.where("created_at", "<", params.dateTo);
  const counted = await query.select((eb) => eb.fn.countAll<bigint>().as("n")).executeTakeFirstOrThrow();
  const total = Number(counted.n);
  if (params.offset >= total) return { rows: [], total };
  const rows = await query
    .selectAll()
    .orderBy("created_at", params.sortOrder)
    .orderBy("id", params.sortOrder)
    .limit(params.limit)
    .offset(params.offset)
    .execute();
  return { rows, total };
}

export interface DeliveryWithAttempts {
  delivery: WebhookDeliveryRow;
  attempts: WebhookDeliveryAttemptRow[];
}

/** Every delivery of an event, oldest first, each with its attempts in order. */
export async function findDeliveriesOfEvent(db: Db, eventId: string): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("event_id", "=", eventId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .execute();
  if (deliveries.length === 0) return [];
  const attempts = await db
    .selectFrom("webhook_delivery_attempts")
    .selectAll()
    .where(
      "delivery_id",
      "in",
      deliveries.map((d) => d.id),
    )
    .orderBy("attempt_number", "asc")
    .orderBy("started_at", "asc")
    .execute();
  return deliveries.map((delivery) => ({
    delivery,
    attempts: attempts.filter((attempt) => attempt.delivery_id === delivery.id),
  }));
}
