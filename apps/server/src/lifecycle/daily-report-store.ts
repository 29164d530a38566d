/**
 * SQL of the daily report's payout figures (daily-report.ts), the same whichever connector paid:
 * they are counted from the withdraws table alone.
 */
import type { Db } from "../db/handles.ts";
import type { Figure } from "../providers/operator.ts";

const figureOf = (
  row: { count: string | number | bigint; amount: string | number | bigint | null } | undefined,
): Figure => ({
  count: Number(row?.count ?? 0),
  amountSatang: BigInt(row?.amount ?? 0),
});

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
