/**
 * SQL of the withdraws module. Every lookup of the public API is scoped by merchant; the
 * operator's approve and reject look a withdraw up by id alone.
 */
import { sql } from "kysely";
import type { DestinationType, NewWithdraw, WithdrawRow, WithdrawStatus } from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";
import type { Db } from "../merchants/store.ts";
import type { WithdrawSortField } from "./schemas.ts";

export async function findWithdraw(db: Db, merchantId: string, id: string): Promise<WithdrawRow | undefined> {
  return db
    .selectFrom("withdraws")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function findWithdrawById(db: Db, id: string): Promise<WithdrawRow | undefined> {
  return db.selectFrom("withdraws").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function findWithdrawByReference(
  db: Db,
  merchantId: string,
  referenceId: string,
): Promise<WithdrawRow | undefined> {
  return db
    .selectFrom("withdraws")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("reference_id", "=", referenceId)
    .executeTakeFirst();
}

export async function findWithdrawByIdempotencyKey(
  db: Db,
  merchantId: string,
  idempotencyKey: string,
): Promise<WithdrawRow | undefined> {
  return db
    .selectFrom("withdraws")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .where("idempotency_key", "=", idempotencyKey)
    .executeTakeFirst();
}

export interface DestinationKey {
  merchantId: string;
  destinationType: DestinationType;
  bankCode: string;
  accountNumber: string;
}

/**
 * The saved destination's id: one row per merchant, type, bank code and account number, made
 * on first use. The holder name is refreshed to the latest one used; it is not part of the key,
 * because a destination is where the money goes, whatever the payout calls its holder.
 */
export async function upsertDestination(
  db: Db,
  key: DestinationKey,
  accountName: string,
  at: Date,
  idIfNew: string,
): Promise<string> {
  const row = await db
    .insertInto("withdraw_destinations")
    .values({
      id: idIfNew,
      merchant_id: key.merchantId,
      destination_type: key.destinationType,
      bank_code: key.bankCode,
      account_number: key.accountNumber,
      account_name: accountName,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc
        .columns(["merchant_id", "destination_type", "bank_code", "account_number"])
        .doUpdateSet({ account_name: accountName, updated_at: at }),
    )
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Inserts unless a unique key (id, reference id, idempotency key) is taken. */
export async function insertWithdrawIfAbsent(db: Db, row: NewWithdraw): Promise<WithdrawRow | undefined> {
  return db
    .insertInto("withdraws")
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export interface GuardCandidate {
  id: string;
  status: WithdrawStatus;
  created_at: Date;
  bank_account_name: string;
}

/**
 * The merchant's payouts of exactly this amount that could block a new one: open ones of any
 * age (partial index withdraws_active_amount) and any created after `recentSince` (the range
 * of withdraws_merchant_created). Names are compared by the caller (withdraws/guard.ts).
 */
export async function findGuardCandidates(
  db: Db,
  query: {
    merchantId: string;
    amountSatang: bigint;
    activeStatuses: readonly WithdrawStatus[];
    recentSince: Date;
  },
): Promise<GuardCandidate[]> {
  return db
    .selectFrom("withdraws")
    .select(["id", "status", "created_at", "bank_account_name"])
    .where("merchant_id", "=", query.merchantId)
    .where("amount_satang", "=", query.amountSatang)
    .where((eb) =>
      eb.or([eb("status", "in", query.activeStatuses), eb("created_at", ">", query.recentSince)]),
    )
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

export interface Window {
  from: Date;
  to: Date;
}

/**
 * Sums the amounts of the merchant's withdraws in `statuses` created in the month window, and
 * the part of it created in the day window (which lies inside the month). One index-only range
 * scan of withdraws_merchant_created over the month: it reads that month's rows and no others.
 */
export async function sumWithdrawsInWindows(
  db: Db,
  query: { merchantId: string; statuses: readonly WithdrawStatus[]; day: Window; month: Window },
): Promise<{ dailySatang: bigint; monthlySatang: bigint }> {
  const { day, month } = query;
  const row = await db
    .selectFrom("withdraws")
    .select([
      sql<bigint>`coalesce(sum(amount_satang) filter (where created_at >= ${day.from} and created_at < ${day.to}), 0)::bigint`.as(
        "daily",
      ),
      sql<bigint>`coalesce(sum(amount_satang), 0)::bigint`.as("monthly"),
    ])
    .where("merchant_id", "=", query.merchantId)
    .where("created_at", ">=", month.from)
    .where("created_at", "<", month.to)
    .where("status", "in", query.statuses)
    .executeTakeFirstOrThrow();
  return { dailySatang: BigInt(row.daily), monthlySatang: BigInt(row.monthly) };
}

/**
 * Moves a withdraw from one of `from` to `to` in one conditional statement, so a withdraw that
 * another request or a worker moved in the meantime is left alone. Undefined when nothing
 * changed. `merchantId` scopes the merchant's own requests; the operator passes undefined.
 */
export async function transitionWithdraw(
  db: Db,
  query: {
    id: string;
    merchantId: string | undefined;
    from: readonly WithdrawStatus[];
    to: WithdrawStatus;
    at: Date;
  },
): Promise<WithdrawRow | undefined> {
  let update = db
    .updateTable("withdraws")
    .set({
      status: query.to,
      updated_at: query.at,
      ...(query.to === "canceled" ? { canceled_at: query.at } : {}),
    })
    .where("id", "=", query.id)
    .where("status", "in", query.from);
  if (query.merchantId !== undefined) update = update.where("merchant_id", "=", query.merchantId);
  return update.returningAll().executeTakeFirst();
}

export interface WithdrawFilters {
  status: WithdrawStatus | undefined;
  destinationType: DestinationType | undefined;
}

const SORT_COLUMNS = {
  amount: "amount_satang",
  status: "status",
  createdAt: "created_at",
  paidAt: "paid_at",
  referenceId: "reference_id",
} as const satisfies Record<WithdrawSortField, string>;

/** Text columns sort by byte order, so both stores give the same order whatever their locale. */
const BYTE_ORDERED: ReadonlySet<WithdrawSortField> = new Set(["status", "referenceId"]);

/**
 * One page of a merchant's withdraws and the total matching the filters. The sort column is
 * followed by `id` in the same direction, so rows with equal sort values keep one order across
 * pages; empty timestamps (paidAt) sort last in both directions.
 */
export async function listWithdrawRows(
  db: Db,
  merchantId: string,
  filters: WithdrawFilters,
  params: ListParams<WithdrawSortField>,
): Promise<{ rows: WithdrawRow[]; total: number }> {
  let query = db.selectFrom("withdraws").where("merchant_id", "=", merchantId);
  if (filters.status !== undefined) query = query.where("status", "=", filters.status);
  if (filters.destinationType !== undefined)
    query = query.where("destination_type", "=", filters.destinationType);
  if (params.dateFrom !== undefined) query = query.where("created_at", ">=", params.dateFrom);
  if (params.dateTo !== undefined) query = query.where("created_at", "<", params.dateTo);

  const counted = await query.select((eb) => eb.fn.countAll<bigint>().as("n")).executeTakeFirstOrThrow();
  const total = Number(counted.n);
  if (params.offset >= total) return { rows: [], total };

  const column = SORT_COLUMNS[params.sortBy];
  const byteOrdered = BYTE_ORDERED.has(params.sortBy);
  const rows = await query
    .selectAll()
    .orderBy(column, (ob) => {
      const directed = params.sortOrder === "asc" ? ob.asc() : ob.desc();
      return byteOrdered ? directed.nullsLast().collate("C") : directed.nullsLast();
    })
    .orderBy("id", params.sortOrder)
    .limit(params.limit)
    .offset(params.offset)
    .execute();
  return { rows, total };
}
