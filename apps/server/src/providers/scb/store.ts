/**
 * SQL of the SCB connector: the credit transfer of each withdraw (its tokenizer id and whether
 * its one confirm has left) and the record of every exchange with SCB.
 */
import { type Db, withTransaction } from "../../db/handles.ts";
import type { ScbExchange, ScbRecorder } from "./recorder.ts";

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

/** Keeps every exchange with SCB (already redacted by the client) in `scb_exchanges`. */
export class DatabaseRecorder implements ScbRecorder {
  constructor(private readonly db: Db) {}

  async record(exchange: ScbExchange): Promise<void> {
    await this.db
      .insertInto("scb_exchanges")
      .values({
        operation: exchange.operation,
        request_uid: exchange.requestUId,
        method: exchange.method,
        path: exchange.path,
        attempt: exchange.attempt,
        started_at: exchange.startedAt,
        duration_ms: Math.round(exchange.durationMs),
        request_body: json(exchange.requestBody),
        response_status: exchange.responseStatus,
        response_body: json(exchange.responseBody),
        error: exchange.error,
      })
      .execute();
  }
}
