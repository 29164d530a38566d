/**
 * SQL of the withdraws module. Every lookup of the public API is scoped by merchant; the
 * operator's approve and reject look a withdraw up by id alone.
 */
import { type Expression, sql } from "kysely";
import { afterLastChange, notBeforeLastChange } from "../db/change-times.ts";
import { type CachedStatement, cachedStatement } from "../db/compiled.ts";
import { inFixedSet } from "../db/fixed-sets.ts";
import type { Db } from "../db/handles.ts";
import { foldKeptTotals, type KeptTotals } from "../db/kept-totals.ts";
import { merchantListPages, type SortColumns } from "../db/pages.ts";
import { runStatement, type Statement } from "../db/pg-driver.ts";
import { type WithOffset, withOffsets } from "../db/rows.ts";
import type { DestinationType, Merchant, NewWithdraw, WithdrawRow, WithdrawStatus } from "../db/types.ts";
import type { ListParams } from "../http/list-query.ts";
import type { WithdrawSortField } from "./schemas.ts";
import { WITHDRAW_VIEW_COLUMNS, type WithdrawViewRow } from "./view.ts";

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

/** Where a new withdraw pays to: its saved destination's key, holder name and time. */
export interface DestinationUse {
  key: DestinationKey;
  accountName: string;
  at: Date;
  /** The id the destination gets if it is new. */
  idIfNew: string;
}

/**
 * Inserts the withdraw (failing when a unique key, id, reference id or idempotency key, is
 * taken: `isWithdrawKeyConflict`), with its saved destination in the same statement: one row
 * per merchant, type, bank code and account number, made on first use (a data-modifying CTE
 * the INSERT reads its id from). The holder name is refreshed to the latest one used; it is not
 * part of the key, because a destination is where the money goes, whatever the payout calls
 * its holder. A destination already saved with this holder name is not written at all (the
 * usual case: a merchant paying the same account again), only read: its id comes from the
 * statement's snapshot. Only admissions of the merchant write its destinations, one at a time
 * under its wallet lock, so the snapshot holds every one saved before; were one saved after it
 * all the same, the upsert would meet it as a conflict, wait for it and return it.
 */
export function withdrawInsertStatement(
  db: Db,
  row: Omit<NewWithdraw, "destination_id">,
  destination: DestinationUse,
): Statement<WithdrawRow> {
  const { key, accountName, at } = destination;
  const query = withdrawInsert.compile(db, {
    ...row,
    dest_id: destination.idIfNew,
    dest_merchant_id: key.merchantId,
    dest_type: key.destinationType,
    dest_bank_code: key.bankCode,
    dest_account_number: key.accountNumber,
    dest_account_name: accountName,
    dest_at: at,
  });
  return { query, decode: (result) => result.rows[0] as WithdrawRow };
}

/** The saved destination's columns, in the order its upserts give them. */
export const DESTINATION_COLUMNS = [
  "id",
  "merchant_id",
  "destination_type",
  "bank_code",
  "account_number",
  "account_name",
  "created_at",
  "updated_at",
] as const;

export const NEW_WITHDRAW_COLUMNS = [
  "id",
  "merchant_id",
  "integration_id",
  "amount_satang",
  "currency",
  "status",
  "reference_id",
  "destination_type",
  "bank_account_name",
  "bank_account_number",
  "bank_code",
  "description",
  "metadata",
  "idempotency_key",
  "request_hash",
  "verification_expires_at",
  "paid_at",
  "failed_at",
  "canceled_at",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof NewWithdraw)[];

/** Fails to compile when a withdraws column is missing from the list above. */
type MissingWithdrawColumn = Exclude<
  keyof NewWithdraw,
  (typeof NEW_WITHDRAW_COLUMNS)[number] | "destination_id"
>;
const withdrawColumnsComplete: [MissingWithdrawColumn] extends [never] ? true : MissingWithdrawColumn = true;
void withdrawColumnsComplete;

type WithdrawInsertParams = Omit<NewWithdraw, "destination_id"> & {
  dest_id: string;
  dest_merchant_id: string;
  dest_type: DestinationType;
  dest_bank_code: string;
  dest_account_number: string;
  dest_account_name: string;
  dest_at: Date;
};

/**
 * The withdraw's INSERT with its saved destination's upsert in a CTE, compiled once. A taken
 * unique key fails it (`isWithdrawKeyConflict`), and with it the transaction, so nothing sent
 * with it (the hold, the COMMIT) is kept.
 */
const withdrawInsert = cachedStatement<WithdrawInsertParams, WithdrawRow>(
  [
    ...NEW_WITHDRAW_COLUMNS,
    "dest_id",
    "dest_merchant_id",
    "dest_type",
    "dest_bank_code",
    "dest_account_number",
    "dest_account_name",
    "dest_at",
  ],
  (db, params) => {
    const row = Object.fromEntries(NEW_WITHDRAW_COLUMNS.map((column) => [column, params[column]])) as Omit<
      NewWithdraw,
      "destination_id"
    >;
    const saved = sql`(SELECT d.id FROM withdraw_destinations d
      WHERE d.merchant_id = ${params.dest_merchant_id} AND d.destination_type = ${params.dest_type}
        AND d.bank_code = ${params.dest_bank_code} AND d.account_number = ${params.dest_account_number}
        AND d.account_name = ${params.dest_account_name})`;
    return db
      .with("destination", (q) =>
        q
          .insertInto("withdraw_destinations")
          .columns(DESTINATION_COLUMNS)
          .expression(
            sql`SELECT ${params.dest_id}::uuid, ${params.dest_merchant_id}::uuid, ${params.dest_type}::text,
              ${params.dest_bank_code}::text, ${params.dest_account_number}::text,
              ${params.dest_account_name}::text, ${params.dest_at}::timestamptz, ${params.dest_at}::timestamptz
            WHERE NOT EXISTS ${saved}`,
          )
          .onConflict((oc) =>
            oc
              .columns(["merchant_id", "destination_type", "bank_code", "account_number"])
              .doUpdateSet({ account_name: params.dest_account_name, updated_at: params.dest_at }),
          )
          .returning("id"),
      )
      .insertInto("withdraws")
      .values({
        ...row,
        destination_id: sql`coalesce((SELECT destination.id FROM destination), ${saved})`,
      })
      .returningAll();
  },
);

/** True when `error` is the unique violation of a withdraw's id, reference id or idempotency key. */
export function isWithdrawKeyConflict(error: unknown): boolean {
  const fields = error as { code?: unknown; table?: unknown; constraint?: unknown } | null;
  if (fields?.code !== "23505") return false;
  return (
    fields.table === "withdraws" ||
    (typeof fields.constraint === "string" && fields.constraint.startsWith("withdraws_"))
  );
}

export interface GuardCandidate {
  id: string;
  status: WithdrawStatus;
  created_at: Date;
  bank_account_name: string;
}

/** What the payout guard looks for: the merchant's payouts of one amount, open or recent. */
export interface GuardQuery {
  merchantId: string;
  amountSatang: bigint;
  activeStatuses: readonly WithdrawStatus[];
  /** Every other status: `activeStatuses` and these are all of them. */
  endedStatuses: readonly WithdrawStatus[];
  recentSince: Date;
}

/**
 * The merchant's payouts of exactly this amount that could block a new one: open ones of any
 * age, and ended ones created after `recentSince`. Names are compared by the caller
 * (withdraws/guard.ts).
 */
export async function findGuardCandidates(db: Db, query: GuardQuery): Promise<GuardCandidate[]> {
  return findGuardCandidatesQuery(db, query).execute();
}

/**
 * The guard's query, also a subquery of the admission read (`admissionReadStatement`), in two
 * branches of which every plan reads only the rows the rule names, so that a plan made once
 * for any merchant and amount (a named statement's generic plan) is as good as one made for
 * the call's values:
 *
 * - the open payouts of the amount, any age: the partial index withdraws_active_amount (the
 *   open statuses as literals, db/fixed-sets.ts);
 * - the ended payouts of the window: withdraws_merchant_status_created (or
 *   withdraws_merchant_created), by time. The amount is compared as `amount_satang + 0`, which
 *   no index serves, so no plan reads them by amount instead: that would read every payout of
 *   the amount the merchant ever made, where the window holds fifteen minutes' worth.
 */
export function findGuardCandidatesQuery(db: Db, query: GuardQuerySource) {
  const columns = ["id", "status", "created_at", "bank_account_name"] as const;
  const open = db
    .selectFrom("withdraws")
    .select(columns)
    .where("merchant_id", "=", query.merchantId)
    .where("amount_satang", "=", query.amountSatang)
    .where(inFixedSet("status", query.activeStatuses));
  const recent = db
    .selectFrom("withdraws")
    .select(columns)
    .where("merchant_id", "=", query.merchantId)
    .where(inFixedSet("status", query.endedStatuses))
    .where("created_at", ">", query.recentSince)
    .where(sql<bigint>`amount_satang + 0`, "=", query.amountSatang);
  return db
    .selectFrom(open.unionAll(recent).as("candidates"))
    .selectAll()
    .orderBy("created_at", "desc")
    .orderBy("id", "desc");
}

/**
 * A guard query whose merchant, amount and window start may also be columns of an outer query
 * (the grouped admission read, withdraws/group-store.ts).
 */
export type GuardQuerySource = Omit<GuardQuery, "merchantId" | "amountSatang" | "recentSince"> & {
  merchantId: string | Expression<string>;
  amountSatang: bigint | Expression<bigint>;
  recentSince: Date | Expression<Date>;
};

export interface Window {
  from: Date;
  to: Date;
}

/** A window's UTC dates, as PostgreSQL `date` literals: [from, to). */
function dates(window: Window): { from: string; to: string } {
  return { from: window.from.toISOString().slice(0, 10), to: window.to.toISOString().slice(0, 10) };
}

/** The used capacity's windows as `date` texts: the day, and the month [from, to). */
interface CapacityDates {
  day: string;
  monthFrom: string;
  monthTo: string;
}

function capacityDates(windows: { day: Window; month: Window }): CapacityDates {
  const month = dates(windows.month);
  return { day: dates(windows.day).from, monthFrom: month.from, monthTo: month.to };
}

/**
 * The limit capacity the merchant's withdraws created in the month window use, and the part of
 * it created in the day window (which lies inside the month), from the per-day totals the
 * database keeps (migration 0070_withdraw_day_totals): the folded totals plus the changes not
 * yet folded, at most a month of rows each, however many withdraws the month holds. One row:
 * `daily`, `monthly`.
 */
export function usedCapacitySql(merchantId: unknown, windows: { [K in keyof CapacityDates]: unknown }) {
  const kept = (table: "withdraw_day_totals" | "withdraw_day_changes") =>
    sql`SELECT day, amount_satang FROM ${sql.table(table)}
      WHERE merchant_id = ${merchantId}
        AND day >= ${windows.monthFrom}::date AND day < ${windows.monthTo}::date`;
  return sql<{ daily: bigint; monthly: bigint }>`
    SELECT coalesce(sum(amount_satang) FILTER (WHERE day = ${windows.day}::date), 0)::bigint AS daily,
      coalesce(sum(amount_satang), 0)::bigint AS monthly
    FROM (${kept("withdraw_day_totals")} UNION ALL ${kept("withdraw_day_changes")}) kept`;
}

/** The used limit capacity in the day and month windows (`usedCapacitySql`). */
export async function usedCapacityInWindows(
  db: Db,
  query: { merchantId: string; day: Window; month: Window },
): Promise<{ dailySatang: bigint; monthlySatang: bigint }> {
  const row = (await usedCapacitySql(query.merchantId, capacityDates(query)).execute(db)).rows[0]!;
  return { dailySatang: BigInt(row.daily), monthlySatang: BigInt(row.monthly) };
}

/** What admission decides on, read together after the wallet lock (`admissionReadStatement`). */
export interface AdmissionFacts {
  /** The merchant as it is now; undefined when it no longer exists. */
  merchant: Merchant | undefined;
  /** A withdraw of the merchant has the request's idempotency key (false when it sent none). */
  keyTaken: boolean;
  /** A withdraw of the merchant has the request's reference id. */
  referenceTaken: boolean;
  /** The payout guard's candidates (`findGuardCandidates`) at `recentSince`. */
  guardCandidates: GuardCandidate[];
  /** The used limit capacity in the windows asked for; undefined when none were asked. */
  used: { dailySatang: bigint; monthlySatang: bigint } | undefined;
}

/**
 * Everything withdraw admission reads, in one statement and so one snapshot: the merchant, the
 * idempotency key and reference lookups, the payout guard's candidates and, when `windows` is
 * given, the used limit capacity. It must run after the wallet lock's own statement, not in it:
 * a statement's snapshot is taken when it starts, and the lock's statement may have waited. It
 * may be sent together with the lock's statement (db/pg-driver.ts `runTogether`): PostgreSQL
 * starts it, and takes its snapshot, only once the lock's statement has ended.
 */
export function admissionReadStatement(
  db: Db,
  query: GuardQuery & {
    idempotencyKey: string | undefined;
    referenceId: string;
    windows: { day: Window; month: Window } | undefined;
  },
): Statement<AdmissionFacts> {
  const hasKey = query.idempotencyKey !== undefined;
  const statuses = { active: query.activeStatuses, ended: query.endedStatuses };
  const shape = `${hasKey}:${query.windows !== undefined}:${statuses.active.join(",")}:${statuses.ended.join(",")}`;
  let statement = admissionReads.get(shape);
  if (!statement) {
    statement = admissionReadOfShape(statuses, hasKey, query.windows !== undefined);
    admissionReads.set(shape, statement);
  }
  const compiled = statement.compile(db, {
    merchantId: query.merchantId,
    amountSatang: query.amountSatang,
    recentSince: query.recentSince,
    referenceId: query.referenceId,
    ...(hasKey ? { idempotencyKey: query.idempotencyKey } : {}),
    ...(query.windows ? capacityDates(query.windows) : {}),
  });
  return {
    query: compiled,
    decode: (result) => admissionFactsOf(result.rows[0] as Merchant & AdmissionColumns),
  };
}

type AdmissionReadParams = {
  merchantId: string;
  amountSatang: bigint;
  recentSince: Date;
  referenceId: string;
  idempotencyKey?: string | undefined;
} & Partial<CapacityDates>;

/** The admission read of each shape (a key or not, limits or not), compiled once. */
const admissionReads = new Map<string, CachedStatement<AdmissionReadParams, Merchant & AdmissionColumns>>();

/**
 * The admission read's columns of one create (`key_taken`, `reference_taken`,
 * `guard_candidates`), for the read of one (values) and of a group (columns of its `unnest`,
 * withdraws/group-store.ts). Without an idempotency key, `key_taken` is false.
 */
export function admissionFactsSql(
  db: Db,
  of: {
    merchantId: unknown;
    amountSatang: unknown;
    recentSince: unknown;
    referenceId: unknown;
    idempotencyKey: unknown;
    statuses: { active: readonly WithdrawStatus[]; ended: readonly WithdrawStatus[] };
  },
) {
  const keyTaken =
    of.idempotencyKey === undefined
      ? sql`false`
      : sql`EXISTS (SELECT 1 FROM withdraws WHERE merchant_id = ${of.merchantId}
          AND idempotency_key = ${of.idempotencyKey})`;
  const guard = findGuardCandidatesQuery(db, {
    merchantId: of.merchantId as string,
    amountSatang: of.amountSatang as bigint,
    recentSince: of.recentSince as Date,
    activeStatuses: of.statuses.active,
    endedStatuses: of.statuses.ended,
  });
  return sql`${keyTaken} AS key_taken,
    EXISTS (SELECT 1 FROM withdraws WHERE merchant_id = ${of.merchantId}
      AND reference_id = ${of.referenceId}) AS reference_taken,
    (SELECT coalesce(json_agg(json_build_object('id', g.id, 'status', g.status,
        'created_at', g.created_at, 'bank_account_name', g.bank_account_name)), '[]'::json)
      FROM (${guard}) g) AS guard_candidates`;
}

function admissionReadOfShape(
  statuses: { active: readonly WithdrawStatus[]; ended: readonly WithdrawStatus[] },
  hasKey: boolean,
  hasWindows: boolean,
): CachedStatement<AdmissionReadParams, Merchant & AdmissionColumns> {
  const keys: (keyof AdmissionReadParams & string)[] = [
    "merchantId",
    "amountSatang",
    "recentSince",
    "referenceId",
  ];
  if (hasKey) keys.push("idempotencyKey");
  if (hasWindows) keys.push("day", "monthFrom", "monthTo");
  return cachedStatement<AdmissionReadParams, Merchant & AdmissionColumns>(keys, (db, params) => {
    const { merchantId } = params;
    const facts = admissionFactsSql(db, {
      merchantId,
      amountSatang: params.amountSatang,
      recentSince: params.recentSince,
      referenceId: params.referenceId,
      idempotencyKey: hasKey ? params.idempotencyKey : undefined,
      statuses,
    });
    const used = hasWindows
      ? usedCapacitySql(merchantId, { day: params.day, monthFrom: params.monthFrom, monthTo: params.monthTo })
      : sql`SELECT NULL AS daily, NULL AS monthly`;
    // Every part reads by a key or by the guard's index-shaped branches, so one plan serves every
    // merchant: admission runs it on its generic plan (withdraws/admission.ts), planned once per
    // connection, not for each call.
    const read = sql<Merchant & AdmissionColumns>`
    SELECT merchants.*, ${facts}, used.daily AS used_daily, used.monthly AS used_monthly
    FROM (SELECT 1) one
      LEFT JOIN merchants ON merchants.id = ${merchantId}
      CROSS JOIN LATERAL (${used}) used`;
    return { compile: () => read.compile(db) };
  });
}

export function admissionFactsOf(row: Merchant & AdmissionColumns): AdmissionFacts {
  const { key_taken, reference_taken, guard_candidates, used_daily, used_monthly, ...merchant } = row;
  return {
    merchant: merchant.id === null ? undefined : (merchant as Merchant),
    keyTaken: key_taken,
    referenceTaken: reference_taken,
    guardCandidates: guard_candidates.map((candidate) => ({
      ...candidate,
      created_at: new Date(candidate.created_at),
    })),
    used:
      used_daily === null || used_monthly === null
        ? undefined
        : { dailySatang: BigInt(used_daily), monthlySatang: BigInt(used_monthly) },
  };
}

/** The admission read (`admissionReadStatement`) on its own. */
export function readAdmission(
  db: Db,
  query: Parameters<typeof admissionReadStatement>[1],
): Promise<AdmissionFacts> {
  return runStatement(db, admissionReadStatement(db, query));
}

/** The extra columns of the admission read, as the driver returns them. */
export interface AdmissionColumns {
  key_taken: boolean;
  reference_taken: boolean;
  guard_candidates: (Omit<GuardCandidate, "created_at"> & { created_at: string })[];
  used_daily: bigint | string | null;
  used_monthly: bigint | string | null;
}

export const WITHDRAW_DAY_TOTALS: KeptTotals = {
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
    .set({
      status: change.to,
      updated_at: afterLastChange(change.at),
      ...Object.fromEntries(
        Object.entries(change.stamps).map(([column, at]) => [column, notBeforeLastChange(at as Date)]),
      ),
    })
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
  columns: WITHDRAW_VIEW_COLUMNS,
});

/**
 * One page of a merchant's withdraws and the total matching the filters (db/pages.ts: `id`
 * breaks ties, empty timestamps (paidAt) sort last in both directions), each row with the columns
 * of the record only.
 */
export async function listWithdrawRows(
  db: Db,
  merchantId: string,
  filters: WithdrawFilters,
  params: ListParams<WithdrawSortField>,
): Promise<{ rows: WithdrawViewRow[]; total: number }> {
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
