/**
 * What the operator sees of the exchanges with SCB (docs/providers/scb.md, "What the operator
 * can see"): every call to SCB and its answer, and every payment confirmation SCB posted, as
 * they were recorded (redacted before they were stored: no token, no secret, no full account
 * number), listed newest first with the shared list parameters and found one by one. Their
 * retention, SCB_EXCHANGE_RETENTION_DAYS, is retention-job.ts.
 */
import type { Db } from "../../db/handles.ts";
import type { Page } from "../../http/envelope.ts";
import { listPage, parseListQuery } from "../../http/list-query.ts";
import { AppError } from "../../lib/errors.ts";
import { scbTables } from "./db.ts";
import { type ExchangeFilters, listExchanges } from "./exchange-list.ts";
import type { ScbOperation } from "./recorder.ts";
import { type ExchangeRow, findExchange } from "./store.ts";
import type { ScbExchangeDirection } from "./tables.ts";

/** An exchange as the operator API shows it. */
export interface ExchangeRecord {
  id: string;
  direction: ScbExchangeDirection;
  operation: ScbOperation;
  requestUId: string;
  method: string;
  path: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  requestHeaders: Record<string, string> | null;
  requestBody: unknown;
  responseStatus: number | null;
  responseBody: unknown;
  error: string | null;
  paymentId: string | null;
  withdrawId: string | null;
  ref1: string | null;
  partnerTransactionId: string | null;
  tokenizerId: string | null;
  transRef: string | null;
  /** Why the connector could not read SCB's answer, or null when it could. */
  unreadable: string | null;
}

/** The list's query as its schema hands it over (operator-schemas.ts). */
export interface ExchangeListQuery {
  page?: number;
  limit?: number;
  dateFrom?: string;
  dateTo?: string;
  direction?: ScbExchangeDirection;
  operation?: ScbOperation;
  paymentId?: string;
  withdrawId?: string;
  reference?: string;
  unreadable?: boolean;
}

export function exchangeView(row: ExchangeRow): ExchangeRecord {
  return {
    id: String(row.id),
    direction: row.direction,
    // Written only by a recorder, from SCB_OPERATIONS.
    operation: row.operation as ScbOperation,
    requestUId: row.request_uid,
    method: row.method,
    path: row.path,
    attempt: row.attempt,
    startedAt: row.started_at.toISOString(),
    durationMs: row.duration_ms,
    requestHeaders: (row.request_headers as Record<string, string> | null) ?? null,
    requestBody: row.request_body ?? null,
    responseStatus: row.response_status,
    responseBody: row.response_body ?? null,
    error: row.error,
    paymentId: row.payment_id,
    withdrawId: row.withdraw_id,
    ref1: row.ref1,
    partnerTransactionId: row.partner_transaction_id,
    tokenizerId: row.tokenizer_id,
    transRef: row.trans_ref,
    unreadable: row.unreadable,
  };
}

/** One page of exchanges, newest first, narrowed by every filter given. */
export async function listScbExchanges(
  ctx: { db: Db },
  query: ExchangeListQuery,
): Promise<Page<ExchangeRecord>> {
  const params = parseListQuery<"startedAt">(query, "startedAt");
  const filters: ExchangeFilters = {
    direction: query.direction,
    operation: query.operation,
    paymentId: query.paymentId,
    withdrawId: query.withdrawId,
    reference: query.reference,
    unreadable: query.unreadable,
    dateFrom: params.dateFrom,
    dateTo: params.dateTo,
  };
  const { rows, total } = await listExchanges(ctx.db, filters, params);
  return listPage(rows.map(exchangeView), total, params);
}

/**
 * How many recorded answers the connector could not read, by operation: the metric
 * `satang_scb_unreadable_answers` (Prometheus text). Read from the records, so every process
 * shows the same figure; it counts the exchanges still kept (SCB_EXCHANGE_RETENTION_DAYS).
 */
export async function unreadableAnswersMetric(db: Db): Promise<string> {
  const rows = await scbTables(db)
    .selectFrom("scb_exchanges")
    .select(["operation", (eb) => eb.fn.countAll<string>().as("count")])
    .where("unreadable", "is not", null)
    .groupBy("operation")
    .orderBy("operation")
    .execute();
  const lines = [
    "# HELP satang_scb_unreadable_answers Recorded SCB answers the connector could not read, by operation",
    "# TYPE satang_scb_unreadable_answers gauge",
  ];
  if (rows.length === 0) lines.push('satang_scb_unreadable_answers{operation="bill_payment_inquiry"} 0');
  for (const row of rows)
    lines.push(`satang_scb_unreadable_answers{operation="${row.operation}"} ${Number(row.count)}`);
  return `${lines.join("\n")}\n`;
}

/** The largest id a bigserial can hold. */
const EXCHANGE_ID_MAX = 2n ** 63n - 1n;

export const exchangeNotFound = () => new AppError("RESOURCE_NOT_FOUND", "SCB exchange not found");

/** One exchange by its id; an id that cannot name one answers 404 like an unknown one. */
export async function getScbExchange(ctx: { db: Db }, id: string): Promise<ExchangeRecord> {
  if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > EXCHANGE_ID_MAX) throw exchangeNotFound();
  const row = await findExchange(ctx.db, BigInt(id));
  if (!row) throw exchangeNotFound();
  return exchangeView(row);
}
