/**
 * Refused provider reports. A transition the current state does not allow is refused (the
 * sandbox routes answer 409 STATE_CONFLICT); when the report may mean that money really moved
 * (a customer paid after the late-confirmation window, a bank paid out a canceled withdraw, a
 * paid payout comes back failed), the refusal is also written to `provider_anomalies`, in the
 * same transaction as the callback record, for the operator to resolve
 * (GET /admin/v1/anomalies).
 */

import type { Db } from "../db/handles.ts";
import type { ProviderAnomalyRow } from "../db/types.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { newId } from "../lib/ids.ts";
import { formatAmount } from "../lib/money.ts";
import { pageOffset } from "../lib/page-offset.ts";
import type { Refusal } from "../lib/provider-reports.ts";
import { insertAnomaly, listAnomalyRows, readClockOffset } from "./store.ts";

interface AnomalyInput {
  provider: string;
  subjectType: "payment" | "withdraw" | "refund";
  subjectId: string;
  /** What the provider said, e.g. `payment.succeeded` or `payout.paid`. */
  report: string;
  callbackId: string | null;
  refusal: Refusal;
}

export async function recordAnomaly(trx: Db, ctx: { clock: Clock }, input: AnomalyInput): Promise<void> {
  const { refusal } = input;
  const offset = refusal.merchantId ? await readClockOffset(trx, refusal.merchantId) : undefined;
  const row: ProviderAnomalyRow = {
    id: newId(),
    merchant_id: refusal.merchantId,
    provider: input.provider,
    subject_type: input.subjectType,
    subject_id: input.subjectId,
    report: input.report,
    subject_status: refusal.subjectStatus,
    reason: refusal.reason,
    message: refusal.message,
    amount_satang: refusal.amountSatang,
    callback_id: input.callbackId,
    created_at: businessNow(ctx.clock, offset ?? 0n),
    closed_at: null,
    resolution: null,
  };
  await insertAnomaly(trx, row);
}

interface AnomalyRecord {
  id: string;
  merchantId: string | null;
  provider: string;
  subjectType: "payment" | "withdraw" | "refund";
  subjectId: string;
  report: string;
  subjectStatus: string | null;
  reason: string;
  message: string;
  amount: string | null;
  callbackId: string | null;
  createdAt: string;
  closedAt: string | null;
  resolution: string | null;
}

function anomalyView(row: ProviderAnomalyRow): AnomalyRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    provider: row.provider,
    subjectType: row.subject_type,
    subjectId: row.subject_id,
    report: row.report,
    subjectStatus: row.subject_status,
    reason: row.reason,
    message: row.message,
    amount: row.amount_satang === null ? null : formatAmount(row.amount_satang),
    callbackId: row.callback_id,
    createdAt: row.created_at.toISOString(),
    closedAt: row.closed_at ? row.closed_at.toISOString() : null,
    resolution: row.resolution,
  };
}

export async function listAnomalies(
  ctx: { db: Db },
  query: { merchantId: string | undefined; open?: boolean | undefined; page: number; limit: number },
): Promise<{ records: AnomalyRecord[]; total: number }> {
  const { rows, total } = await listAnomalyRows(ctx.db, {
    merchantId: query.merchantId,
    open: query.open,
    offset: pageOffset(query.page, query.limit),
    limit: query.limit,
  });
  return { records: rows.map(anomalyView), total };
}
