/**
 * What a payout pays out: a withdraw (the merchant's money to the merchant's account) or a
 * refund (a payment's money back to the customer). Both go through the same payout path
 * (lifecycle/payouts.ts, the payout connector, the payout desk); each attempt, transfer, batch
 * line and resolution names exactly one subject (migration 0096).
 *
 * The provider's idempotency key of a payout is derived from its subject and is stable across
 * every send and check: a withdraw's is its id (as it always was), a refund's is its id behind
 * `refund_`, so no refund's key is ever a withdraw's.
 */
import { isUuid } from "./ids.ts";

export type PayoutSubjectKind = "withdraw" | "refund";

export interface PayoutSubject {
  kind: PayoutSubjectKind;
  id: string;
}

const REFUND_KEY_PREFIX = "refund_";

export const withdrawSubject = (id: string): PayoutSubject => ({ kind: "withdraw", id });
export const refundSubject = (id: string): PayoutSubject => ({ kind: "refund", id });

/** The provider's idempotency key of the subject's payout. */
export function payoutKeyOf(subject: PayoutSubject): string {
  return subject.kind === "withdraw" ? subject.id : `${REFUND_KEY_PREFIX}${subject.id}`;
}

/** The subject a payout key names, or null when it cannot name one of ours. Ids are lower case. */
export function payoutSubjectOfKey(key: string): PayoutSubject | null {
  if (key.startsWith(REFUND_KEY_PREFIX)) {
    const id = key.slice(REFUND_KEY_PREFIX.length);
    return isUuid(id) ? refundSubject(id.toLowerCase()) : null;
  }
  return isUuid(key) ? withdrawSubject(key.toLowerCase()) : null;
}

/** The row column that names a subject of this kind. */
export function subjectColumn(kind: PayoutSubjectKind): "withdraw_id" | "refund_id" {
  return kind === "withdraw" ? "withdraw_id" : "refund_id";
}

/** The subject of a row that names exactly one (payouts, a connector's transfers, batch items, ...). */
export function subjectOfRow(row: { withdraw_id: string | null; refund_id: string | null }): PayoutSubject {
  if (row.withdraw_id !== null) return withdrawSubject(row.withdraw_id);
  if (row.refund_id !== null) return refundSubject(row.refund_id);
  throw new Error("a payout row names neither a withdraw nor a refund");
}
