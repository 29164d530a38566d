/**
 * The fence every connector step that may lead to money moving passes (a bank transfer's
 * initiate, confirm or create): the withdraw (or refund) is still `processing` and its payout
 * attempt is not completed. The payout row is locked FOR SHARE, so the lifecycle or the operator
 * cannot book an outcome (which completes that row in the same transaction) until the step's
 * claim has committed; a step that comes after the booking sees it and sends nothing.
 */
import type { Trx } from "../db/handles.ts";
import { type PayoutSubject, subjectColumn } from "../lib/payout-subjects.ts";

export type PayoutFence = (trx: Trx, subject: PayoutSubject) => Promise<boolean>;

export const payoutStillOpen: PayoutFence = async (trx, subject) => {
  const column = subjectColumn(subject.kind);
  // The subject's own table (withdraws or refunds): both have the `id` and `status` read here.
  const table = subject.kind === "refund" ? "refunds" : "withdraws";
  const row = await trx
    .selectFrom("payouts")
    .innerJoin(`${table} as subject` as "withdraws as subject", "subject.id", `payouts.${column}`)
    .select(`payouts.${column}`)
    .where(`payouts.${column}`, "=", subject.id)
    .where("payouts.state", "<>", "completed")
    .where("subject.status", "=", "processing")
    .forShare("payouts")
    .executeTakeFirst();
  return row !== undefined;
};
