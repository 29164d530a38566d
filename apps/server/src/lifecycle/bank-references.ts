/**
 * A bank reference names one transfer, so it pays one withdraw or refund, whichever way it is
 * recorded: as a payout desk line's `paid` outcome (payout-desk/service.ts) or as an operator's
 * `paid` resolution of an undecided payout (lifecycle/undecided.ts). Both paths take the
 * reference's transaction-scoped advisory lock (case-insensitively, as the desk's unique index
 * compares references) and then look in both places, so two recordings of one reference, by
 * either path and in any number of processes, book one of them and refuse the other.
 */
import { sql } from "kysely";
import type { Db, Trx } from "../db/handles.ts";
import { AppError } from "../lib/errors.ts";
import { subjectOfRow } from "../lib/payout-subjects.ts";

/** Who holds a reference: a desk line (with its batch) or a resolution (no batch). */
export interface BankReferenceHolder {
  batch_id: string | null;
  withdraw_id: string | null;
  refund_id: string | null;
}

/** Serializes the recordings of one reference until the transaction ends. */
export async function lockBankReference(trx: Trx, bankReference: string): Promise<void> {
  const key = `bank_reference:${bankReference.toLowerCase()}`;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/** The desk line or the resolution that already holds `bankReference`, or undefined. */
export async function bankReferenceHolder(
  db: Db,
  bankReference: string,
): Promise<BankReferenceHolder | undefined> {
  const folded = sql<string>`lower(${bankReference})`;
  const line = await db
    .selectFrom("payout_batch_items")
    .select(["batch_id", "withdraw_id", "refund_id"])
    .where(sql<string>`lower(bank_reference)`, "=", folded)
    .executeTakeFirst();
  if (line) return line;
  const resolution = await db
    .selectFrom("payout_resolutions")
    .select(["withdraw_id", "refund_id"])
    .where("outcome", "=", "paid")
    .where(sql<string>`lower(bank_reference)`, "=", folded)
    .executeTakeFirst();
  return resolution ? { batch_id: null, ...resolution } : undefined;
}

/** The refusal of a reference another withdraw or refund holds: 409, nothing booked. */
export function bankReferenceInUse(bankReference: string, holder: BankReferenceHolder | undefined): AppError {
  const subject = holder ? subjectOfRow(holder) : undefined;
  const where =
    holder && subject
      ? ` for ${subject.kind} ${subject.id} (${holder.batch_id ? `batch ${holder.batch_id}` : "an operator's resolution"})`
      : "";
  return new AppError(
    "STATE_CONFLICT",
    `The bank reference ${bankReference} is already recorded${where}: one bank transfer pays one withdraw or refund. Check the reference with the bank.`,
    {
      reason: "bank_reference_in_use",
      ...(holder && subject ? { [subject.kind === "withdraw" ? "withdrawId" : "refundId"]: subject.id } : {}),
      ...(holder?.batch_id ? { batchId: holder.batch_id } : {}),
    },
  );
}
