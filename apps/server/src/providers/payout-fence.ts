/**
 * The fence every connector step that may lead to money moving passes (a bank transfer's
 * initiate, confirm or create): the withdraw (or refund) is still `processing` and its payout
 * attempt is neither completed nor watched (lifecycle/payouts.ts `watchResolvedPayout`). The payout row is locked FOR SHARE, so the lifecycle or the operator
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
    // A `watching` attempt (resolved failed by the operator, still asked about) is closed to
    // every money step, as a completed one is. The state is checked here and not left to the
    // subject's status alone: this locks the payout row only, so when it waited for the
    // operator's decision PostgreSQL re-checks the payout's new row but the subject's row as it
    // read it before (still `processing`).
    .where("payouts.state", "not in", ["completed", "watching"])
    .where("subject.status", "=", "processing")
    .forShare("payouts")
    .executeTakeFirst();
  return row !== undefined;
};
