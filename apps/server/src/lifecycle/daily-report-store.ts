/**
 * SQL of the operator's daily report (daily-report.ts): a Bangkok date's transactions the
 * collecting connector showed, withdraws paid, and withdraws undecided.
 */
import { sql } from "kysely";
import type { Db } from "../db/handles.ts";

export interface Figure {
  count: number;
  amountSatang: bigint;
}

const figureOf = (
  row: { count: string | number | bigint; amount: string | number | bigint | null } | undefined,
) => ({
  count: Number(row?.count ?? 0),
  amountSatang: BigInt(row?.amount ?? 0),
});

/** The collecting connector's transactions of one Bangkok date: all of them, and those credited. */
export async function transactionFigures(
  db: Db,
  date: string,
): Promise<{ paidIn: Figure; credited: Figure }> {
  const rows = await db
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

/** Withdraws paid in [from, to). */
export async function paidOutFigure(db: Db, from: Date, to: Date): Promise<Figure> {
  const row = await db
    .selectFrom("withdraws")
    .select((eb) => [eb.fn.countAll<string>().as("count"), eb.fn.sum<string>("amount_satang").as("amount")])
    .where("status", "=", "paid")
    .where("paid_at", ">=", from)
    .where("paid_at", "<", to)
    .executeTakeFirst();
  return figureOf(row);
}

/**
 * Withdraws created before `to` still processing (their transfer undecided), counted from the
 * withdraws table alone: the payout side keeps the list of undecided transfers itself.
 */
export async function undecidedFigure(db: Db, to: Date): Promise<Figure> {
  const row = await db
    .selectFrom("withdraws")
    .select((eb) => [eb.fn.countAll<string>().as("count"), eb.fn.sum<string>("amount_satang").as("amount")])
    .where("status", "=", "processing")
    .where("created_at", "<", to)
    .executeTakeFirst();
  return figureOf(row);
}
