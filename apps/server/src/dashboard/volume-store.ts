/**
 * SQL of the dashboard's overview: money moved per Bangkok day (payments succeeded, refunds
 * paid back, withdraws paid) and the record lookup of the header's search box. Bangkok has had no daylight saving
 * since 1920, so a Bangkok day is the UTC time plus 7 hours, cut at midnight; no time zone
 * database is needed (PGlite and PostgreSQL answer alike).
 */
import { sql } from "kysely";
import type { Db } from "../db/handles.ts";

export interface DayVolumeRow {
  day: string;
  count: number;
  amount: bigint;
}

const bangkokDay = (column: string) =>
  sql<string>`to_char((${sql.ref(column)} at time zone 'UTC') + interval '7 hours', 'YYYY-MM-DD')`;

/** Payments that succeeded in [from, to), per Bangkok day of their capture. */
export async function succeededPaymentsPerDay(db: Db, merchantId: string, from: Date, to: Date) {
  const rows = await db
    .selectFrom("payments")
    .select([
      bangkokDay("captured_at").as("day"),
      sql<string>`count(*)`.as("count"),
      sql<string>`coalesce(sum(amount_satang), 0)`.as("amount"),
    ])
    .where("merchant_id", "=", merchantId)
    .where("status", "=", "succeeded")
    .where("captured_at", ">=", from)
    .where("captured_at", "<", to)
    .groupBy(sql`1`)
    .execute();
  return rows.map(toDayRow);
}

/** Refunds that succeeded in [from, to), per Bangkok day the bank paid them back. */
export async function succeededRefundsPerDay(db: Db, merchantId: string, from: Date, to: Date) {
  const rows = await db
    .selectFrom("refunds")
    .select([
      bangkokDay("succeeded_at").as("day"),
      sql<string>`count(*)`.as("count"),
      sql<string>`coalesce(sum(amount_satang), 0)`.as("amount"),
    ])
    .where("merchant_id", "=", merchantId)
    .where("status", "=", "succeeded")
    .where("succeeded_at", ">=", from)
    .where("succeeded_at", "<", to)
    .groupBy(sql`1`)
    .execute();
  return rows.map(toDayRow);
}

/** Withdraws paid in [from, to), per Bangkok day of their payment. */
export async function paidWithdrawsPerDay(db: Db, merchantId: string, from: Date, to: Date) {
  const rows = await db
    .selectFrom("withdraws")
    .select([
      bangkokDay("paid_at").as("day"),
      sql<string>`count(*)`.as("count"),
      sql<string>`coalesce(sum(amount_satang), 0)`.as("amount"),
    ])
    .where("merchant_id", "=", merchantId)
    .where("status", "=", "paid")
    .where("paid_at", ">=", from)
    .where("paid_at", "<", to)
    .groupBy(sql`1`)
    .execute();
  return rows.map(toDayRow);
}

function toDayRow(row: {
  day: string;
  count: string | number;
  amount: string | number | bigint;
}): DayVolumeRow {
  return { day: row.day, count: Number(row.count), amount: BigInt(row.amount) };
}

/**
 * The merchant's payments and withdraws whose id or reference is exactly `term`, and the
 * payments whose bank-transfer reference it is (what the customer wrote in the transfer's note,
 * upper case; found whatever its case).
 */
export async function findRecordsByTerm(db: Db, merchantId: string, term: string, idTerm: string | null) {
  const match = (table: "payments" | "withdraws") =>
    db
      .selectFrom(table)
      .select(["id", "reference_id", "created_at"])
      .where("merchant_id", "=", merchantId)
      .where((eb) =>
        idTerm === null
          ? eb("reference_id", "=", term)
          : eb.or([eb("reference_id", "=", term), eb("id", "=", idTerm)]),
      )
      .orderBy("created_at", "desc")
      .limit(5)
      .execute();
  const byTransferReference = db
    .selectFrom("payments")
    .select(["id", "reference_id", "created_at"])
    .where("merchant_id", "=", merchantId)
    .where("bank_transfer_reference", "=", term.toUpperCase())
    .execute();
  const [payments, transfers, withdraws] = await Promise.all([
    match("payments"),
    byTransferReference,
    match("withdraws"),
  ]);
  const found = new Set(payments.map((row) => row.id));
  return { payments: [...payments, ...transfers.filter((row) => !found.has(row.id))], withdraws };
}
