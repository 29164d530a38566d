/**
 * SQL of the SCB connector: the credit transfer of each withdraw (its tokenizer id and whether
 * its one confirm has left) and the record of every exchange with SCB: written, listed for the
 * operator, and deleted after SCB_EXCHANGE_RETENTION_DAYS.
 */
import { type Selectable, sql } from "kysely";
import { type Db, withTransaction } from "../../db/handles.ts";
import { selectPage } from "../../db/pages.ts";
import type { ScbExchangeDirection } from "../../db/scb-tables.ts";
import type { Database } from "../../db/types.ts";
import type { ScbExchange, ScbRecorder } from "./recorder.ts";
import { withdrawIdOf } from "./references.ts";

export interface TransferRow {
  withdraw_id: string;
  partner_transaction_id: string;
  amount_satang: bigint;
  tokenizer_id: string;
  initiated_at: Date;
  confirm_sent_at: Date | null;
  scb_status: string | null;
  last_error: string | null;
  next_inquiry_at: Date | null;
}

export function findTransfer(db: Db, withdrawId: string): Promise<TransferRow | undefined> {
  return db.selectFrom("scb_transfers").selectAll().where("withdraw_id", "=", withdrawId).executeTakeFirst();
}

/**
 * Stores the tokenizer id of a withdraw's credit initiate and, in the same transaction, names it
 * on the withdraw's payout attempt record. One transfer per withdraw: when another process
 * stored one first, its tokenizer is the one (the other is never confirmed) and is returned.
 */
export async function storeTransfer(
  db: Db,
  input: {
    withdrawId: string;
    partnerTransactionId: string;
    amountSatang: bigint;
    tokenizerId: string;
    initiatedAt: Date;
  },
): Promise<TransferRow> {
  return withTransaction(db, async (trx) => {
    await trx
      .insertInto("scb_transfers")
      .values({
        withdraw_id: input.withdrawId,
        partner_transaction_id: input.partnerTransactionId,
        amount_satang: input.amountSatang,
        tokenizer_id: input.tokenizerId,
        initiated_at: input.initiatedAt,
        confirm_sent_at: null,
        scb_status: "INITIATE_COMPLETED",
        last_error: null,
        next_inquiry_at: null,
        created_at: input.initiatedAt,
        updated_at: input.initiatedAt,
      })
      .onConflict((oc) => oc.column("withdraw_id").doNothing())
      .execute();
    const stored = await trx
      .selectFrom("scb_transfers")
      .selectAll()
      .where("withdraw_id", "=", input.withdrawId)
      .executeTakeFirstOrThrow();
    await trx
      .updateTable("payouts")
      .set({ provider_reference: stored.tokenizer_id })
      .where("withdraw_id", "=", input.withdrawId)
      .execute();
    return stored;
  });
}

/**
 * Takes the right to send the withdraw's one credit confirm: a conditional update that exactly
 * one caller, in any process, wins. Undefined when a confirm was already sent (or is going).
 */
export function claimConfirm(db: Db, withdrawId: string, at: Date): Promise<TransferRow | undefined> {
  return db
    .updateTable("scb_transfers")
    .set({ confirm_sent_at: at, updated_at: at })
    .where("withdraw_id", "=", withdrawId)
    .where("confirm_sent_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

/** Gives the confirm back: only when it provably never left (no token could be had). */
export async function releaseConfirm(db: Db, withdrawId: string, at: Date): Promise<void> {
  await db
    .updateTable("scb_transfers")
    .set({ confirm_sent_at: null, updated_at: at })
    .where("withdraw_id", "=", withdrawId)
    .execute();
}

export async function noteTransfer(
  db: Db,
  withdrawId: string,
  note: { scbStatus?: string | null; lastError?: string | null; nextInquiryAt?: Date | null; at: Date },
): Promise<void> {
  await db
    .updateTable("scb_transfers")
    .set({
      updated_at: note.at,
      ...(note.scbStatus === undefined ? {} : { scb_status: note.scbStatus }),
      ...(note.lastError === undefined ? {} : { last_error: note.lastError }),
      ...(note.nextInquiryAt === undefined ? {} : { next_inquiry_at: note.nextInquiryAt }),
    })
    .where("withdraw_id", "=", withdrawId)
    .execute();
}

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/**
 * Keeps every exchange with SCB (already redacted) in `scb_exchanges`, with the references it
 * names and, resolved in the same statement, the payment with its ref1 and the withdraw of its
 * transfer (by the partner transaction id derived from the withdraw, else by the tokenizer id
 * stored for it before any confirm is sent).
 */
export class DatabaseRecorder implements ScbRecorder {
  constructor(private readonly db: Db) {}

  async record(exchange: ScbExchange): Promise<string> {
    const { ref1, partnerTransactionId, tokenizerId, transRef } = exchange.keys;
    const derived = partnerTransactionId ? withdrawIdOf(partnerTransactionId) : null;
    const row = await this.db
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
        withdraw_id:
          derived ??
          (tokenizerId
            ? sql<string>`(select withdraw_id from scb_transfers where tokenizer_id = ${tokenizerId})`
            : null),
        unreadable: exchange.unreadable ?? null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return String(row.id);
  }

  async markUnreadable(exchangeId: string, reason: string): Promise<void> {
    if (!/^[0-9]{1,18}$/.test(exchangeId)) return;
    await this.db
      .updateTable("scb_exchanges")
      .set({ unreadable: reason.slice(0, 500) })
      .where("id", "=", BigInt(exchangeId))
      .execute();
  }
}

export type ExchangeRow = Selectable<Database["scb_exchanges"]>;

/** What the operator's list of exchanges narrows by; every given filter must hold. */
export interface ExchangeFilters {
  direction?: ScbExchangeDirection | undefined;
  operation?: string | undefined;
  paymentId?: string | undefined;
  withdrawId?: string | undefined;
  /** A ref1, partner transaction id, tokenizer id or transRef: exchanges naming it. */
  reference?: string | undefined;
  /** Only the answers the connector could not read (true), or only the others (false). */
  unreadable?: boolean | undefined;
  /** started_at in [dateFrom, dateTo). */
  dateFrom?: Date | undefined;
  dateTo?: Date | undefined;
}

/** One page of exchanges, newest first (ties by id), and how many match. */
export function listExchanges(
  db: Db,
  filters: ExchangeFilters,
  window: { offset: number; limit: number },
): Promise<{ rows: ExchangeRow[]; total: number }> {
  let query = db.selectFrom("scb_exchanges");
  if (filters.direction !== undefined) query = query.where("direction", "=", filters.direction);
  if (filters.operation !== undefined) query = query.where("operation", "=", filters.operation);
  if (filters.paymentId !== undefined) query = query.where("payment_id", "=", filters.paymentId);
  if (filters.withdrawId !== undefined) query = query.where("withdraw_id", "=", filters.withdrawId);
  const reference = filters.reference;
  if (reference !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb("ref1", "=", reference),
        eb("partner_transaction_id", "=", reference),
        eb("tokenizer_id", "=", reference),
        eb("trans_ref", "=", reference),
      ]),
    );
  }
  if (filters.unreadable !== undefined)
    query = query.where("unreadable", filters.unreadable ? "is not" : "is", null);
  if (filters.dateFrom !== undefined) query = query.where("started_at", ">=", filters.dateFrom);
  if (filters.dateTo !== undefined) query = query.where("started_at", "<", filters.dateTo);
  return selectPage(query, window, { column: "started_at", direction: "desc" });
}

export function findExchange(db: Db, id: bigint): Promise<ExchangeRow | undefined> {
  return db.selectFrom("scb_exchanges").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * Deletes at most `limit` exchanges that started before `before`, oldest first, and says how
 * many. Rows another worker is deleting are skipped, not waited for.
 */
export async function deleteExchangesBefore(db: Db, before: Date, limit: number): Promise<number> {
  const deleted = await db
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
