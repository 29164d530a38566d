/**
 * SQL of the SCB connector: the credit transfer of each payout subject (a withdraw or a refund,
 * lib/payout-subjects.ts) (its tokenizer id and whether
 * its one confirm has left) and the record of every exchange with SCB: written, listed for the
 * operator, and deleted after SCB_EXCHANGE_RETENTION_DAYS.
 */
import { type Selectable, sql } from "kysely";
import { type Db, withTransaction } from "../../db/handles.ts";
import { type PayoutSubject, subjectColumn } from "../../lib/payout-subjects.ts";
import { payoutStillOpen } from "../payout-fence.ts";
import { type ScbDatabase, scbTables } from "./db.ts";
import type { ScbExchange, ScbRecorder } from "./recorder.ts";
import { payoutSubjectOfPartnerId } from "./references.ts";

export type TransferRow = Selectable<ScbDatabase["scb_transfers"]>;

/** A transfer whose tokenizer is stored: the only kind whose confirm can be claimed. */
export type InitiatedTransfer = TransferRow & { tokenizer_id: string };

export function hasTokenizer(row: TransferRow): row is InitiatedTransfer {
  return row.tokenizer_id !== null;
}

export function findTransfer(db: Db, subject: PayoutSubject): Promise<TransferRow | undefined> {
  return scbTables(db)
    .selectFrom("scb_transfers")
    .selectAll()
    .where(subjectColumn(subject.kind), "=", subject.id)
    .executeTakeFirst();
}

export type InitiateTurn =
  /** Send initiate number `attempt` (counted before it leaves). */
  | { kind: "initiate"; attempt: number }
  /** A tokenizer is stored already: confirm it, never initiate again. */
  | { kind: "initiated"; transfer: InitiatedTransfer }
  /** The payout is no longer open, or the transfer was rejected or closed: send nothing. */
  | { kind: "stop"; transfer: TransferRow | undefined };

/**
 * Records, durably and before it leaves, that an initiate is about to be sent for the withdraw:
 * the transfer row is created `initiating` with one attempt, or its attempts are counted up. A
 * refusal answered to initiate number `attempt` is final only when `attempt` is 1 and no other
 * was counted (rejectTransfer): a later initiate's refusal (SCB's "duplicated" for a partner id
 * an earlier one used) says nothing about the earlier one.
 */
export async function beginInitiate(
  db: Db,
  input: { subject: PayoutSubject; partnerTransactionId: string; amountSatang: bigint; at: Date },
): Promise<InitiateTurn> {
  const { subject } = input;
  const column = subjectColumn(subject.kind);
  return withTransaction(db, async (trx): Promise<InitiateTurn> => {
    if (!(await payoutStillOpen(trx, subject))) {
      return { kind: "stop", transfer: await findTransfer(trx, subject) };
    }
    const inserted = await scbTables(trx)
      .insertInto("scb_transfers")
      .values({
        withdraw_id: subject.kind === "withdraw" ? subject.id : null,
        refund_id: subject.kind === "refund" ? subject.id : null,
        partner_transaction_id: input.partnerTransactionId,
        amount_satang: input.amountSatang,
        tokenizer_id: null,
        initiated_at: input.at,
        confirm_sent_at: null,
        scb_status: null,
        last_error: null,
        next_inquiry_at: null,
        state: "initiating",
        initiate_attempts: 1,
        created_at: input.at,
        updated_at: input.at,
      })
      .onConflict((oc) => oc.column(column).doNothing())
      .returning("initiate_attempts")
      .executeTakeFirst();
    if (inserted) return { kind: "initiate", attempt: inserted.initiate_attempts };
    const counted = await scbTables(trx)
      .updateTable("scb_transfers")
      .set((eb) => ({ initiate_attempts: eb("initiate_attempts", "+", 1), updated_at: input.at }))
      .where(column, "=", subject.id)
      .where("state", "=", "initiating")
      .returning("initiate_attempts")
      .executeTakeFirst();
    if (counted) return { kind: "initiate", attempt: counted.initiate_attempts };
    const transfer = await findTransfer(trx, subject);
    if (transfer?.state === "initiated" && hasTokenizer(transfer)) return { kind: "initiated", transfer };
    return { kind: "stop", transfer };
  });
}

/** An initiate that provably never left (no access token): it is not counted. */
export async function uncountInitiate(
  db: Db,
  subject: PayoutSubject,
  attempt: number,
  at: Date,
): Promise<void> {
  await scbTables(db)
    .updateTable("scb_transfers")
    .set({ initiate_attempts: attempt - 1, updated_at: at })
    .where(subjectColumn(subject.kind), "=", subject.id)
    .where("state", "=", "initiating")
    .where("initiate_attempts", "=", attempt)
    .execute();
}

/**
 * Stores the tokenizer id an initiate answered and, in the same transaction, names it on the
 * withdraw's payout attempt record; only while the payout is open and the transfer is still
 * `initiating`. When another process stored one first, its tokenizer is the one (this one is
 * never confirmed) and is returned. Undefined when the payout was closed meanwhile (booked,
 * resolved by the operator, or the transfer rejected or closed): this tokenizer is never
 * confirmed.
 */
export async function storeTransfer(
  db: Db,
  input: { subject: PayoutSubject; tokenizerId: string; initiatedAt: Date },
): Promise<InitiatedTransfer | undefined> {
  const column = subjectColumn(input.subject.kind);
  return withTransaction(db, async (trx) => {
    if (!(await payoutStillOpen(trx, input.subject))) return undefined;
    await scbTables(trx)
      .updateTable("scb_transfers")
      .set({
        tokenizer_id: input.tokenizerId,
        initiated_at: input.initiatedAt,
        state: "initiated",
        scb_status: "INITIATE_COMPLETED",
        last_error: null,
        updated_at: input.initiatedAt,
      })
      .where(column, "=", input.subject.id)
      .where("state", "=", "initiating")
      .execute();
    const stored = await findTransfer(trx, input.subject);
    if (stored?.state !== "initiated" || !hasTokenizer(stored)) return undefined;
    await trx
      .updateTable("payouts")
      .set({ provider_reference: stored.tokenizer_id })
      .where(column, "=", input.subject.id)
      .execute();
    return stored;
  });
}

/**
 * The refusal of the first and only initiate: the transfer becomes `rejected` (nothing exists to
 * confirm, and nothing will be initiated again). False when another initiate was counted: then
 * the refusal is not final.
 */
export async function rejectTransfer(
  db: Db,
  subject: PayoutSubject,
  attempt: number,
  reason: string,
  at: Date,
): Promise<boolean> {
  if (attempt !== 1) return false;
  const rejected = await scbTables(db)
    .updateTable("scb_transfers")
    .set({ state: "rejected", last_error: reason, updated_at: at })
    .where(subjectColumn(subject.kind), "=", subject.id)
    .where("state", "=", "initiating")
    .where("initiate_attempts", "=", 1)
    .where("tokenizer_id", "is", null)
    .returning("partner_transaction_id")
    .executeTakeFirst();
  return rejected !== undefined;
}

/**
 * Takes the right to send the withdraw's one credit confirm: a conditional update that exactly
 * one caller, in any process, wins, and only while the payout is open and the transfer
 * `initiated`. Undefined when a confirm was already sent (or is going) or the payout is closed.
 */
export function claimConfirm(
  db: Db,
  subject: PayoutSubject,
  at: Date,
): Promise<InitiatedTransfer | undefined> {
  return withTransaction(db, async (trx) => {
    if (!(await payoutStillOpen(trx, subject))) return undefined;
    const claimed = await scbTables(trx)
      .updateTable("scb_transfers")
      .set({ confirm_sent_at: at, updated_at: at })
      .where(subjectColumn(subject.kind), "=", subject.id)
      .where("state", "=", "initiated")
      .where("confirm_sent_at", "is", null)
      .returningAll()
      .executeTakeFirst();
    return claimed && hasTokenizer(claimed) ? claimed : undefined;
  });
}

/** Gives the confirm back: only the claim taken at `claimedAt`, when it provably never left. */
export async function releaseConfirm(
  db: Db,
  subject: PayoutSubject,
  claimedAt: Date,
  at: Date,
): Promise<void> {
  await scbTables(db)
    .updateTable("scb_transfers")
    .set({ confirm_sent_at: null, updated_at: at })
    .where(subjectColumn(subject.kind), "=", subject.id)
    .where("state", "=", "initiated")
    .where("confirm_sent_at", "=", claimedAt)
    .execute();
}

/**
 * Closes a transfer whose confirm was claimed at or before `claimedBy`: no confirm will ever be
 * sent for it again (a claim is never given back once closed). Returns the row when it is closed
 * (now or before).
 */
export async function closeTransfer(
  db: Db,
  subject: PayoutSubject,
  claimedBy: Date,
  at: Date,
): Promise<TransferRow | undefined> {
  await scbTables(db)
    .updateTable("scb_transfers")
    .set({ state: "closed", updated_at: at })
    .where(subjectColumn(subject.kind), "=", subject.id)
    .where("state", "=", "initiated")
    .where("confirm_sent_at", "<=", claimedBy)
    .execute();
  const row = await findTransfer(db, subject);
  return row?.state === "closed" ? row : undefined;
}

export async function noteTransfer(
  db: Db,
  subject: PayoutSubject,
  note: {
    scbStatus?: string | null;
    lastError?: string | null;
    nextInquiryAt?: Date | null;
    at: Date;
    /**
     * The initiate this note is about: it is kept only while no later initiate has begun. A
     * send the lifecycle gave up on still finishes in the background, and its note ("initiate 1
     * undecided") must not replace what a later initiate learnt (SCB's refusal of initiate 2).
     */
    ofInitiate?: number;
    /**
     * When the step this note is about asked SCB: the note is kept only while nothing newer was
     * noted since (a slow confirm's or inquiry's answer that lands after another step's must not
     * replace SCB's later word on the transfer, nor push its next inquiry back).
     */
    askedAt?: Date;
  },
): Promise<void> {
  let update = scbTables(db)
    .updateTable("scb_transfers")
    .set({
      updated_at: note.at,
      ...(note.scbStatus === undefined ? {} : { scb_status: note.scbStatus }),
      ...(note.lastError === undefined ? {} : { last_error: note.lastError }),
      ...(note.nextInquiryAt === undefined ? {} : { next_inquiry_at: note.nextInquiryAt }),
    })
    .where(subjectColumn(subject.kind), "=", subject.id);
  if (note.ofInitiate !== undefined) update = update.where("initiate_attempts", "<=", note.ofInitiate);
  if (note.askedAt !== undefined) update = update.where("updated_at", "<=", note.askedAt);
  await update.execute();
}

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/**
 * Keeps every exchange with SCB (already redacted) in `scb_exchanges`, with the references it
 * names and, resolved in the same statement, the payment with its ref1 and the withdraw or refund
 * of its transfer (by the partner transaction id derived from it, else by the tokenizer id stored
 * for it before any confirm is sent).
 */
export class DatabaseRecorder implements ScbRecorder {
  constructor(private readonly db: Db) {}

  async record(exchange: ScbExchange): Promise<string> {
    const { ref1, partnerTransactionId, tokenizerId, transRef } = exchange.keys;
    const derived = partnerTransactionId ? payoutSubjectOfPartnerId(partnerTransactionId) : null;
    const row = await scbTables(this.db)
      .insertInto("scb_exchanges")
      .values({
        direction: exchange.direction,
        operation: exchange.operation,
        request_uid: exchange.requestUId,
        method: exchange.method,
        path: exchange.path,
        attempt: exchange.attempt,
        started_at: exchange.startedAt,
        duration_ms: Math.round(exchange.durationMs),
        request_headers: json(exchange.requestHeaders),
        request_body: json(exchange.requestBody),
        response_status: exchange.responseStatus,
        response_body: json(exchange.responseBody),
        error: exchange.error,
        ref1: ref1 ?? null,
        partner_transaction_id: partnerTransactionId ?? null,
        tokenizer_id: tokenizerId ?? null,
        trans_ref: transRef ?? null,
        payment_id: ref1 ? sql<string>`(select id from payments where collection_reference = ${ref1})` : null,
        withdraw_id: derived
          ? derived.kind === "withdraw"
            ? derived.id
            : null
          : tokenizerId
            ? sql<string>`(select withdraw_id from scb_transfers where tokenizer_id = ${tokenizerId})`
            : null,
        refund_id: derived
          ? derived.kind === "refund"
            ? derived.id
            : null
          : tokenizerId
            ? sql<string>`(select refund_id from scb_transfers where tokenizer_id = ${tokenizerId})`
            : null,
        unreadable: exchange.unreadable ?? null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return String(row.id);
  }

  async markUnreadable(exchangeId: string, reason: string): Promise<void> {
    if (!/^[0-9]{1,18}$/.test(exchangeId)) return;
    await scbTables(this.db)
      .updateTable("scb_exchanges")
      .set({ unreadable: reason.slice(0, 500) })
      .where("id", "=", BigInt(exchangeId))
      .execute();
  }
}

export type ExchangeRow = Selectable<ScbDatabase["scb_exchanges"]>;

export function findExchange(db: Db, id: bigint): Promise<ExchangeRow | undefined> {
  return scbTables(db).selectFrom("scb_exchanges").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Deletes at most `limit` exchanges that started before `before`, oldest first, and says how
 * many. Rows another worker is deleting are skipped, not waited for.
 */
export async function deleteExchangesBefore(db: Db, before: Date, limit: number): Promise<number> {
  const deleted = await scbTables(db)
    .deleteFrom("scb_exchanges")
    .where("id", "in", (eb) =>
      eb
        .selectFrom("scb_exchanges")
        .select("id")
        .where("started_at", "<", before)
        .orderBy("started_at")
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/**
 * SCB's last answers about a withdraw's or a refund's transfer (initiates, confirms, inquiries),
 * newest first.
 */
export function lastTransferExchanges(db: Db, subject: PayoutSubject, limit: number): Promise<ExchangeRow[]> {
  return scbTables(db)
    .selectFrom("scb_exchanges")
    .selectAll()
    .where(subjectColumn(subject.kind), "=", subject.id)
    .where("operation", "in", ["credit_initiate", "credit_confirm", "transfer_inquiry"])
    .orderBy("started_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}
