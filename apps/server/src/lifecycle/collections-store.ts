/**
 * SQL of the collections flow (collections.ts): the notices connectors sent
 * (`provider_confirmations`), and the schedule of the reconciler's questions about live payments
 * (`payment_checks`).
 */
import { type Selectable, sql } from "kysely";
import { inFixedSet, isFixedValue } from "../db/fixed-sets.ts";
import type { Db } from "../db/handles.ts";
import type { ConfirmationStatus, Database } from "../db/types.ts";
import { OPEN_PAYMENT_STATUSES } from "../payments/statuses.ts";

/** A notice as the collections flow reads it back. */
export type ConfirmationRow = Pick<
  Selectable<Database["provider_confirmations"]>,
  | "provider"
  | "transaction_id"
  | "reference"
  | "claimed_amount_satang"
  | "claimed_payee"
  | "paid_at"
  | "payment_id"
  | "status"
  | "result"
  | "deliveries"
  | "received_at"
>;

/**
 * Records a confirmation as it arrived. The first delivery of a transaction id inserts its row
 * (status `received`, the caller checks it); a later one counts the delivery and returns the
 * row as it is. `fresh` says which.
 */
export async function recordConfirmation(
  db: Db,
  input: {
    provider: string;
    transactionId: string;
    reference: string | null;
    claimedAmountSatang: bigint | null;
    claimedPayee: string | null;
    paidAt: Date;
    at: Date;
    recheckAt: Date;
  },
): Promise<{ fresh: boolean; row: ConfirmationRow }> {
  const inserted = await db
    .insertInto("provider_confirmations")
    .values({
      provider: input.provider,
      transaction_id: input.transactionId,
      reference: input.reference,
      claimed_amount_satang: input.claimedAmountSatang,
      claimed_payee: input.claimedPayee,
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
    .onConflict((oc) => oc.columns(["provider", "transaction_id"]).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { fresh: true, row: inserted };
  const row = await db
    .updateTable("provider_confirmations")
    .set((eb) => ({ deliveries: eb("deliveries", "+", 1), updated_at: input.at }))
    .where("provider", "=", input.provider)
    .where("transaction_id", "=", input.transactionId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { fresh: false, row };
}

/** Takes an undecided confirmation for a new check; undefined when another caller has it. */
export function claimConfirmationRecheck(
  db: Db,
  provider: string,
  transactionId: string,
  at: Date,
  leaseUntil: Date,
): Promise<ConfirmationRow | undefined> {
  return db
    .updateTable("provider_confirmations")
    .set((eb) => ({
      status: "received",
      checks: eb("checks", "+", 1),
      next_check_at: leaseUntil,
      updated_at: at,
    }))
    .where("provider", "=", provider)
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

/**
 * Undecided confirmations of these connectors whose re-check is due (the provider was
 * unreachable, or a check died).
 */
export async function dueConfirmationRechecks(
  db: Db,
  providers: readonly string[],
  now: Date,
  limit: number,
): Promise<{ provider: string; transaction_id: string }[]> {
  if (providers.length === 0) return [];
  return (
    db
      .selectFrom("provider_confirmations")
      .select(["provider", "transaction_id"])
      .where("provider", "in", providers)
      // provider_confirmations_recheck's predicate, in the text (db/fixed-sets.ts).
      .where(inFixedSet("status", ["received", "unavailable"]))
      .where("next_check_at", "<=", now)
      .orderBy("next_check_at")
      .limit(limit)
      .execute()
  );
}

export async function decideConfirmation(
  db: Db,
  provider: string,
  transactionId: string,
  decision: {
    status: ConfirmationStatus;
    paymentId: string | null;
    result: string | null;
    detail: string | null;
    nextCheckAt: Date | null;
    at: Date;
  },
): Promise<void> {
  await db
    .updateTable("provider_confirmations")
    .set({
      status: decision.status,
      payment_id: decision.paymentId,
      result: decision.result,
      detail: decision.detail === null ? null : decision.detail.slice(0, 500),
      next_check_at: decision.nextCheckAt,
      updated_at: decision.at,
    })
    .where("provider", "=", provider)
    .where("transaction_id", "=", transactionId)
    .execute();
}

export interface CollectionToCheck extends SweptPayment {
  status: string;
  /** How many times it has been asked about, this time included. */
  checks: number;
  /** Real time of the last answered question, or null before the first. */
  last_checked_at: Date | null;
}

/** Counts one more check of a claimed payment and moves its next check to `nextCheckAt`. */
async function pushNextCheck(db: Db, paymentId: string, at: { now: Date; nextCheckAt: Date }): Promise<void> {
  await db
    .insertInto("payment_checks")
    .values({
      payment_id: paymentId,
      checks: 1,
      last_error: null,
      next_check_at: at.nextCheckAt,
      updated_at: at.now,
    })
    .onConflict((oc) =>
      oc.column("payment_id").doUpdateSet({
        checks: sql`payment_checks.checks + 1`,
        next_check_at: at.nextCheckAt,
        updated_at: at.now,
      }),
    )
    .execute();
}

/**
 * Live payments of these connectors the reconciler asks their connector about now: open ones, and expired ones within
 * the late-confirmation window, whose next check has come (the first one an interval after
 * create). Each claimed payment's next check is pushed to `nextCheckAt` in the same
 * transaction, so no other worker asks about it meanwhile.
 */
export async function claimDueCollections(
  db: Db,
  options: {
    providers: readonly string[];
    now: Date;
    firstCheckBefore: Date;
    expiredSince: Date;
    nextCheckAt: Date;
    limit: number;
  },
): Promise<CollectionToCheck[]> {
  if (options.providers.length === 0) return [];
  const due = await db
    .selectFrom("payments")
    .leftJoin("payment_checks", "payment_checks.payment_id", "payments.id")
    .select([
      "payments.id",
      "payments.provider",
      "payments.amount_satang",
      "payments.provider_payment_id",
      "payments.collection_reference",
      "payments.created_at",
      "payments.status",
      "payment_checks.checks",
      "payment_checks.last_checked_at",
    ])
    .where("payments.collection_reference", "is not", null)
    .where("payments.provider", "in", options.providers)
    // payments_collection_open's predicate, in the text (db/fixed-sets.ts): PostgreSQL cannot
    // prove it through the OR below, so it is written whole beside it.
    .where(inFixedSet("payments.status", [...OPEN_PAYMENT_STATUSES, "expired"]))
    .where((eb) =>
      eb.or([
        inFixedSet("payments.status", OPEN_PAYMENT_STATUSES),
        eb.and([
          isFixedValue("payments.status", "expired"),
          eb("payments.expires_at", ">=", options.expiredSince),
        ]),
      ]),
    )
    .where((eb) =>
      eb.or([
        eb("payment_checks.next_check_at", "<=", options.now),
        eb.and([
          eb("payment_checks.next_check_at", "is", null),
          eb("payments.created_at", "<=", options.firstCheckBefore),
        ]),
      ]),
    )
    .orderBy("payments.created_at")
    .limit(options.limit)
    .forUpdate("payments")
    .skipLocked()
    .execute();
  for (const row of due) await pushNextCheck(db, row.id, options);
  return due.map((row) => ({
    id: row.id,
    provider: row.provider as string,
    amount_satang: row.amount_satang,
    provider_payment_id: row.provider_payment_id,
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
    .updateTable("payment_checks")
    .set({
      last_error: note.lastError === null ? null : note.lastError.slice(0, 500),
      updated_at: note.at,
      ...(note.nextCheckAt ? { next_check_at: note.nextCheckAt } : {}),
      ...(note.checkedAt ? { last_checked_at: note.checkedAt } : {}),
    })
    .where("payment_id", "=", paymentId)
    .execute();
}

/** Whether a provider's transaction was credited to a payment (its callback was applied). */
export async function wasCredited(db: Db, provider: string, transactionId: string): Promise<boolean> {
  const row = await db
    .selectFrom("provider_callbacks")
    .select("result")
    .where("provider", "=", provider)
    .where("callback_id", "=", transactionId)
    .executeTakeFirst();
  return row?.result === "applied";
}

// The daily sweep (collections-sweep.ts).

/** A payment the sweep asks its connector about. */
export interface SweptPayment {
  id: string;
  provider: string;
  amount_satang: bigint;
  provider_payment_id: string | null;
  collection_reference: string;
  created_at: Date;
}

export type SweepRow = Pick<
  Selectable<Database["collection_sweeps"]>,
  "sweep_date" | "status" | "cursor_created_at" | "cursor_id" | "asked" | "found"
>;

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
    .insertInto("collection_sweeps")
    .values({ sweep_date: date, status: "running", started_at: at, asked: 0, found: 0 })
    .onConflict((oc) => oc.column("sweep_date").doNothing())
    .execute();
  return db
    .updateTable("collection_sweeps")
    .set({ lease_until: leaseUntil })
    .where("sweep_date", "=", date)
    .where("status", "=", "running")
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<=", at)]))
    .returning(["sweep_date", "status", "cursor_created_at", "cursor_id", "asked", "found"])
    .executeTakeFirst();
}

/**
 * Live payments of these connectors created in [from, to), after the cursor, oldest first.
 */
export function referencesToSweep(
  db: Db,
  window: {
    providers: readonly string[];
    from: Date;
    to: Date;
    after: { createdAt: Date; id: string } | null;
    limit: number;
  },
): Promise<SweptPayment[]> {
  let query = db
    .selectFrom("payments")
    .select(["id", "provider", "amount_satang", "provider_payment_id", "collection_reference", "created_at"])
    .where("collection_reference", "is not", null)
    .where("provider", "in", window.providers)
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
  return query.orderBy("created_at").orderBy("id").limit(window.limit).execute() as Promise<SweptPayment[]>;
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
    .updateTable("collection_sweeps")
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
