/**
 * SQL of events and webhooks: endpoints, the delivery queue with its claim, the attempt log,
 * and the event reads of the events API. Every read of the public API is scoped by merchant.
 */
import { sql } from "kysely";
import { afterLastChange, notBeforeLastChange } from "../db/change-times.ts";
import { isFixedValue } from "../db/fixed-sets.ts";
import type { Db, Trx } from "../db/handles.ts";
import { createdWithin, selectPage } from "../db/pages.ts";
import type {
  EventRow,
  EventType,
  WebhookAttemptErrorCode,
  WebhookDeliveryAttemptRow,
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookEndpointRow,
} from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";

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
  row: Omit<
    WebhookEndpointRow,
    "previous_secret_encrypted" | "previous_secret_expires_at" | "deleted_at" | "disabled_at"
  >,
): Promise<WebhookEndpointRow> {
  return db
    .insertInto("webhook_endpoints")
    .values({
      ...row,
      previous_secret_encrypted: null,
      previous_secret_expires_at: null,
      deleted_at: null,
      disabled_at: null,
    })
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
  const query = db
    .selectFrom("webhook_endpoints")
    .where("merchant_id", "=", merchantId)
    .where("deleted_at", "is", null);
  return selectPage(query, window, { column: "created_at", direction: "desc" });
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
    .set({ deleted_at: notBeforeLastChange(at), updated_at: afterLastChange(at) })
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .where("deleted_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Disables (`disabledAt` set) or enables (null) an endpoint that is not deleted. Disabling an
 * endpoint already disabled keeps its first time; enabling one already enabled changes nothing.
 * Answers the endpoint as it is now, or undefined when there is none.
 */
export async function setEndpointDisabled(
  db: Db,
  merchantId: string,
  id: string,
  disabledAt: Date | null,
  at: Date,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable("webhook_endpoints")
    .set((eb) => ({
      disabled_at:
        disabledAt === null ? null : eb.fn.coalesce("disabled_at", notBeforeLastChange(disabledAt)),
      updated_at: afterLastChange(at),
    }))
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
    // webhook_deliveries_endpoint_due's predicate, in the text (db/fixed-sets.ts).
    .where(isFixedValue("status", "pending"))
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
      updated_at: afterLastChange(change.at),
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
 * An endpoint created after this commits does not receive the event; one deleted or disabled
 * before does not either.
 */
export async function insertDeliveriesForEvent(db: Db, event: EventRow): Promise<void> {
  await sql`
    insert into webhook_deliveries (id, event_id, endpoint_id, merchant_id, status)
    select gen_random_uuid(), ${event.id}, e.id, e.merchant_id, 'pending'
    from webhook_endpoints e
    where e.merchant_id = ${event.merchant_id}
      and e.deleted_at is null
      and e.disabled_at is null
      and (${event.type}::text = any (e.event_types) or '*' = any (e.event_types))
  `.execute(db);
}

/** The merchant's enabled endpoints that subscribe to `type` now. */
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
    .where("disabled_at", "is", null)
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
  /** Endpoints whose limit differs from `perEndpoint` (the adaptive limits of concurrency.ts). */
  endpointLimits?: ReadonlyArray<{ endpointId: string; limit: number }>;
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
  /** When its first attempt ended, the time its retries are scheduled from; null before it. */
  firstTriedAt: Date | null;
  endpointId: string;
  url: string;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
  /** The endpoint was deleted or disabled after the delivery was made: it is not sent. */
  endpointDeleted: boolean;
}

/**
 * Claims due deliveries by giving them a lease: `FOR UPDATE SKIP LOCKED` makes concurrent
 * claimers in any number of processes take disjoint rows, and the lease keeps a claimed row
 * away from other claimers until it is recorded or the lease runs out (the worker died; the
 * delivery is then sent again, which is what at-least-once means).
 *
 * The claim walks the endpoints that have pending deliveries (a skip scan of the
 * `webhook_deliveries_endpoint_due` index: one probe per endpoint, however long its backlog)
 * and takes from each at most its limit minus the leases it already holds, oldest due first
 * (the `webhook_deliveries_endpoint_leased` index counts those). So a slow endpoint with a long
 * backlog fills a few slots and never the whole batch, and the cost of a claim grows with the
 * number of endpoints with pending work, not with the backlog. Two claimers running at the same
 * instant can each take an endpoint's allowance, so the cap is exact per process and at most one
 * allowance per concurrent claimer above it overall.
 */
/** The claim itself: leases the due rows and returns their ids and attempt counts. */
async function leaseDueRows(
  db: Db,
  options: ClaimOptions,
): Promise<Array<{ id: string; attempt_count: number }>> {
  const { now } = options;
  const limits = JSON.stringify(
    (options.endpointLimits ?? []).map(({ endpointId, limit }) => ({ endpoint_id: endpointId, limit })),
  );
  const claimed = await sql<{ id: string; attempt_count: number }>`
    with recursive endpoints (endpoint_id) as (
      (select endpoint_id from webhook_deliveries where status = 'pending' order by endpoint_id limit 1)
      union all
      select (
        select d.endpoint_id from webhook_deliveries d
        where d.status = 'pending' and d.endpoint_id > e.endpoint_id
        order by d.endpoint_id limit 1
      )
      from endpoints e
      where e.endpoint_id is not null
    ),
    limits as (
      select * from jsonb_to_recordset(${limits}::jsonb) as l (endpoint_id uuid, "limit" int)
    ),
    allowances as (
      select e.endpoint_id, coalesce(l."limit", ${options.perEndpoint}::int) - (
        select count(*)::int from webhook_deliveries b
        where b.endpoint_id = e.endpoint_id and b.status = 'pending'
          and b.lease_id is not null and b.leased_until > ${now}
      ) as allowance
      from endpoints e
      left join limits l on l.endpoint_id = e.endpoint_id
      where e.endpoint_id is not null
    ),
    picked as (
      select c.id, c.due_at
      from allowances a
      cross join lateral (
        -- Oldest due first: an untried delivery is due since it was made (migration 0121).
        select d.id, coalesce(d.next_attempt_at, d.created_at) as due_at
        from webhook_deliveries d
        where d.endpoint_id = a.endpoint_id
          and d.status = 'pending'
          and (d.next_attempt_at is null or d.next_attempt_at <= ${now})
          and (d.leased_until is null or d.leased_until <= ${now})
        order by coalesce(d.next_attempt_at, d.created_at), d.id
        limit greatest(a.allowance, 0)
        for update skip locked
      ) c
      order by c.due_at, c.id
      limit ${options.capacity}
    )
    update webhook_deliveries d
    set lease_id = ${options.leaseId}, leased_until = ${options.leasedUntil}
    from picked p
    where d.id = p.id
    returning d.id, d.attempt_count
  `.execute(db);
  return claimed.rows;
}

export async function claimDueDeliveries(db: Db, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (options.capacity <= 0) return [];
  const claimed = { rows: await leaseDueRows(db, options) };
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
      // An attempt whose lease ran out may be logged twice: the earliest end is the first try.
      (eb) =>
        eb
          .selectFrom("webhook_delivery_attempts as a")
          .select((ab) => ab.fn.min("a.finished_at").as("at"))
          .whereRef("a.delivery_id", "=", "d.id")
          .where("a.attempt_number", "=", 1)
          .as("firstTriedAt"),
      "d.endpoint_id as endpointId",
      "w.url as url",
      "w.secret_encrypted as secretEncrypted",
      "w.previous_secret_encrypted as previousSecretEncrypted",
      "w.previous_secret_expires_at as previousSecretExpiresAt",
      "w.deleted_at as endpointDeletedAt",
      "w.disabled_at as endpointDisabledAt",
    ])
    .where("d.id", "in", [...attempts.keys()])
    .orderBy(sql`coalesce(d.next_attempt_at, d.created_at)`)
    .orderBy("d.id")
    .execute();
  return rows.map(({ endpointDeletedAt, endpointDisabledAt, ...row }) => ({
    ...row,
    leaseId: options.leaseId,
    attemptNumber: (attempts.get(row.id) ?? 0) + 1,
    endpointDeleted: endpointDeletedAt !== null || endpointDisabledAt !== null,
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
  errorCode: WebhookAttemptErrorCode | null;
  responseExcerpt: string | null;
  startedAt: Date;
  finishedAt: Date;
  /** When the next attempt is due; null when there is none (success, or the last attempt). */
  nextRetryAt: Date | null;
}

/**
 * Logs attempts and moves each delivery on: succeeded, failed (no retry left) or pending with
 * its next attempt time, all in one transaction (a worker records the attempts that finished
 * together in one commit). The state change applies only while the attempt's lease holds and
 * the delivery is still pending (a delete of the endpoint may have canceled it meanwhile, or
 * another worker may have taken over a lease that ran out); the attempt is logged either way,
 * because it happened.
 */
export async function recordAttempts(db: Db, records: readonly AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const moves = records.map((record) => {
    const finished = record.succeeded || record.nextRetryAt === null;
    return {
      id: record.deliveryId,
      lease_id: record.leaseId,
      status: record.succeeded ? "succeeded" : finished ? "failed" : "pending",
      attempt_count: record.attemptNumber,
      next_attempt_at: finished ? null : record.nextRetryAt,
      last_status_code: record.statusCode,
      last_error: record.error,
      completed_at: finished ? record.finishedAt : null,
      succeeded: record.succeeded,
      finished_at: record.finishedAt,
      attempt_id: record.attemptId,
    };
  });
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("webhook_delivery_attempts")
      .values(
        records.map((record) => ({
          id: record.attemptId,
          delivery_id: record.deliveryId,
          attempt_number: record.attemptNumber,
          succeeded: record.succeeded,
          status_code: record.statusCode,
          duration_ms: record.durationMs,
          error: record.error,
          error_code: record.errorCode,
          response_excerpt: record.responseExcerpt,
          started_at: record.startedAt,
          finished_at: record.finishedAt,
          next_retry_at: record.nextRetryAt,
        })),
      )
      .execute();
    const moved = await sql`
      update webhook_deliveries d
      set status = m.status, attempt_count = m.attempt_count, next_attempt_at = m.next_attempt_at,
        lease_id = null, leased_until = null, last_status_code = m.last_status_code,
        last_error = m.last_error, completed_at = m.completed_at
      from jsonb_to_recordset(${JSON.stringify(moves)}::jsonb) as m (
        id uuid, lease_id uuid, status text, attempt_count int, next_attempt_at timestamptz,
        last_status_code int, last_error text, completed_at timestamptz
      )
      where d.id = m.id and d.lease_id = m.lease_id and d.status = 'pending'
    `.execute(trx);
    if (Number(moved.numAffectedRows ?? 0n) < moves.length) await settleCanceled(trx, moves);
  });
}

/**
 * A delivery canceled while its attempt was out (its endpoint deleted or disabled) counts the
 * attempt it logs and says what the endpoint answered; an attempt answered 2xx delivered the
 * event, so that delivery reads succeeded. No retry follows either way, and its attempt says so.
 */
async function settleCanceled(trx: Trx, moves: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  await sql`
      with settled as (
        update webhook_deliveries d
        set attempt_count = m.attempt_count, last_status_code = m.last_status_code,
          last_error = m.last_error,
          status = case when m.succeeded then 'succeeded' else d.status end,
          completed_at = case when m.succeeded then m.finished_at else d.completed_at end
        from jsonb_to_recordset(${JSON.stringify(moves)}::jsonb) as m (
          id uuid, attempt_count int, last_status_code int, last_error text, succeeded boolean,
          finished_at timestamptz, attempt_id uuid
        )
        where d.id = m.id and d.status = 'canceled' and d.attempt_count < m.attempt_count
        returning m.attempt_id
      )
      update webhook_delivery_attempts a set next_retry_at = null
      from settled where a.id = settled.attempt_id
    `.execute(trx);
}

/**
 * Extends the leases of deliveries still being sent (the heartbeat of a live worker). Only a
 * lease this worker still holds moves: one that ran out and was taken by another worker is not
 * taken back.
 */
export async function renewLeases(
  db: Db,
  held: ReadonlyArray<{ id: string; leaseId: string }>,
  until: Date,
): Promise<void> {
  if (held.length === 0) return;
  await db
    .updateTable("webhook_deliveries")
    .set({ leased_until: until })
    .where(
      "id",
      "in",
      held.map((lease) => lease.id),
    )
    .where("lease_id", "in", [...new Set(held.map((lease) => lease.leaseId))])
    .where("status", "=", "pending")
    .execute();
}

/** Cancels a claimed delivery whose endpoint was deleted or disabled after the claim. */
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
  return selectPage(createdWithin(query, params), params, {
    column: "created_at",
    direction: params.sortOrder,
  });
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

/** What the deliveries list filters by, beyond its dates and page. */
export interface DeliveryFilters {
  status: WebhookDeliveryStatus | undefined;
  eventType: EventType | undefined;
  endpointId: string | undefined;
}

/** A delivery of the list, with its event's type and its endpoint's address. */
export interface ListedDelivery {
  delivery: WebhookDeliveryRow;
  eventType: EventType;
  endpointUrl: string;
}

/**
 * One page of a merchant's deliveries (every endpoint, every event), newest first unless asked
 * otherwise, ties broken by id; then the page's events and endpoints in one read each.
 */
export async function listDeliveryRows(
  db: Db,
  merchantId: string,
  filters: DeliveryFilters,
  params: ListParams<"createdAt">,
): Promise<{ rows: ListedDelivery[]; total: number }> {
  let query = db.selectFrom("webhook_deliveries").where("merchant_id", "=", merchantId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.endpointId !== undefined) query = query.where("endpoint_id", "=", filters.endpointId);
  const eventType = filters.eventType;
  if (eventType !== undefined) {
    query = query.where("event_id", "in", (eb) =>
      eb
        .selectFrom("events")
        .select("events.id")
        .where("events.merchant_id", "=", merchantId)
        .where("events.type", "=", eventType),
    );
  }
  const { rows, total } = await selectPage(createdWithin(query, params), params, {
    column: "created_at",
    direction: params.sortOrder,
  });
  if (rows.length === 0) return { rows: [], total };
  const [events, endpoints] = await Promise.all([
    db
      .selectFrom("events")
      .select(["id", "type"])
      .where("id", "in", [...new Set(rows.map((row) => row.event_id))])
      .execute(),
    db
      .selectFrom("webhook_endpoints")
      .select(["id", "url"])
      .where("id", "in", [...new Set(rows.map((row) => row.endpoint_id))])
      .execute(),
  ]);
  const typeOf = new Map(events.map((event) => [event.id, event.type]));
  const urlOf = new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.url]));
  return {
    rows: rows.map((delivery) => ({
      delivery,
      eventType: typeOf.get(delivery.event_id) as EventType,
      endpointUrl: urlOf.get(delivery.endpoint_id) ?? "",
    })),
    total,
  };
}
