/**
 * SQL of the Opn connector's payouts: the recipient of each destination and the one transfer of
 * each payout key (migrations 0097 and 0098, docs/providers/opn.md).
 */
import type { Selectable } from "kysely";
import { type Db, withTransaction } from "../../db/handles.ts";
import { payoutSubjectOfKey } from "../../lib/payout-subjects.ts";
import { type PayoutFence, payoutStillOpen } from "../payout-fence.ts";
import { type OpnDatabase, opnTables } from "./db.ts";
import type { OpnTransferState } from "./tables.ts";

export type OpnTransferRow = Selectable<OpnDatabase["opn_transfers"]>;
export type OpnRecipientRow = Selectable<OpnDatabase["opn_recipients"]>;

export interface Destination {
  bankCode: string;
  accountNumber: string;
  accountName: string;
}

export function findTransferRow(db: Db, payoutKey: string): Promise<OpnTransferRow | undefined> {
  return opnTables(db)
    .selectFrom("opn_transfers")
    .selectAll()
    .where("payout_key", "=", payoutKey)
    .executeTakeFirst();
}

/** Records the payout before anything is sent; a second send of the key finds the same row. */
export async function recordTransfer(
  db: Db,
  payoutKey: string,
  destination: Destination,
  amountSatang: bigint,
  at: Date,
): Promise<OpnTransferRow> {
  await opnTables(db)
    .insertInto("opn_transfers")
    .values({
      payout_key: payoutKey,
      bank_code: destination.bankCode,
      account_number: destination.accountNumber,
      account_name: destination.accountName,
      amount_satang: amountSatang,
      state: "waiting_recipient",
      transfer_id: null,
      last_attempt_at: null,
      failure_reason: null,
      last_error: null,
      created_at: at,
      updated_at: at,
    })
    .onConflict((conflict) => conflict.column("payout_key").doNothing())
    .execute();
  const row = await findTransferRow(db, payoutKey);
  if (!row) throw new Error(`opn_transfers row ${payoutKey} vanished`);
  return row;
}

/**
 * Where a transfer row stood when a step read it, or when a create claimed it: what the step
 * learns from Opn is written only while the row still stands there (`noteError`,
 * `markWithoutTransfer`). A step whose answer comes late (a create the lifecycle stopped waiting
 * for, another process's check of the same key) finds the row moved on and writes nothing over
 * what a later step learnt.
 */
export interface TransferPosition {
  state: OpnTransferState;
  sendAttempts: number;
}

export function positionOf(row: OpnTransferRow): TransferPosition {
  return { state: row.state, sendAttempts: row.send_attempts };
}

/** What a claim of the next create found: the position it took, or why it took none. */
export type SendClaim =
  | { kind: "claimed"; position: TransferPosition }
  /** Another create was claimed first (the row moved on since it was read). */
  | { kind: "taken" }
  /** The payout is no longer open (booked, or resolved by the operator): nothing may be sent. */
  | { kind: "closed" };

/**
 * Claims the next create of a transfer, in one transaction: the payout must still be open (the
 * fence, providers/payout-fence.ts, locks its attempt record so no outcome is booked while the
 * claim commits), and one conditional update takes the create, so that of two processes only
 * the one that saw the row as it is now may send; the other finds `send_attempts` moved on.
 */
export async function claimSend(
  db: Db,
  row: OpnTransferRow,
  at: Date,
  fence: PayoutFence = payoutStillOpen,
): Promise<SendClaim> {
  const subject = payoutSubjectOfKey(row.payout_key);
  const claimed: TransferPosition = { state: "sending", sendAttempts: row.send_attempts + 1 };
  return withTransaction(db, async (trx): Promise<SendClaim> => {
    if (!subject || !(await fence(trx, subject))) return { kind: "closed" };
    const result = await opnTables(trx)
      .updateTable("opn_transfers")
      .set({ state: claimed.state, send_attempts: claimed.sendAttempts, last_attempt_at: at, updated_at: at })
      .where("payout_key", "=", row.payout_key)
      .where("state", "=", row.state)
      .where("send_attempts", "=", row.send_attempts)
      .where("transfer_id", "is", null)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n ? { kind: "claimed", position: claimed } : { kind: "taken" };
  });
}

export async function markSent(db: Db, payoutKey: string, transferId: string, at: Date): Promise<void> {
  await opnTables(db)
    .updateTable("opn_transfers")
    .set({
      state: "sent",
      transfer_id: transferId,
      last_error: null,
      other_amount_transfer_id: null,
      updated_at: at,
    })
    .where("payout_key", "=", payoutKey)
    .execute();
}

/**
 * A payout that ends without a transfer: only from a state in which none was ever created, and
 * only while the row stands where the step that decided it found it (so a late refusal of an
 * earlier create never ends a transfer a later create is sending). `error`, when given, becomes
 * the row's last error in the same write. True when it was written.
 */
export async function markWithoutTransfer(
  db: Db,
  payoutKey: string,
  from: TransferPosition,
  end: { state: Extract<OpnTransferState, "refused" | "abandoned">; reason: string; error?: string },
  at: Date,
): Promise<boolean> {
  const result = await opnTables(db)
    .updateTable("opn_transfers")
    .set({
      state: end.state,
      failure_reason: end.reason,
      ...(end.error === undefined ? {} : { last_error: end.error.slice(0, 500) }),
      updated_at: at,
    })
    .where("payout_key", "=", payoutKey)
    .where("transfer_id", "is", null)
    .where("state", "=", from.state)
    .where("send_attempts", "=", from.sendAttempts)
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Opn's last error about the transfer, kept only while the row stands where the step found it. */
export async function noteError(
  db: Db,
  payoutKey: string,
  from: TransferPosition,
  error: string,
  at: Date,
): Promise<void> {
  await opnTables(db)
    .updateTable("opn_transfers")
    .set({ last_error: error.slice(0, 500), updated_at: at })
    .where("payout_key", "=", payoutKey)
    .where("state", "=", from.state)
    .where("send_attempts", "=", from.sendAttempts)
    .execute();
}

/**
 * What Opn's transfer list showed under the payout's key for another amount than the payout's:
 * that transfer's id (kept until a list no longer shows one), or null when a whole list showed
 * none. Written only while the row stands where the lookup found it, as `noteError`.
 */
export async function noteOtherAmount(
  db: Db,
  payoutKey: string,
  from: TransferPosition,
  transferId: string | null,
  at: Date,
): Promise<void> {
  await opnTables(db)
    .updateTable("opn_transfers")
    .set({ other_amount_transfer_id: transferId, updated_at: at })
    .where("payout_key", "=", payoutKey)
    .where("state", "=", from.state)
    .where("send_attempts", "=", from.sendAttempts)
    .execute();
}

export async function findRecipient(db: Db, destination: Destination): Promise<OpnRecipientRow | undefined> {
  return opnTables(db)
    .selectFrom("opn_recipients")
    .selectAll()
    .where("bank_code", "=", destination.bankCode)
    .where("account_number", "=", destination.accountNumber)
    .where("account_name", "=", destination.accountName)
    .executeTakeFirst();
}

export async function ensureRecipientRow(
  db: Db,
  destination: Destination,
  at: Date,
): Promise<OpnRecipientRow> {
  await opnTables(db)
    .insertInto("opn_recipients")
    .values({
      bank_code: destination.bankCode,
      account_number: destination.accountNumber,
      account_name: destination.accountName,
      recipient_id: null,
      failure_code: null,
      created_at: at,
      updated_at: at,
    })
    .onConflict((conflict) => conflict.columns(["bank_code", "account_number", "account_name"]).doNothing())
    .execute();
  const row = await findRecipient(db, destination);
  if (!row) throw new Error("opn_recipients row vanished");
  return row;
}

/**
 * What Opn showed of the destination's recipient, kept only while nothing was saved after the
 * read was asked (`askedAt`): a slow read that showed the recipient unverified with a failure
 * code must not replace a later read's "verified", or the next payout to the destination would
 * be failed as rejected without Opn being asked.
 */
export async function saveRecipient(
  db: Db,
  destination: Destination,
  shown: { recipientId: string; verified: boolean; active: boolean; failureCode: string | null },
  at: Date,
  askedAt: Date,
): Promise<void> {
  await opnTables(db)
    .updateTable("opn_recipients")
    .set({
      recipient_id: shown.recipientId,
      verified: shown.verified,
      active: shown.active,
      failure_code: shown.failureCode,
      updated_at: at,
    })
    .where("bank_code", "=", destination.bankCode)
    .where("account_number", "=", destination.accountNumber)
    .where("account_name", "=", destination.accountName)
    // A create whose answer came second does not replace the recipient the first one stored.
    .where((eb) => eb.or([eb("recipient_id", "is", null), eb("recipient_id", "=", shown.recipientId)]))
    .where("updated_at", "<=", askedAt)
    .execute();
}
