/**
 * The fence every connector step that may lead to money moving passes (a bank transfer's
 * initiate, confirm or create): the withdraw (or refund) is still `processing` and its payout
 * attempt is not completed. The payout row is locked FOR SHARE, so the lifecycle or the operator
 * cannot book an outcome (which completes that row in the same transaction) until the step's
 * claim has committed; a step that comes after the booking sees it and sends nothing.
 */
import type { Trx } from "../db/handles.ts";
import type { PayoutSubject } from "../lib/payout-subjects.ts";

export type PayoutFence = (trx: Trx, subject: PayoutSubject) => Promise<boolean>;

export const payoutStillOpen: PayoutFence = async (trx, subject) => {
  if (subject.kind === "refund") {
    const row = await trx
      .selectFrom("payouts")
      .innerJoin("refunds", "refunds.id", "payouts.refund_id")
      .select("payouts.refund_id")
      .where("payouts.refund_id", "=", subject.id)
      .where("payouts.state", "<>", "completed")
      .where("refunds.status", "=", "processing")
      .forShare("payouts")
      .executeTakeFirst();
    return row !== undefined;
  }
  const row = await trx
    .selectFrom("payouts")
    .innerJoin("withdraws", "withdraws.id", "payouts.withdraw_id")
    .select("payouts.withdraw_id")
    .where("payouts.withdraw_id", "=", subject.id)
    .where("payouts.state", "<>", "completed")
    .where("withdraws.status", "=", "processing")
    .forShare("payouts")
    .executeTakeFirst();
  return row !== undefined;
};
