/**
 * SQL of the lifecycles: claiming due work for the jobs, settlement, the payout attempt records,
 * processed provider callbacks, anomalies and the merchants' sandbox clocks. (Locking one
 * payment or withdraw for a transition is the resource's own: payments/store.ts,
 * withdraws/store.ts.)
 *
 * Due work is compared against each merchant's business time in SQL: `$now` (the service clock,
 * passed in, never `now()`) plus that merchant's sandbox clock offset, so one query serves
 * merchants whose test clocks stand at different times.
 *
 * Claims lock their rows `FOR UPDATE`. The jobs add `SKIP LOCKED`, so any number of workers in
 * any number of processes each take different rows. A claim scoped to one merchant (a sandbox
 * route acting now) waits for locked rows instead: PostgreSQL re-checks the row after the wait
 * and drops it if another transaction already moved it, so the route neither skips work that
 * is about to be done nor does it twice.
 *
 * Each claim reads its rows through the partial index made for it (payments_expiry_due,
 * payments_settlement_due, withdraws_pending_dispatch, withdraws_verification_expiry,
 * refunds_open_status, payouts_due), in that index's order, whatever plan PostgreSQL keeps for
 * the named statement:
 * - the statuses are written into the text (db/fixed-sets.ts), so a generic plan can prove the
 *   index's predicate; sent as parameters they could not be, and the generic plan read every
 *   open row of each merchant through another index and sorted them;
 * - the merchant is looked up for each row (`merchantOfRow`, LATERAL with LIMIT 1), so no plan
 *   can start from the merchants and read each one's rows whole.
 * In a young database (statistics taken while the tables were nearly empty) the old generic
 * plan of the expiry claim read 60,000 open payments in 110 ms every second; this one reads
 * the due ones (test/lifecycle/due-scans.test.ts, docs/PERFORMANCE.md).
 */
import { sql } from "kysely";
import { inFixedSet, isFixedValue, isNotFixedValue } from "../db/fixed-sets.ts";
import type { Db } from "../db/handles.ts";
import { selectPage } from "../db/pages.ts";
import { type WithOffset, withOffsets } from "../db/rows.ts";
import type {
  PaymentRow,
  PayoutRow,
  PayoutState,
  ProviderAnomalyRow,
  ProviderCallbacksTable,
  RefundRow,
  WithdrawRow,
} from "../db/types.ts";
import { type PayoutSubject, payoutKeyOf, subjectColumn } from "../lib/payout-subjects.ts";
import { AWAITING_CUSTOMER_STATUSES } from "../payments/statuses.ts";
import { dueAfterSettlementDelay, dueBy, merchantOfRow } from "./business-time-sql.ts";

interface ClaimOptions {
  now: Date;
  limit: number;
  /** Only this merchant's rows, waiting for locked ones (a sandbox route), instead of skipping. */
  merchantId?: string | undefined;
  /** Skip rows another transaction holds even for one merchant (a job's per-merchant batch). */
  skipLocked?: boolean;
}

/** Whether a claim skips rows another transaction holds: jobs do, a sandbox route waits. */
function skipsLocked(options: ClaimOptions): boolean {
  return options.skipLocked ?? options.merchantId === undefined;
}

// Payments.

/** Payments waiting for the customer whose `expiresAt` has come (expires_at <= business now). */
export function duePaymentsQuery(db: Db, options: ClaimOptions) {
  let query = db
    .selectFrom("payments")
    .innerJoinLateral(merchantOfRow("payments"), (join) => join.onTrue())
    .selectAll("payments")
    .select("merchants.clock_offset_ms")
    .where(inFixedSet("payments.status", AWAITING_CUSTOMER_STATUSES))
    .where(dueBy("payments.expires_at", options.now));
  if (options.merchantId !== undefined) query = query.where("payments.merchant_id", "=", options.merchantId);
  const locked = query.orderBy("payments.expires_at").limit(options.limit).forUpdate("payments");
  return options.merchantId === undefined ? locked.skipLocked() : locked;
}

/** `duePaymentsQuery`'s payments, locked (skipping those another transaction holds, for a job). */
export async function claimDuePayments(db: Db, options: ClaimOptions): Promise<WithOffset<PaymentRow>[]> {
  return withOffsets(await duePaymentsQuery(db, options).execute());
}

/**
 * Succeeded payments not yet settled whose capture is at least the merchant's settlement delay
 * ago, in the merchant's business time.
 */
function dueSettlements(db: Db, now: Date) {
  return db
    .selectFrom("payments")
    .innerJoinLateral(merchantOfRow("payments"), (join) => join.onTrue())
    .where(isFixedValue("payments.status", "succeeded"))
    .where("payments.settled_at", "is", null)
    .where(dueAfterSettlementDelay("payments.captured_at", now));
}

export async function claimDueSettlements(db: Db, options: ClaimOptions): Promise<WithOffset<PaymentRow>[]> {
  let query = dueSettlements(db, options.now).selectAll("payments").select("merchants.clock_offset_ms");
  if (options.merchantId !== undefined) query = query.where("payments.merchant_id", "=", options.merchantId);
  const locked = query.orderBy("payments.captured_at").limit(options.limit).forUpdate("payments");
  return withOffsets(await (skipsLocked(options) ? locked.skipLocked() : locked).execute());
}

/** Up to `limit` merchants with payments due for settlement (read without locking anything). */
export async function merchantsDueSettlement(
  db: Db,
  options: { now: Date; limit: number },
): Promise<string[]> {
  const rows = await dueSettlements(db, options.now)
    .select("payments.merchant_id")
    .distinct()
    .limit(options.limit)
    .execute();
  return rows.map((row) => row.merchant_id);
}

export async function markSettled(db: Db, id: string, at: Date): Promise<void> {
  await db.updateTable("payments").set({ settled_at: at }).where("id", "=", id).execute();
}

// Withdraws.

/**
 * Pending withdraws, oldest first, for the payout dispatcher; or the one named, waiting for it.
 * The dispatcher's take leaves out a frozen or closed wallet's: a frozen wallet pays nothing out,
 * so they wait pending (the merchant may still cancel them) until the wallet is active again.
 */
export async function claimPendingWithdraws(
  db: Db,
  options: { limit: number; withdrawId?: string },
): Promise<WithOffset<WithdrawRow>[]> {
  let query = db
    .selectFrom("withdraws")
    .innerJoinLateral(merchantOfRow("withdraws"), (join) => join.onTrue())
    .selectAll("withdraws")
    .select("merchants.clock_offset_ms")
    .where(isFixedValue("withdraws.status", "pending"));
  query =
    options.withdrawId === undefined
      ? query.where("merchants.wallet_status", "=", "active")
      : query.where("withdraws.id", "=", options.withdrawId);
  const locked = query.orderBy("withdraws.created_at").limit(options.limit).forUpdate("withdraws");
  return withOffsets(await (options.withdrawId === undefined ? locked.skipLocked() : locked).execute());
}

// Refunds.

/** Pending refunds, as pending withdraws are taken (a frozen or closed wallet's wait). */
export async function claimPendingRefunds(
  db: Db,
  options: { limit: number; refundId?: string },
): Promise<WithOffset<RefundRow>[]> {
  let query = db
    .selectFrom("refunds")
    .innerJoinLateral(merchantOfRow("refunds"), (join) => join.onTrue())
    .selectAll("refunds")
    .select("merchants.clock_offset_ms")
    .where(isFixedValue("refunds.status", "pending"));
  query =
    options.refundId === undefined
      ? query.where("merchants.wallet_status", "=", "active")
      : query.where("refunds.id", "=", options.refundId);
  const locked = query.orderBy("refunds.created_at").limit(options.limit).forUpdate("refunds");
  return withOffsets(await (options.refundId === undefined ? locked.skipLocked() : locked).execute());
}

/** Withdraws awaiting verification whose 24 hours have run out in business time. */
function dueVerifications(db: Db, now: Date) {
  return db
    .selectFrom("withdraws")
    .innerJoinLateral(merchantOfRow("withdraws"), (join) => join.onTrue())
    .where(isFixedValue("withdraws.status", "awaiting_verification"))
    .where(dueBy("withdraws.verification_expires_at", now));
}

export async function claimDueVerifications(
  db: Db,
  options: ClaimOptions,
): Promise<WithOffset<WithdrawRow>[]> {
  let query = dueVerifications(db, options.now).selectAll("withdraws").select("merchants.clock_offset_ms");
  if (options.merchantId !== undefined) query = query.where("withdraws.merchant_id", "=", options.merchantId);
  const locked = query
    .orderBy("withdraws.verification_expires_at")
    .limit(options.limit)
    .forUpdate("withdraws");
  return withOffsets(await (skipsLocked(options) ? locked.skipLocked() : locked).execute());
}

/** Up to `limit` merchants with withdraws whose verification ran out (read without locking). */
export async function merchantsDueVerificationExpiry(
  db: Db,
  options: { now: Date; limit: number },
): Promise<string[]> {
  const rows = await dueVerifications(db, options.now)
    .select("withdraws.merchant_id")
    .distinct()
    .limit(options.limit)
    .execute();
  return rows.map((row) => row.merchant_id);
}

// Payout attempt records: one per payout subject (a withdraw or a refund, 0096).

export async function insertPayout(
  db: Db,
  row: {
    subject: PayoutSubject;
    merchantId: string;
    provider: string;
    nextCheckAt: Date;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto("payouts")
    .values({
      withdraw_id: row.subject.kind === "withdraw" ? row.subject.id : null,
      refund_id: row.subject.kind === "refund" ? row.subject.id : null,
      merchant_id: row.merchantId,
      provider: row.provider,
      idempotency_key: payoutKeyOf(row.subject),
      state: "sending",
      send_attempts: 1,
      provider_reference: null,
      last_error: null,
      next_check_at: row.nextCheckAt,
      created_at: row.at,
      updated_at: row.at,
    })
    .execute();
}

export async function lockPayout(db: Db, subject: PayoutSubject): Promise<WithOffset<PayoutRow> | undefined> {
  const rows = await db
    .selectFrom("payouts")
    .innerJoin("merchants", "merchants.id", "payouts.merchant_id")
    .selectAll("payouts")
    .select("merchants.clock_offset_ms")
    .where(`payouts.${subjectColumn(subject.kind)}`, "=", subject.id)
    .forUpdate("payouts")
    .execute();
  return withOffsets(rows)[0];
}

export async function findPayout(db: Db, subject: PayoutSubject): Promise<PayoutRow | undefined> {
  return db
    .selectFrom("payouts")
    .selectAll()
    .where(subjectColumn(subject.kind), "=", subject.id)
    .executeTakeFirst();
}

export async function updatePayout(
  db: Db,
  subject: PayoutSubject,
  changes: {
    state?: PayoutState;
    sendAttempts?: number;
    checks?: number;
    providerReference?: string | null;
    lastError?: string | null;
    nextCheckAt?: Date;
    at: Date;
  },
): Promise<void> {
  await db
    .updateTable("payouts")
    .set({
      updated_at: changes.at,
      ...(changes.state !== undefined ? { state: changes.state } : {}),
      ...(changes.sendAttempts !== undefined ? { send_attempts: changes.sendAttempts } : {}),
      ...(changes.checks !== undefined ? { checks: changes.checks } : {}),
      ...(changes.providerReference !== undefined ? { provider_reference: changes.providerReference } : {}),
      ...(changes.lastError !== undefined ? { last_error: changes.lastError } : {}),
      ...(changes.nextCheckAt !== undefined ? { next_check_at: changes.nextCheckAt } : {}),
    })
    .where(subjectColumn(subject.kind), "=", subject.id)
    .execute();
}

/** Open payouts whose next check has come, in business time. */
export async function claimDuePayouts(
  db: Db,
  options: { now: Date; limit: number },
): Promise<WithOffset<PayoutRow>[]> {
  const rows = await db
    .selectFrom("payouts")
    .innerJoinLateral(merchantOfRow("payouts"), (join) => join.onTrue())
    .selectAll("payouts")
    .select("merchants.clock_offset_ms")
    .where(isNotFixedValue("payouts.state", "completed"))
    .where(dueBy("payouts.next_check_at", options.now))
    .orderBy("payouts.next_check_at")
    .limit(options.limit)
    .forUpdate("payouts")
    .skipLocked()
    .execute();
  return withOffsets(rows);
}

// Provider callbacks and anomalies.

type CallbackRecord = Omit<ProviderCallbacksTable, "received_at"> & { received_at: Date };

/** Records a callback as seen; false when this provider already sent this callback id. */
export async function insertCallbackIfAbsent(db: Db, row: CallbackRecord): Promise<boolean> {
  const inserted = await db
    .insertInto("provider_callbacks")
    .values(row)
    .onConflict((oc) => oc.columns(["provider", "callback_id"]).doNothing())
    .returning("callback_id")
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findCallback(
  db: Db,
  provider: string,
  callbackId: string,
): Promise<CallbackRecord | undefined> {
  return db
    .selectFrom("provider_callbacks")
    .selectAll()
    .where("provider", "=", provider)
    .where("callback_id", "=", callbackId)
    .executeTakeFirst();
}

export async function setCallbackResult(
  db: Db,
  provider: string,
  callbackId: string,
  result: "applied" | "refused",
  reason: string | null,
): Promise<void> {
  await db
    .updateTable("provider_callbacks")
    .set({ result, reason })
    .where("provider", "=", provider)
    .where("callback_id", "=", callbackId)
    .execute();
}

export async function insertAnomaly(db: Db, row: ProviderAnomalyRow): Promise<void> {
  await db.insertInto("provider_anomalies").values(row).execute();
}

/**
 * Closes the open anomalies a provider raised about one callback id (a transaction) for these
 * reasons; says how many.
 */
export async function closeAnomalies(
  db: Db,
  input: { provider: string; callbackId: string; reasons: readonly string[]; resolution: string; at: Date },
): Promise<number> {
  const closed = await db
    .updateTable("provider_anomalies")
    .set({ closed_at: input.at, resolution: input.resolution })
    .where("provider", "=", input.provider)
    .where("callback_id", "=", input.callbackId)
    .where("reason", "in", [...input.reasons])
    .where("closed_at", "is", null)
    .executeTakeFirst();
  return Number(closed.numUpdatedRows);
}

export async function listAnomalyRows(
  db: Db,
  filter: { merchantId: string | undefined; open?: boolean | undefined; offset: number; limit: number },
): Promise<{ rows: ProviderAnomalyRow[]; total: number }> {
  let query = db.selectFrom("provider_anomalies");
  if (filter.merchantId !== undefined) query = query.where("merchant_id", "=", filter.merchantId);
  if (filter.open !== undefined) query = query.where("closed_at", filter.open ? "is" : "is not", null);
  return selectPage(query, filter, { column: "created_at", direction: "desc" });
}

// The merchant's sandbox clock.

/**
 * Moves the merchant's clock offset forward, unless that would take it past `maxOffsetMs`.
 * Undefined when nothing changed (no such merchant, or the bound).
 */
export async function advanceClockOffset(
  db: Db,
  merchantId: string,
  deltaMs: bigint,
  maxOffsetMs: bigint,
): Promise<bigint | undefined> {
  const row = await db
    .updateTable("merchants")
    .set((eb) => ({ clock_offset_ms: eb("clock_offset_ms", "+", deltaMs) }))
    .where("id", "=", merchantId)
    .where(sql<boolean>`clock_offset_ms + ${deltaMs}::bigint <= ${maxOffsetMs}::bigint`)
    .returning("clock_offset_ms")
    .executeTakeFirst();
  return row?.clock_offset_ms;
}

/**
 * Brings the merchant's clock offset back to zero (wall-clock time). Only a merchant whose clock
 * runs ahead is written, so a reset of a clock at real time changes nothing and tells no cache
 * to forget anything. Undefined when no such merchant exists.
 */
export async function resetClockOffset(db: Db, merchantId: string): Promise<bigint | undefined> {
  const row = await db
    .updateTable("merchants")
    .set({ clock_offset_ms: 0n })
    .where("id", "=", merchantId)
    .where("clock_offset_ms", "<>", 0n)
    .returning("clock_offset_ms")
    .executeTakeFirst();
  return row?.clock_offset_ms ?? readClockOffset(db, merchantId);
}

export async function readClockOffset(db: Db, merchantId: string): Promise<bigint | undefined> {
  const row = await db
    .selectFrom("merchants")
    .select("clock_offset_ms")
    .where("id", "=", merchantId)
    .executeTakeFirst();
  return row?.clock_offset_ms;
}
