/**
 * SQL of grouped withdraw admission (withdraws/admission-group.ts): the admission read and the
 * withdraws' INSERT for several creates at once, each one statement whatever the group's size
 * (the fields go as arrays, so one prepared statement serves every group).
 */
import { sql } from "kysely";
import { cachedStatement } from "../db/compiled.ts";
import type { Db } from "../db/handles.ts";
import type { Statement } from "../db/pg-driver.ts";
import type { SignatureUse } from "../db/replay-records.ts";
import type { Merchant, NewWithdraw, WithdrawRow } from "../db/types.ts";
import { ACTIVE_WITHDRAW_STATUSES, ENDED_WITHDRAW_STATUSES } from "./statuses.ts";
import {
  type AdmissionColumns,
  type AdmissionFacts,
  admissionFactsOf,
  admissionFactsSql,
  DESTINATION_COLUMNS,
  NEW_WITHDRAW_COLUMNS,
  usedCapacitySql,
  type Window,
} from "./store.ts";

/** What one create of a group asks the admission read (`admissionReadStatement`'s query). */
export interface GroupAdmissionQuery {
  merchantId: string;
  amountSatang: bigint;
  recentSince: Date;
  idempotencyKey: string | undefined;
  referenceId: string;
  windows: { day: Window; month: Window } | undefined;
}

const dateOf = (at: Date) => at.toISOString().slice(0, 10);

const READ_KEYS = [
  "merchantIds",
  "amounts",
  "recentSince",
  "idempotencyKeys",
  "referenceIds",
  "days",
  "monthsFrom",
  "monthsTo",
] as const;

/**
 * The admission read of every create of a group in one statement and one snapshot: for each,
 * what `admissionReadStatement` reads for one (the merchant, its key and reference taken, the
 * guard's candidates, the used limit capacity when its windows are given), in the order asked.
 * The guard's branches and the kept totals are read per create as for one, by the same indexes
 * (withdraws/store.ts), so its generic plan serves any group. The merchant is looked up by its
 * key for each create (a LATERAL read with LIMIT 1, which the planner cannot turn into a join of
 * the whole table): as a plain join, the generic plan hashed every merchant for each group
 * whenever the table's statistics counted fewer merchants than it held (all 1,002 per group of a
 * few creates in the bench, docs/PERFORMANCE.md). Like the read for one, it must run
 * after the statement that locks the group's wallets, not in it.
 */
const groupRead = cachedStatement<Record<(typeof READ_KEYS)[number], unknown>, Merchant & AdmissionColumns>(
  READ_KEYS,
  (db, p) => {
    const facts = admissionFactsSql(db, {
      merchantId: sql`wanted.merchant_id`,
      amountSatang: sql`wanted.amount_satang`,
      recentSince: sql`wanted.recent_since`,
      referenceId: sql`wanted.reference_id`,
      // A create without a key has NULL here, which no withdraw's key equals: not taken.
      idempotencyKey: sql`wanted.idempotency_key`,
      statuses: { active: ACTIVE_WITHDRAW_STATUSES, ended: ENDED_WITHDRAW_STATUSES },
    });
    const used = usedCapacitySql(sql`wanted.merchant_id`, {
      day: sql`wanted.day`,
      monthFrom: sql`wanted.month_from`,
      monthTo: sql`wanted.month_to`,
    });
    const read = sql<Merchant & AdmissionColumns>`
    SELECT merchants.*, ${facts},
      CASE WHEN wanted.day IS NULL THEN NULL ELSE used.daily END AS used_daily,
      CASE WHEN wanted.day IS NULL THEN NULL ELSE used.monthly END AS used_monthly
    FROM unnest(${p.merchantIds}::uuid[], ${p.amounts}::bigint[], ${p.recentSince}::timestamptz[],
        ${p.idempotencyKeys}::text[], ${p.referenceIds}::text[], ${p.days}::date[],
        ${p.monthsFrom}::date[], ${p.monthsTo}::date[])
        WITH ORDINALITY AS wanted (merchant_id, amount_satang, recent_since, idempotency_key,
          reference_id, day, month_from, month_to, n)
      LEFT JOIN LATERAL (SELECT * FROM merchants WHERE merchants.id = wanted.merchant_id LIMIT 1) merchants
        ON true
      CROSS JOIN LATERAL (${used}) used
    ORDER BY wanted.n`;
    return { compile: () => read.compile(db) };
  },
);

/** Each create's admission facts, in the order of `queries`. */
export function groupAdmissionReadStatement(
  db: Db,
  queries: readonly GroupAdmissionQuery[],
): Statement<AdmissionFacts[]> {
  const query = groupRead.compile(db, {
    merchantIds: queries.map((q) => q.merchantId),
    amounts: queries.map((q) => String(q.amountSatang)),
    recentSince: queries.map((q) => q.recentSince.toISOString()),
    idempotencyKeys: queries.map((q) => q.idempotencyKey ?? null),
    referenceIds: queries.map((q) => q.referenceId),
    days: queries.map((q) => (q.windows ? dateOf(q.windows.day.from) : null)),
    monthsFrom: queries.map((q) => (q.windows ? dateOf(q.windows.month.from) : null)),
    monthsTo: queries.map((q) => (q.windows ? dateOf(q.windows.month.to) : null)),
  });
  return {
    query,
    decode: (result) => (result.rows as (Merchant & AdmissionColumns)[]).map((row) => admissionFactsOf(row)),
  };
}

/**
 * One admitted withdraw of a group: its row, the id its saved destination gets if new (the
 * destination is the row's own: its merchant, type, bank code, account number, holder name and
 * time), and its signed request's record.
 */
export interface GroupWithdraw {
  row: Omit<NewWithdraw, "destination_id">;
  destinationIdIfNew: string;
  replay: SignatureUse | undefined;
}

type Columns = (typeof NEW_WITHDRAW_COLUMNS)[number];

/** Each withdraws column's SQL type, for the arrays it is sent in. */
const COLUMN_TYPES: Record<Columns, string> = {
  id: "uuid",
  merchant_id: "uuid",
  integration_id: "uuid",
  amount_satang: "bigint",
  currency: "text",
  status: "text",
  reference_id: "text",
  destination_type: "text",
  bank_account_name: "text",
  bank_account_number: "text",
  bank_code: "text",
  description: "text",
  metadata: "jsonb",
  idempotency_key: "text",
  request_hash: "text",
  verification_expires_at: "timestamptz",
  paid_at: "timestamptz",
  failed_at: "timestamptz",
  canceled_at: "timestamptz",
  created_at: "timestamptz",
  updated_at: "timestamptz",
};

const REPLAY_KEYS = ["replayApiKeys", "replayTimestamps", "replaySignatures", "replayExpiries"] as const;
type InsertParams = Record<Columns | "destIds" | (typeof REPLAY_KEYS)[number], unknown>;

/**
 * The saved destination of the row `w` pays to under the same holder name, as `saved (id)`, or
 * NULLs: a lookup by the destinations' key for each row (LATERAL with LIMIT 1, so the planner
 * cannot hash or merge the whole table with the group's rows, as it did when the table's
 * statistics counted fewer destinations than it held).
 */
const savedDestination = sql`LEFT JOIN LATERAL (SELECT saved.id FROM withdraw_destinations saved
    WHERE saved.merchant_id = w.merchant_id AND saved.destination_type = w.destination_type
      AND saved.bank_code = w.bank_code AND saved.account_number = w.bank_account_number
      AND saved.account_name = w.bank_account_name
    LIMIT 1) saved ON true`;

/**
 * Every admitted withdraw of a group in one INSERT, each with its saved destination (upserted
 * in a CTE as `withdrawInsertStatement` does for one, and only read when it is saved already
 * under the same holder name, by its key for each withdraw as the admission read looks up its
 * merchant; the group holds one create per merchant, so no destination is upserted twice) and
 * the signed requests' replay records in another CTE.
 * A taken unique key or a replay record written before fails the whole statement, and with it
 * the group's transaction: its creates are then admitted one by one.
 */
const groupInsert = cachedStatement<InsertParams, WithdrawRow>(
  [...NEW_WITHDRAW_COLUMNS, "destIds", ...REPLAY_KEYS],
  (db, p) => {
    const typed = (column: Columns) => sql`${p[column]}::${sql.raw(COLUMN_TYPES[column])}[]`;
    const rows = sql`unnest(${sql.join(NEW_WITHDRAW_COLUMNS.map(typed))}, ${p.destIds}::uuid[])
      AS w (${sql.join(NEW_WITHDRAW_COLUMNS.map((column) => sql.ref(column)))}, dest_id)`;
    const columns = sql.join(NEW_WITHDRAW_COLUMNS.map((column) => sql.ref(`w.${column}`)));
    return db
      .with("replay_records", (q) =>
        q
          .insertInto("signature_uses")
          .columns(["api_key", "timestamp_ms", "signature", "expires_at"])
          .expression(
            sql`SELECT * FROM unnest(${p.replayApiKeys}::text[], ${p.replayTimestamps}::bigint[],
              ${p.replaySignatures}::text[], ${p.replayExpiries}::timestamptz[])`,
          ),
      )
      .with("destination", (q) =>
        q
          .insertInto("withdraw_destinations")
          .columns(DESTINATION_COLUMNS)
          .expression(
            sql`SELECT w.dest_id, w.merchant_id, w.destination_type, w.bank_code, w.bank_account_number,
              w.bank_account_name, w.created_at, w.created_at FROM ${rows} ${savedDestination}
            WHERE saved.id IS NULL`,
          )
          .onConflict((oc) =>
            oc.columns(["merchant_id", "destination_type", "bank_code", "account_number"]).doUpdateSet({
              account_name: (eb) => eb.ref("excluded.account_name"),
              updated_at: (eb) => eb.ref("excluded.updated_at"),
            }),
          )
          .returning(["id", "merchant_id", "destination_type", "bank_code", "account_number"]),
      )
      .insertInto("withdraws")
      .columns([...NEW_WITHDRAW_COLUMNS, "destination_id"])
      .expression(
        sql`SELECT ${columns}, coalesce(destination.id, saved.id) FROM ${rows}
          LEFT JOIN destination ON destination.merchant_id = w.merchant_id
            AND destination.destination_type = w.destination_type
            AND destination.bank_code = w.bank_code
            AND destination.account_number = w.bank_account_number
          ${savedDestination}`,
      )
      .returningAll();
  },
);

/** The group's admitted withdraws with their destinations and replay records: the rows inserted, by id. */
export function groupWithdrawInsertStatement(
  db: Db,
  withdraws: readonly GroupWithdraw[],
): Statement<Map<string, WithdrawRow>> {
  const params = Object.fromEntries(
    NEW_WITHDRAW_COLUMNS.map((column) => [column, withdraws.map(({ row }) => sqlValue(row[column]))]),
  ) as InsertParams;
  params.destIds = withdraws.map(({ destinationIdIfNew }) => destinationIdIfNew);
  const replays = withdraws.flatMap(({ replay }) => (replay ? [replay] : []));
  params.replayApiKeys = replays.map((use) => use.apiKey);
  params.replayTimestamps = replays.map((use) => String(use.timestampMs));
  params.replaySignatures = replays.map((use) => use.signature);
  params.replayExpiries = replays.map((use) => use.expiresAt.toISOString());
  return {
    query: groupInsert.compile(db, params),
    decode: (result) => new Map((result.rows as WithdrawRow[]).map((row) => [row.id, row])),
  };
}

/** A value as an array element: dates as ISO text, amounts as decimal text. */
function sqlValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "bigint") return String(value);
  return value;
}
