/**
 * SCB's day book (docs/providers/scb.md, "The daily report"): every SCB transaction of one
 * Bangkok date the service has seen for the operator's biller (confirmations, the reconciler,
 * the daily sweep), those credited to a payment, and the daily sweep of that date. The daily
 * report (lifecycle/daily-report.ts) adds it up with every other connector's.
 */
import { sql } from "kysely";
import type { Db } from "../../db/handles.ts";
import type { DayBook, DaySweep, Figure } from "../operator.ts";
import { scbTables } from "./db.ts";

const figureOf = (
  row: { count: string | number | bigint; amount: string | number | bigint | null } | undefined,
): Figure => ({
  count: Number(row?.count ?? 0),
  amountSatang: BigInt(row?.amount ?? 0),
});

/** SCB's transactions of one Bangkok date: all of them, and those credited. */
async function transactions(db: Db, date: string): Promise<{ paidIn: Figure; credited: Figure }> {
  const rows = await scbTables(db)
    .selectFrom("scb_transactions")
    .select((eb) => [
      sql<boolean>`result = 'applied'`.as("credited"),
      eb.fn.countAll<string>().as("count"),
      eb.fn.sum<string>("amount_satang").as("amount"),
    ])
    .where("paid_date", "=", date)
    .groupBy(sql`result = 'applied'`)
    .execute();
  const credited = figureOf(rows.find((r) => r.credited));
  const refused = figureOf(rows.find((r) => !r.credited));
  return {
    paidIn: {
      count: credited.count + refused.count,
      amountSatang: credited.amountSatang + refused.amountSatang,
    },
    credited,
  };
}

/** The daily sweep of that date; undefined before it started. */
async function sweep(db: Db, date: string): Promise<DaySweep | undefined> {
  const row = await db
    .selectFrom("collection_sweeps")
    .select(["status", "asked", "found", "last_error"])
    .where("sweep_date", "=", date)
    .executeTakeFirst();
  return row && { status: row.status, asked: row.asked, found: row.found, lastError: row.last_error };
}

export const scbDayBook: DayBook = { transactions, sweep };
