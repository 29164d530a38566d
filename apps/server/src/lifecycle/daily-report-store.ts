/**
 * SQL of the daily report's payout figures (daily-report.ts), the same whichever connector paid:
 * counted from the withdraws and refunds themselves and the payout attempts connectors hold.
 */
import { isFixedValue, isNotFixedValue } from "../db/fixed-sets.ts";
import type { Db } from "../db/handles.ts";
import type { Figure } from "../providers/operator.ts";

const figureOf = (
  row: { count: string | number | bigint; amount: string | number | bigint | null } | undefined,
): Figure => ({
  count: Number(row?.count ?? 0),
  amountSatang: BigInt(row?.amount ?? 0),
});

/**
 * Money that left to merchants and customers in [from, to): withdraws paid and refunds succeeded
 * (both leave as transfers from the operator's account, through a connector or the payout desk).
 */
export async function paidOutFigure(db: Db, from: Date, to: Date): Promise<Figure> {
  const [withdraws, refunds] = await Promise.all([
    endedWithin(db, { table: "withdraws", status: "paid", stamp: "paid_at" }, from, to),
    endedWithin(db, { table: "refunds", status: "succeeded", stamp: "succeeded_at" }, from, to),
  ]);
  return sumOf(withdraws, refunds);
}

/** The count and sum of the rows of `table` that reached `status` at a `stamp` in [from, to). */
async function endedWithin(
  db: Db,
  which:
    | { table: "withdraws"; status: "paid"; stamp: "paid_at" }
    | { table: "refunds"; status: "succeeded"; stamp: "succeeded_at" },
  from: Date,
  to: Date,
): Promise<Figure> {
  const row = await db
    .selectFrom(which.table)
    .select((eb) => [eb.fn.countAll<string>().as("count"), eb.fn.sum<string>("amount_satang").as("amount")])
    .where("status", "=", which.status)
    .where(which.stamp, ">=", from)
    .where(which.stamp, "<", to)
    .executeTakeFirst();
  return figureOf(row);
}

const sumOf = (a: Figure, b: Figure): Figure => ({
  count: a.count + b.count,
  amountSatang: a.amountSatang + b.amountSatang,
});

/**
 * Withdraws and refunds created before `to` that are still processing with their transfer held
 * open by a connector (a payout attempt not completed): undecided. Lines of the payout desk's
 * batches are not: the operator is paying them by hand and records what the bank did.
 */
export async function undecidedFigure(db: Db, to: Date): Promise<Figure> {
  const row = await db
    .selectFrom("payouts")
    .leftJoin("withdraws", "withdraws.id", "payouts.withdraw_id")
    .leftJoin("refunds", "refunds.id", "payouts.refund_id")
    // Read through payouts_open_created (its predicate in the text, db/fixed-sets.ts).
    .where(isNotFixedValue("payouts.state", "completed"))
    .where((eb) =>
      eb.or([
        eb.and([isFixedValue("withdraws.status", "processing"), eb("withdraws.created_at", "<", to)]),
        eb.and([isFixedValue("refunds.status", "processing"), eb("refunds.created_at", "<", to)]),
      ]),
    )
    .select((eb) => [
      eb.fn.countAll<string>().as("count"),
      eb.fn.sum<string>(eb.fn.coalesce("withdraws.amount_satang", "refunds.amount_satang")).as("amount"),
    ])
    .executeTakeFirst();
  return figureOf(row);
}
