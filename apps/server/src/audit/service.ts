/**
 * The audit log (CONTRACT 2): who did what to which record, from where and when. Entries are
 * written by `recordAudit` (in the caller's transaction when it has one) and read in pages;
 * nothing changes or deletes them (the database refuses it).
 */
import type { Db } from "../db/handles.ts";
import type { AuditActorKind, AuditLogRow, AuditVia } from "../db/types.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import type { Clock } from "../lib/clock.ts";
import { newId } from "../lib/ids.ts";
import type { AuditEntry, AuditLogQuery, MerchantAuditEntry } from "./schemas.ts";
import { insertAuditEntry, selectAuditPage } from "./store.ts";

/** Who acted: the credential's kind, its id (none for ADMIN_TOKEN), its name, and the tool. */
export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  name: string;
  via: AuditVia;
}

/** What was done, to which record of which merchant, by which request from which address. */
export interface AuditAction {
  action: string;
  recordType: string;
  recordId: string | null;
  merchantId: string | null;
  requestId: string;
  clientAddress: string;
}

export async function recordAudit(
  ctx: { db: Db; wallClock: Clock },
  actor: AuditActor,
  what: AuditAction,
  db: Db = ctx.db,
): Promise<void> {
  await insertAuditEntry(db, {
    id: newId(),
    created_at: ctx.wallClock.now(),
    actor_kind: actor.kind,
    actor_id: actor.id,
    actor_name: actor.name.slice(0, 254),
    via: actor.via,
    action: what.action,
    record_type: what.recordType,
    record_id: what.recordId,
    merchant_id: what.merchantId,
    request_id: what.requestId,
    client_address: what.clientAddress,
  });
}

export function auditEntryView(row: AuditLogRow): AuditEntry {
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    actorKind: row.actor_kind,
    actorId: row.actor_id,
    actorName: row.actor_name,
    via: row.via,
    action: row.action,
    recordType: row.record_type,
    recordId: row.record_id,
    merchantId: row.merchant_id,
    requestId: row.request_id,
    clientAddress: row.client_address,
  };
}

/** A page of entries, newest first unless asked otherwise; ties break by id. */
export async function listAuditLog(ctx: { db: Db }, query: AuditLogQuery): Promise<Page<AuditEntry>> {
  const params = parseListQuery(query, "createdAt");
  const { rows, total } = await selectAuditPage(
    ctx.db,
    {
      merchantId: query.merchantId,
      actor: query.actor,
      action: query.action,
      recordId: query.recordId,
      dateFrom: params.dateFrom,
      dateTo: params.dateTo,
    },
    { offset: params.offset, limit: params.limit },
    params,
  );
  return listPage(rows.map(auditEntryView), total, params);
}

/**
 * The merchant's own entries, as its dashboard reads them: the operators' actions on its records
 * without the operator's network address (schemas.ts `MerchantAuditEntrySchema`).
 */
export async function listMerchantAuditLog(
  ctx: { db: Db },
  merchantId: string,
  query: Omit<AuditLogQuery, "merchantId">,
): Promise<Page<MerchantAuditEntry>> {
  const page = await listAuditLog(ctx, { ...query, merchantId });
  return {
    ...page,
    data: page.data.map((entry) =>
      entry.actorKind === "dashboard_user" ? entry : { ...entry, clientAddress: null },
    ),
  };
}
