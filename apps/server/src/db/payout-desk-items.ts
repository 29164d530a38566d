/**
 * Whether the operator's payout desk took a withdraw or refund into a batch (docs/payout-desk.md),
 * open or closed: the desk pays it by hand and records what the bank did, so nothing else (the
 * sandbox's simulated bank, after SATANG_PAYOUTS changed back to `provider`) may decide it.
 */
import type { Db } from "./handles.ts";

export async function takenByPayoutDesk(
  db: Db,
  subject: { withdrawId: string } | { refundId: string },
): Promise<boolean> {
  const [column, id] =
    "withdrawId" in subject
      ? (["withdraw_id", subject.withdrawId] as const)
      : (["refund_id", subject.refundId] as const);
  const row = await db
    .selectFrom("payout_batch_items")
    .select("batch_id")
    .where(column, "=", id)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
