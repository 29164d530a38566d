/**
 * Webhook endpoints of a merchant: create (the secret is shown once and stored only encrypted,
 * like integration secrets), list, retrieve, disable and enable, delete, and secret rotation.
 *
 * The URL is checked in full before anything is stored (events/url-guard.ts), outside the
 * transaction, because resolving a host name can take seconds and a transaction should not
 * wait on DNS. Delivery checks it again every time, so a URL that passes now and is re-pointed
 * later is still refused then.
 *
 * Rotation: the new secret signs at once, and the previous one keeps signing beside it for
 * WEBHOOK_SECRET_ROTATION_OVERLAP_MS (24 h) of wall-clock time, so the merchant can roll the new
 * secret out to its receivers without a window where deliveries fail verification.
 */
import { type Db, withTransaction } from "../db/handles.ts";
import { EVENT_TYPES, type Merchant } from "../db/types.ts";
import type { Page } from "../http/envelope.ts";
import { listPage } from "../http/list-query.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import type { SecretBox } from "../lib/crypto.ts";
import { AppError, fieldError } from "../lib/errors.ts";
import { isUuid, newId } from "../lib/ids.ts";
import {
  PAGE_SIZE_DEFAULT,
  WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX,
  WEBHOOK_SECRET_ROTATION_OVERLAP_MS,
} from "../lib/limits.ts";
import { pageOffset } from "../lib/page-offset.ts";
import { ALL_EVENTS, type CreateEndpointBody, type PageQuery, type UpdateEndpointBody } from "./schemas.ts";
import type { WebhookSettings } from "./settings.ts";
import { newEndpointSecret } from "./signing.ts";
import {
  cancelPendingDeliveriesOf,
  countActiveEndpoints,
  findActiveEndpoint,
  insertEndpoint,
  listActiveEndpoints,
  lockMerchantEndpoints,
  markEndpointDeleted,
  rotateEndpointSecretRow,
  setEndpointDisabled,
} from "./store.ts";
import { UrlRefused, vetWebhookUrl } from "./url-guard.ts";
import { type EndpointRecord, endpointView } from "./view.ts";

export const endpointNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Webhook endpoint not found");

interface EndpointWithSecret extends EndpointRecord {
  secret: string;
}

/**
 * What the endpoint services use: the database or a transaction, the business clock (record
 * times), real time (secret rotation), the box that seals secrets, and the URL rules.
 */
export interface EndpointContext {
  db: Db;
  clock: Clock;
  wallClock: Clock;
  secrets: SecretBox;
  webhooks: WebhookSettings;
}

/** The URL rules of the deployment's environment, or a 400 naming the `url` field. */
async function checkEndpointUrl(settings: WebhookSettings, url: string): Promise<void> {
  try {
    await vetWebhookUrl(url, settings, settings.resolve);
  } catch (error) {
    if (error instanceof UrlRefused) throw fieldError("VALIDATION_ERROR", "url", error.message);
    throw error;
  }
}

/** `["*"]` stands alone; a list of types is stored in the order of EVENT_TYPES. */
function normalizeEvents(events: string[]): string[] {
  if (events.includes(ALL_EVENTS)) {
    if (events.length > 1) {
      throw fieldError("VALIDATION_ERROR", "events", 'events must be ["*"] alone or a list of event types');
    }
    return [ALL_EVENTS];
  }
  return EVENT_TYPES.filter((type) => events.includes(type));
}

export async function createEndpoint(
  ctx: EndpointContext,
  merchant: Merchant,
  body: CreateEndpointBody,
): Promise<EndpointWithSecret> {
  const events = normalizeEvents(body.events);
  await checkEndpointUrl(ctx.webhooks, body.url);
  const secret = newEndpointSecret();
  const merchantId = merchant.id;
  const row = await withTransaction(ctx.db, async (trx) => {
    await lockMerchantEndpoints(trx, merchantId);
    if ((await countActiveEndpoints(trx, merchantId)) >= WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX) {
      throw fieldError(
        "VALIDATION_ERROR",
        "url",
        `A merchant can have at most ${WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX} webhook endpoints; delete one first`,
      );
    }
    const at = businessNow(ctx.clock, merchant.clock_offset_ms);
    return insertEndpoint(trx, {
      id: newId(),
      merchant_id: merchantId,
      url: body.url,
      description: body.description ?? null,
      event_types: events,
      secret_encrypted: ctx.secrets.seal(secret),
      created_at: at,
      updated_at: at,
    });
  });
  return { ...endpointView(row, ctx.wallClock.now()), secret };
}

export async function listEndpoints(
  ctx: Pick<EndpointContext, "db" | "wallClock">,
  merchant: Merchant,
  query: PageQuery,
): Promise<Page<EndpointRecord>> {
  const pageNumber = query.page ?? 1;
  const limit = query.limit ?? PAGE_SIZE_DEFAULT;
  const { rows, total } = await listActiveEndpoints(ctx.db, merchant.id, {
    offset: pageOffset(pageNumber, limit),
    limit,
  });
  const now = ctx.wallClock.now();
  return listPage(
    rows.map((row) => endpointView(row, now)),
    total,
    { page: pageNumber, limit },
  );
}

export async function getEndpoint(
  ctx: Pick<EndpointContext, "db" | "wallClock">,
  merchant: Merchant,
  id: string,
): Promise<EndpointRecord> {
  if (!isUuid(id)) throw endpointNotFound();
  const row = await findActiveEndpoint(ctx.db, merchant.id, id);
  if (!row) throw endpointNotFound();
  return endpointView(row, ctx.wallClock.now());
}

/** Deletes the endpoint and cancels its pending deliveries; past attempts stay readable. */
export async function deleteEndpoint(
  ctx: Pick<EndpointContext, "db" | "clock" | "wallClock">,
  merchant: Merchant,
  id: string,
): Promise<EndpointRecord> {
  if (!isUuid(id)) throw endpointNotFound();
  const row = await withTransaction(ctx.db, async (trx) => {
    const at = businessNow(ctx.clock, merchant.clock_offset_ms);
    const deleted = await markEndpointDeleted(trx, merchant.id, id, at);
    if (!deleted) throw endpointNotFound();
    await cancelPendingDeliveriesOf(trx, id, ctx.wallClock.now());
    return deleted;
  });
  return endpointView(row, ctx.wallClock.now());
}

/**
 * Disables or enables an endpoint. Disabling cancels its pending deliveries in the same
 * transaction, so nothing queued before is sent while it is disabled; the outbox leaves it out
 * of events made meanwhile. Enabling sends the events made from then on; missed ones can be
 * redelivered by event id.
 */
export async function updateEndpoint(
  ctx: Pick<EndpointContext, "db" | "clock" | "wallClock">,
  merchant: Merchant,
  id: string,
  body: UpdateEndpointBody,
): Promise<EndpointRecord> {
  if (!isUuid(id)) throw endpointNotFound();
  const row = await withTransaction(ctx.db, async (trx) => {
    const at = businessNow(ctx.clock, merchant.clock_offset_ms);
    const updated = await setEndpointDisabled(trx, merchant.id, id, body.disabled ? at : null, at);
    if (!updated) throw endpointNotFound();
    if (body.disabled) await cancelPendingDeliveriesOf(trx, id, ctx.wallClock.now());
    return updated;
  });
  return endpointView(row, ctx.wallClock.now());
}

export async function rotateEndpointSecret(
  ctx: Omit<EndpointContext, "webhooks">,
  merchant: Merchant,
  id: string,
): Promise<EndpointWithSecret> {
  if (!isUuid(id)) throw endpointNotFound();
  const secret = newEndpointSecret();
  const wallNow = ctx.wallClock.now();
  const row = await withTransaction(ctx.db, (trx) =>
    rotateEndpointSecretRow(trx, merchant.id, id, {
      secretEncrypted: ctx.secrets.seal(secret),
      previousExpiresAt: new Date(wallNow.getTime() + WEBHOOK_SECRET_ROTATION_OVERLAP_MS),
      at: businessNow(ctx.clock, merchant.clock_offset_ms),
    }),
  );
  if (!row) throw endpointNotFound();
  return { ...endpointView(row, wallNow), secret };
}
