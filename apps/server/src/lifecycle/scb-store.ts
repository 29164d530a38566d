/**
 * SQL of the SCB lifecycle (scb-collection.ts): the confirmations SCB sent, and the schedule of
 * the reconciler's questions about live PromptPay payments.
 */
import { sql } from "kysely";
import type { Db } from "../db/handles.ts";
import type { ScbConfirmationStatus } from "../db/scb-tables.ts";
import { OPEN_PAYMENT_STATUSES } from "../payments/statuses.ts";
import type { ScbTransactionSource } from "../providers/scb/tables.ts";

export interface ConfirmationRow {
  transaction_id: string;
  ref1: string;
  claimed_amount_satang: bigint | null;
  claimed_biller_id: string | null;
  paid_at: Date;
  payment_id: string | null;
  status: ScbConfirmationStatus;
  result: string | null;
  deliveries: number;
  received_at: Date;
}

/**
 * Records a confirmation as it arrived. The first delivery of a transaction id inserts its row
 * (status `received`, the caller checks it); a later one counts the delivery and returns the
 * row as it is. `fresh` says which.
 */
export async function recordConfirmation(
  db: Db,
  input: {
    transactionId: string;
    ref1: string;
    claimedAmountSatang: bigint | null;
    claimedBillerId: string | null;
    paidAt: Date;
    at: Date;
    recheckAt: Date;
  },
): Promise<{ fresh: boolean; row: ConfirmationRow }> {
  const inserted = await db
    .insertInto("scb_confirmations")
    .values({
      transaction_id: input.transactionId,
      ref1: input.ref1,
      claimed_amount_satang: input.claimedAmountSatang,
      claimed_biller_id: input.claimedBillerId,
      paid_at: input.paidAt,
      payment_id: null,
      status: "received",
      result: null,
      detail: null,
      deliveries: 1,
      next_check_at: input.recheckAt,
      received_at: input.at,
      updated_at: input.at,
    })
    .onConflict((oc) => oc.column("transaction_id").doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { fresh: true, row: inserted };
  const row = await db
    .updateTable("scb_confirmations")
    .set((eb) => ({ deliveries: eb("deliveries", "+", 1), updated_at: input.at }))
    .where("transaction_id", "=", input.transactionId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { fresh: false, row };
}

/** Takes an undecided confirmation for a new check; undefined when another caller has it. */
export function claimConfirmationRecheck(
  db: Db,
  transactionId: string,
  at: Date,
  leaseUntil: Date,
): Promise<ConfirmationRow | undefined> {
  return db
    .updateTable("scb_confirmations")
    .set((eb) => ({
      status: "received",
      checks: eb("checks", "+", 1),
      next_check_at: leaseUntil,
      updated_at: at,
    }))
    .where("transaction_id", "=", transactionId)
    .where((eb) =>
      eb.or([
        eb("status", "=", "unavailable"),
        eb.and([eb("status", "=", "received"), eb("next_check_at", "<=", at)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Undecided confirmations whose re-check is due (SCB was unreachable, or a check died). */
export async function dueConfirmationRechecks(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom("scb_confirmations")
    .select("transaction_id")
    .where("status", "in", ["received", "unavailable"])
    .where("next_check_at", "<=", now)
    .orderBy("next_check_at")
    .limit(limit)
    .execute();
  return rows.map((r) => r.transaction_id);
}

export async function decideConfirmation(
  db: Db,
  transactionId: string,
  decision: {
    status: ScbConfirmationStatus;
    paymentId: string | null;
    result: string | null;
    detail: string | null;
    nextCheckAt: Date | null;
    at: Date;
  },
): Promise<void> {
  await db
    .updateTable("scb_confirmations")
    .set({
      status: decision.status,
      payment_id: decision.paymentId,
      result: decision.result,
      detail: decision.detail === null ? null : decision.detail.slice(0, 500),
      next_check_at: decision.nextCheckAt,
      updated_at: decision.at,
    })
    .where("transaction_id", "=", transactionId)
    .execute();
}

export interface CollectionToCheck {
  id: string;
  collection_reference: string;
  created_at: Date;
  status: string;
  /** How many times it has been asked about, this time included. */
  checks: number;
  /** Real time of the last answered question, or null before the first. */
  last_checked_at: Date | null;
}

/**
 * Live PromptPay payments the reconciler asks SCB about now: open ones, and expired ones within
 * the late-confirmation window, whose next check has come (the first one an interval after
 * create). Each claimed payment's next check is pushed to `nextCheckAt` in the same
 * transaction, so no other worker asks about it meanwhile.
 */
export async function claimDueCollections(
  db: Db,
  options: { now: Date; firstCheckBefore: Date; expiredSince: Date; nextCheckAt: Date; limit: number },
): Promise<CollectionToCheck[]> {
  const due = await db
    .selectFrom("payments")
    .leftJoin("scb_payment_checks", "scb_payment_checks.payment_id", "payments.id")
    .select([
      "payments.id",
      "payments.collection_reference",
      "payments.created_at",
      "payments.status",
      "scb_payment_checks.checks",
      "scb_payment_checks.last_checked_at",
    ])
    .where("payments.collection_reference", "is not", null)
    .where((eb) =>
      eb.or([
        eb("payments.status", "in", OPEN_PAYMENT_STATUSES),
        eb.and([
          eb("payments.status", "=", "expired"),
          eb("payments.expires_at", ">=", options.expiredSince),
        ]),
      ]),
    )
    .where((eb) =>
      eb.or([
        eb("scb_payment_checks.next_check_at", "<=", options.now),
        eb.and([
          eb("scb_payment_checks.next_check_at", "is", null),
          eb("payments.created_at", "<=", options.firstCheckBefore),
        ]),
      ]),
    )
    .orderBy("payments.created_at")
    .limit(options.limit)
    .forUpdate("payments")
    .skipLocked()
    .execute();
  for (const row of due) {
    await db
      .insertInto("scb_payment_checks")
      .values({
        payment_id: row.id,
        checks: 1,
        last_error: null,
        next_check_at: options.nextCheckAt,
        updated_at: options.now,
      })
      .onConflict((oc) =>
        oc.column("payment_id").doUpdateSet({
          checks: sql`scb_payment_checks.checks + 1`,
          next_check_at: options.nextCheckAt,
          updated_at: options.now,
        }),
      )
      .execute();
  }
  return due.map((row) => ({
    id: row.id,
    collection_reference: row.collection_reference as string,
    created_at: row.created_at,
    status: row.status,
    checks: (row.checks ?? 0) + 1,
    last_checked_at: row.last_checked_at ?? null,
  }));
}

export async function noteCollectionCheck(
  db: Db,
  paymentId: string,
  note: { lastError: string | null; nextCheckAt?: Date; checkedAt?: Date; at: Date },
): Promise<void> {
  await db
    .updateTable("scb_payment_checks")
    .set({
      last_error: note.lastError === null ? null : note.lastError.slice(0, 500),
      updated_at: note.at,
      ...(note.nextCheckAt ? { next_check_at: note.nextCheckAt } : {}),
      ...(note.checkedAt ? { last_checked_at: note.checkedAt } : {}),
    })
    .where("payment_id", "=", paymentId)
    .execute();
}

/**
 * Keeps a transaction SCB showed for the operator's biller, with what became of it (the daily
 * report's paid-in figures). The first sighting wins; a later one changes nothing.
 */
export async function recordScbTransaction(
  db: Db,
  row: {
    transactionId: string;
    ref1: string;
    amountSatang: bigint;
    paidAt: Date | null;
    paidDate: string;
    paymentId: string | null;
    result: string;
    seenBy: ScbTransactionSource;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto("scb_transactions")
    .values({
      transaction_id: row.transactionId,
      ref1: row.ref1,
      amount_satang: row.amountSatang,
      paid_at: row.paidAt,
      paid_date: row.paidDate,
      payment_id: row.paymentId,
      result: row.result.slice(0, 100),
      seen_by: row.seenBy,
      first_seen_at: row.at,
      updated_at: row.at,
    })
    .onConflict((oc) => oc.column("transaction_id").doNothing())
    .execute();
}

/** Whether SCB's transaction was credited to a payment (its callback was applied). */
export async function wasCredited(db: Db, provider: string, transactionId: string): Promise<boolean> {
  const row = await db
    .selectFrom("provider_callbacks")
    .select("result")
    .where("provider", "=", provider)
    .where("callback_id", "=", transactionId)
    .executeTakeFirst();
  return row?.result === "applied";
}

// The daily sweep (scb-sweep.ts).

export interface SweepRow {
  sweep_date: string;
  status: "running" | "finished";
  cursor_created_at: Date | null;
  cursor_id: string | null;
  asked: number;
  found: number;
}

/**
 * Takes the sweep of one date for a while (`leaseUntil`), creating it on first sight; undefined
 * when it is finished or another worker holds it.
 */
export async function claimSweep(
  db: Db,
  date: string,
  at: Date,
  leaseUntil: Date,
): Promise<SweepRow | undefined> {
  await db
    .insertInto("scb_sweeps")
    .values({ sweep_date: date, status: "running", started_at: at, asked: 0, found: 0 })
    .onConflict((oc) => oc.column("sweep_date").doNothing())
    .execute();
  return db
    .updateTable("scb_sweeps")
    .set({ lease_until: leaseUntil })
    .where("sweep_date", "=", date)
    .where("status", "=", "running")
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", at)]))
    .returning(["sweep_date", "status", "cursor_created_at", "cursor_id", "asked", "found"])
    .executeTakeFirst();
}

/** Live PromptPay payments (their ref1) created in [from, to), after the cursor, oldest first. */
export function referencesToSweep(
  db: Db,
  window: { from: Date; to: Date; after: { createdAt: Date; id: string } | null; limit: number },
): Promise<{ id: string; collection_reference: string; created_at: Date }[]> {
  let query = db
    .selectFrom("payments")
    .select(["id", "collection_reference", "created_at"])
    .where("collection_reference", "is not", null)
    .where("created_at", ">=", window.from)
    .where("created_at", "<", window.to);
  const after = window.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb("created_at", ">", after.createdAt),
        eb.and([eb("created_at", "=", after.createdAt), eb("id", ">", after.id)]),
      ]),
    );
  }
  return query.orderBy("created_at").orderBy("id").limit(window.limit).execute() as Promise<
    { id: string; collection_reference: string; created_at: Date }[]
  >;
}

export async function advanceSweep(
  db: Db,
  date: string,
  progress: {
    cursor: { createdAt: Date; id: string } | null;
    asked: number;
    found: number;
    lastError: string | null;
    finishedAt: Date | null;
  },
): Promise<void> {
  await db
    .updateTable("scb_sweeps")
    .set((eb) => ({
      ...(progress.cursor
        ? { cursor_created_at: progress.cursor.createdAt, cursor_id: progress.cursor.id }
        : {}),
      asked: eb("asked", "+", progress.asked),
      found: eb("found", "+", progress.found),
      last_error: progress.lastError === null ? null : progress.lastError.slice(0, 500),
      lease_until: null,
      ...(progress.finishedAt ? { status: "finished" as const, finished_at: progress.finishedAt } : {}),
    }))
    .where("sweep_date", "=", date)
    .execute();
}
