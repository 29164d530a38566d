/**
 * SQL of the audit log (migration 0090): insert and list. There is no update or delete here,
 * and the database refuses both (a trigger), so an entry once written stays as written.
 */
import { sql } from "kysely";
import type { Db } from "../db/handles.ts";
import { createdWithin, orderingOf, type SortColumns, selectPage } from "../db/pages.ts";
import type { AuditLogRow } from "../db/types.ts";
import type { AuditSortField } from "./schemas.ts";

export async function insertAuditEntry(db: Db, row: AuditLogRow): Promise<void> {
  await db.insertInto("audit_log").values(row).execute();
}

export interface AuditFilter {
  merchantId: string | undefined;
  actor: string | undefined;
  action: string | undefined;
  recordId: string | undefined;
  dateFrom: Date | undefined;
  dateTo: Date | undefined;
}

/** The audit log sorts by its time only; ties break by id, as every list (db/pages.ts). */
const AUDIT_SORT: SortColumns<AuditSortField> = {
  columns: { createdAt: "created_at" },
  byteOrdered: [],
  emptyLast: [],
};

export async function selectAuditPage(
  db: Db,
  filter: AuditFilter,
  window: { offset: number; limit: number },
  sort: { sortBy: AuditSortField; sortOrder: "asc" | "desc" },
): Promise<{ rows: AuditLogRow[]; total: number }> {
  let query = createdWithin(db.selectFrom("audit_log"), filter);
  if (filter.merchantId !== undefined) query = query.where("merchant_id", "=", filter.merchantId);
  // Names are one name in any case (operator tokens), so the filter folds case too (0117).
  if (filter.actor !== undefined) {
    query = query.where(sql<boolean>`lower(actor_name) = lower(${filter.actor})`);
  }
  if (filter.action !== undefined) query = query.where("action", "=", filter.action);
  if (filter.recordId !== undefined) query = query.where("record_id", "=", filter.recordId);
  return selectPage(query, window, orderingOf(AUDIT_SORT, sort));
}

/** The tables whose rows name their merchant, by the audit log's record types. */
const MERCHANT_TABLES = {
  withdraw: "withdraws",
  refund: "refunds",
  integration: "integrations",
  dashboard_user: "dashboard_users",
  webhook_endpoint: "webhook_endpoints",
  event: "events",
} as const;

/** The merchant a record belongs to, for record types whose table says; undefined otherwise. */
export async function merchantOfRecord(db: Db, recordType: string, id: string): Promise<string | undefined> {
  const table = MERCHANT_TABLES[recordType as keyof typeof MERCHANT_TABLES];
  if (table === undefined || !UUID.test(id)) return undefined;
  const row = await db.selectFrom(table).select("merchant_id").where("id", "=", id).executeTakeFirst();
  return row?.merchant_id;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
