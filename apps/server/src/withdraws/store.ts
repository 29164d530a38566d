/**
 * SQL of the withdraws module. Every lookup of the public API is scoped by merchant; the
 * operator's approve and reject look a withdraw up by id alone.
 */
import { sql } from "kysely";
import { inFixedSet } from "../db/fixed-sets.ts";
import type { Db } from "../db/handles.ts";
import { foldKeptTotals, type KeptTotals } from "../db/kept-totals.ts";
import { merchantListPages, type SortColumns } from "../db/pages.ts";
import { type WithOffset, withOffsets } from "../db/rows.ts";
import type { DestinationType, NewWithdraw, WithdrawRow, WithdrawStatus } from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";
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

interface DestinationKey {
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
  return (
    db
      .selectFrom("withdraws")
      .select(["id", "status", "created_at", "bank_account_name"])
      .where("merchant_id", "=", query.merchantId)
      .where("amount_satang", "=", query.amountSatang)
      // The open statuses as literals, so that every plan can use the partial index
      // withdraws_active_amount (db/fixed-sets.ts).
      .where((eb) =>
        eb.or([inFixedSet("status", query.activeStatuses), eb("created_at", ">", query.recentSince)]),
      )
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute()
  );
}

export interface Window {
  from: Date;
  to: Date;
}

/** A window's UTC dates, as PostgreSQL `date` literals: [from, to). */
function dates(window: Window): { from: string; to: string } {
  return { from: window.from.toISOString().slice(0, 10), to: window.to.toISOString().slice(0, 10) };
}

/**
 * The limit capacity the merchant's withdraws created in the month window use, and the part of
 * it created in the day window (which lies inside the month), from the per-day totals the
 * database keeps (migration 0070_withdraw_day_totals): the folded totals plus the changes not
 * yet folded, at most a month of rows each, however many withdraws the month holds.
 */
export async function usedCapacityInWindows(
  db: Db,
  query: { merchantId: string; day: Window; month: Window },
): Promise<{ dailySatang: bigint; monthlySatang: bigint }> {
  const day = dates(query.day).from;
  const month = dates(query.month);
  const kept = (table: "withdraw_day_totals" | "withdraw_day_changes") =>
    sql`SELECT day, amount_satang FROM ${sql.table(table)}
      WHERE merchant_id = ${query.merchantId} AND day >= ${month.from}::date AND day < ${month.to}::date`;
  const found = await sql<{ daily: string; monthly: string }>`
    SELECT coalesce(sum(amount_satang) FILTER (WHERE day = ${day}::date), 0)::bigint AS daily,
      coalesce(sum(amount_satang), 0)::bigint AS monthly
    FROM (${kept("withdraw_day_totals")} UNION ALL ${kept("withdraw_day_changes")}) kept`.execute(db);
  const row = found.rows[0]!;
  return { dailySatang: BigInt(row.daily), monthlySatang: BigInt(row.monthly) };
}

const WITHDRAW_DAY_TOTALS: KeptTotals = {
  changes: "withdraw_day_changes",
  totals: "withdraw_day_totals",
  keys: ["merchant_id", "day"],
  delta: "amount_satang",
  total: "amount_satang",
};

/** Folds appended day-total changes into the totals (db/kept-totals.ts); how many it folded. */
export function foldWithdrawDayTotals(db: Db, batch?: number): Promise<number> {
  return foldKeptTotals(db, WITHDRAW_DAY_TOTALS, batch);
}

/** Locks a withdraw for the rest of the transaction, read with its merchant's clock offset. */
export async function lockWithdraw(db: Db, withdrawId: string): Promise<WithOffset<WithdrawRow> | undefined> {
  const rows = await db
    .selectFrom("withdraws")
    .innerJoin("merchants", "merchants.id", "withdraws.merchant_id")
    .selectAll("withdraws")
    .select("merchants.clock_offset_ms")
    .where("withdraws.id", "=", withdrawId)
    .forUpdate("withdraws")
    .execute();
  return withOffsets(rows)[0];
}

/** The columns a status change stamps besides `status` and `updated_at`. */
export type WithdrawStamps = Partial<Pick<WithdrawRow, "canceled_at" | "paid_at" | "failed_at">>;

/**
 * Moves a withdraw from one of `from` to `to` in one conditional statement, so a withdraw that
 * another request or a worker moved in the meantime is left alone. Undefined when nothing
 * changed. `merchantId` scopes the merchant's own requests; the operator and the lifecycle pass
 * undefined. Only withdraws/transitions.ts calls it.
 */
export async function updateWithdrawStatus(
  db: Db,
  change: {
    id: string;
    merchantId: string | undefined;
    from: readonly WithdrawStatus[];
    to: WithdrawStatus;
    at: Date;
    stamps: WithdrawStamps;
  },
): Promise<WithdrawRow | undefined> {
  let update = db
    .updateTable("withdraws")
    .set({ status: change.to, updated_at: change.at, ...change.stamps })
    .where("id", "=", change.id)
    .where("status", "in", change.from);
  if (change.merchantId !== undefined) update = update.where("merchant_id", "=", change.merchantId);
  return update.returningAll().executeTakeFirst();
}

interface WithdrawFilters {
  status: WithdrawStatus | undefined;
  destinationType: DestinationType | undefined;
}

/** The sort fields of the withdraws list: their columns, text ones compared by bytes. */
const WITHDRAW_SORT: SortColumns<WithdrawSortField> = {
  columns: {
    amount: "amount_satang",
    status: "status",
    createdAt: "created_at",
    paidAt: "paid_at",
    referenceId: "reference_id",
  },
  byteOrdered: ["status", "referenceId"],
  emptyLast: ["paidAt"],
};

const withdrawPages = merchantListPages({
  table: "withdraws",
  variantColumn: "destination_type",
  sort: WITHDRAW_SORT,
});

/**
 * One page of a merchant's withdraws and the total matching the filters (db/pages.ts: `id`
 * breaks ties, empty timestamps (paidAt) sort last in both directions).
 */
export async function listWithdrawRows(
  db: Db,
  merchantId: string,
  filters: WithdrawFilters,
  params: ListParams<WithdrawSortField>,
): Promise<{ rows: WithdrawRow[]; total: number }> {
  return withdrawPages(db, { merchantId, status: filters.status, variant: filters.destinationType }, params);
}

/**
 * Whether the withdraw is in an open batch of the operator's manual payout desk
 * (docs/payout-desk.md): the operator may be paying it by hand right now.
 */
export async function inOpenPayoutBatch(db: Db, withdrawId: string): Promise<boolean> {
  const row = await db
    .selectFrom("payout_batch_items")
    .select("batch_id")
    .where("withdraw_id", "=", withdrawId)
    .where("batch_status", "=", "open")
    .executeTakeFirst();
  return row !== undefined;
}
