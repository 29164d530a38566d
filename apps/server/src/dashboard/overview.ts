/**
 * The overview's own data: volume per Bangkok day over the last 30 days, and the header's
 * search (a reference id, a payment id or a withdraw id to the record it names). Scoped to the
 * session's merchant; "today" is the merchant's business clock (a sandbox test clock moves it).
 */
import type { Db } from "../db/handles.ts";
import type { Merchant } from "../db/types.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { isUuid } from "../lib/ids.ts";
import { formatAmount } from "../lib/money.ts";
import {
  findRecordsByTerm,
  paidWithdrawsPerDay,
  succeededPaymentsPerDay,
  succeededRefundsPerDay,
} from "./volume-store.ts";

export const VOLUME_DAYS = 30;
const DAY_MS = 86_400_000;
const BANGKOK_OFFSET_MS = 7 * 3_600_000;

export interface DayVolume {
  /** The Bangkok day, YYYY-MM-DD. */
  date: string;
  paymentsCount: number;
  /** Satang, as a decimal string. */
  paymentsAmount: string;
  /** Refunds paid back to customers that day. */
  refundsCount: number;
  refundsAmount: string;
  /** What the day's payments brought in, net of its refunds: paymentsAmount - refundsAmount. */
  netAmount: string;
  withdrawsCount: number;
  withdrawsAmount: string;
}

/** The last VOLUME_DAYS Bangkok days up to today, oldest first, days without money included. */
export async function volumeByDay(ctx: { db: Db; clock: Clock }, merchant: Merchant): Promise<DayVolume[]> {
  const now = businessNow(ctx.clock, merchant.clock_offset_ms).getTime();
  const todayStart = Math.floor((now + BANGKOK_OFFSET_MS) / DAY_MS) * DAY_MS - BANGKOK_OFFSET_MS;
  const from = new Date(todayStart - (VOLUME_DAYS - 1) * DAY_MS);
  const to = new Date(todayStart + DAY_MS);
  const [payments, refunds, withdraws] = await Promise.all([
    succeededPaymentsPerDay(ctx.db, merchant.id, from, to),
    succeededRefundsPerDay(ctx.db, merchant.id, from, to),
    paidWithdrawsPerDay(ctx.db, merchant.id, from, to),
  ]);
  const paid = new Map(payments.map((row) => [row.day, row]));
  const back = new Map(refunds.map((row) => [row.day, row]));
  const out = new Map(withdraws.map((row) => [row.day, row]));
  return Array.from({ length: VOLUME_DAYS }, (_, i) => {
    const date = new Date(from.getTime() + BANGKOK_OFFSET_MS + i * DAY_MS).toISOString().slice(0, 10);
    const received = paid.get(date)?.amount ?? 0n;
    const refunded = back.get(date)?.amount ?? 0n;
    return {
      date,
      paymentsCount: paid.get(date)?.count ?? 0,
      paymentsAmount: formatAmount(received),
      refundsCount: back.get(date)?.count ?? 0,
      refundsAmount: formatAmount(refunded),
      netAmount: formatAmount(received - refunded),
      withdrawsCount: out.get(date)?.count ?? 0,
      withdrawsAmount: formatAmount(out.get(date)?.amount ?? 0n),
    };
  });
}

export interface SearchHit {
  type: "payment" | "withdraw";
  id: string;
  referenceId: string;
}

/** Payments first, then withdraws, newest first in each; exact matches only. */
export async function searchRecords(ctx: { db: Db }, merchant: Merchant, q: string): Promise<SearchHit[]> {
  const term = q.trim();
  if (term === "") return [];
  const found = await findRecordsByTerm(ctx.db, merchant.id, term, isUuid(term) ? term.toLowerCase() : null);
  return [
    ...found.payments.map((row) => ({ type: "payment" as const, id: row.id, referenceId: row.reference_id })),
    ...found.withdraws.map((row) => ({
      type: "withdraw" as const,
      id: row.id,
      referenceId: row.reference_id,
    })),
  ];
}
