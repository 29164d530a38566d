/**
 * SQL of undecided payouts (CONTRACT 15): payout attempts a connector holds open (the withdraw or
 * refund `processing`, the attempt not completed) since longer than PAYOUT_UNDECIDED_ALERT_S, in
 * each merchant's business time; the alert marks; and the operator's resolutions.
 */
import { sql } from "kysely";
import { isFixedValue, isNotFixedValue } from "../db/fixed-sets.ts";
import { type Db, withTransaction } from "../db/handles.ts";
import { type PayoutSubject, subjectColumn } from "../lib/payout-subjects.ts";
import { dueBy, merchantOfRow } from "./business-time-sql.ts";

/** Open payout attempts of withdraws and refunds handed over at least `alertMs` ago (business time). */
function undecided(db: Db, now: Date, alertMs: number) {
  return (
    db
      .selectFrom("payouts")
      .leftJoin("withdraws", "withdraws.id", "payouts.withdraw_id")
      .leftJoin("refunds", "refunds.id", "payouts.refund_id")
      // Read through payouts_open_created (its predicate in the text, db/fixed-sets.ts), each
      // payout's merchant by key (lifecycle/store.ts: no plan starts from the merchants).
      .innerJoinLateral(merchantOfRow("payouts"), (join) => join.onTrue())
      .where(isNotFixedValue("payouts.state", "completed"))
      .where((eb) =>
        eb.or([isFixedValue("withdraws.status", "processing"), isFixedValue("refunds.status", "processing")]),
      )
      .where(dueBy("payouts.created_at", now, alertMs))
  );
}

export interface UndecidedRow {
  withdraw_id: string | null;
  refund_id: string | null;
  merchant_id: string;
  reference_id: string;
  amount_satang: bigint;
  provider: string;
  state: string;
  send_attempts: number;
  checks: number;
  provider_reference: string | null;
  last_error: string | null;
  next_check_at: Date;
  created_at: Date;
  updated_at: Date;
  undecided_alerted_at: Date | null;
  /** The merchant's test-clock offset: `created_at` is in its business time (CONTRACT 10). */
  clock_offset_ms: bigint | string | number;
}

/** One page of undecided payouts, the longest undecided first (ties by the subject's id). */
export async function listUndecidedRows(
  db: Db,
  query: { now: Date; alertMs: number; offset: number; limit: number },
): Promise<{ rows: UndecidedRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    undecided(db, query.now, query.alertMs)
      .select([
        "payouts.withdraw_id",
        "payouts.refund_id",
        "payouts.merchant_id",
        sql<string>`coalesce(withdraws.reference_id, refunds.reference_id)`.as("reference_id"),
        sql<bigint>`coalesce(withdraws.amount_satang, refunds.amount_satang)`.as("amount_satang"),
        "payouts.provider",
        "payouts.state",
        "payouts.send_attempts",
        "payouts.checks",
        "payouts.provider_reference",
        "payouts.last_error",
        "payouts.next_check_at",
        "payouts.created_at",
        "payouts.updated_at",
        "payouts.undecided_alerted_at",
        "merchants.clock_offset_ms",
      ])
      .orderBy("payouts.created_at")
      .orderBy(sql`coalesce(payouts.withdraw_id, payouts.refund_id)`)
      .offset(query.offset)
      .limit(query.limit)
      .execute(),
    countUndecided(db, query.now, query.alertMs),
  ]);
  return { rows, total: count };
}

export async function countUndecided(db: Db, now: Date, alertMs: number): Promise<number> {
  const row = await undecided(db, now, alertMs)
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Marks up to `limit` undecided payouts not alerted yet as alerted now, and returns them: each is
 * logged once. A payout two workers find at once is marked by one (SKIP LOCKED).
 */
export async function markUnalerted(
  db: Db,
  query: { now: Date; alertMs: number; limit: number },
): Promise<
  {
    withdraw_id: string | null;
    refund_id: string | null;
    provider: string;
    created_at: Date;
    last_error: string | null;
  }[]
> {
  return withTransaction(db, async (trx) => {
    const due = await undecided(trx, query.now, query.alertMs)
      .select(["payouts.withdraw_id", "payouts.refund_id"])
      .where("payouts.undecided_alerted_at", "is", null)
      .orderBy("payouts.created_at")
      .limit(query.limit)
      .forUpdate("payouts")
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    const withdraws = due.flatMap((row) => (row.withdraw_id === null ? [] : [row.withdraw_id]));
    const refunds = due.flatMap((row) => (row.refund_id === null ? [] : [row.refund_id]));
    return trx
      .updateTable("payouts")
      .set({ undecided_alerted_at: query.now })
      .where((eb) =>
        eb.or([
          ...(withdraws.length > 0 ? [eb("withdraw_id", "in", withdraws)] : []),
          ...(refunds.length > 0 ? [eb("refund_id", "in", refunds)] : []),
        ]),
      )
      .returning(["withdraw_id", "refund_id", "provider", "created_at", "last_error"])
      .execute();
  });
}

export interface ResolutionInsert {
  subject: PayoutSubject;
  merchantId: string;
  provider: string;
  outcome: "paid" | "failed";
  reason: string;
  bankReference: string | null;
  actor: string;
  evidence: unknown;
  requestId: string | null;
  at: Date;
}

export async function insertResolution(db: Db, row: ResolutionInsert): Promise<void> {
  await db
    .insertInto("payout_resolutions")
    .values({
      withdraw_id: row.subject.kind === "withdraw" ? row.subject.id : null,
      refund_id: row.subject.kind === "refund" ? row.subject.id : null,
      merchant_id: row.merchantId,
      provider: row.provider,
      outcome: row.outcome,
      reason: row.reason,
      bank_reference: row.bankReference,
      actor: row.actor,
      evidence: row.evidence === undefined ? null : JSON.stringify(row.evidence),
      request_id: row.requestId,
      created_at: row.at,
    })
    .execute();
}

export function findResolution(db: Db, subject: PayoutSubject) {
  return db
    .selectFrom("payout_resolutions")
    .selectAll()
    .where(subjectColumn(subject.kind), "=", subject.id)
    .executeTakeFirst();
}

/** The provider holding the subject's payout attempt, read without a lock (for the evidence). */
export async function payoutProviderOf(db: Db, subject: PayoutSubject): Promise<string | undefined> {
  const row = await db
    .selectFrom("payouts")
    .select("provider")
    .where(subjectColumn(subject.kind), "=", subject.id)
    .executeTakeFirst();
  return row?.provider;
}
