/**
 * The refund state machine (CONTRACT 16, docs/refunds.md): every move a refund's status can
 * make, with the ledger posting and the event that go with it, and the one function that writes
 * the status column (ARCHITECTURE rule 13). Admission (service.ts), the merchant's cancel, the
 * sandbox's simulated bank and every payout path call it.
 *
 * | transition  | from       | to         | ledger                          | event            |
 * |-------------|------------|------------|---------------------------------|------------------|
 * | admit       | (new)      | pending    | refund_hold (settlement, wallet) | -               |
 * | cancel      | pending    | canceled   | refund_release                  | refund.canceled  |
 * | dispatch    | pending    | processing | -                               | refund.processing|
 * | succeed     | processing | succeeded  | refund_paid (hold consumed)     | refund.succeeded |
 * | fail        | processing | failed     | refund_release                  | refund.failed    |
 * | succeedLate | failed     | succeeded  | refund_late_success (settlement, wallet) | refund.succeeded |
 *
 * A release (cancel, fail) also takes the refund off its payment's refunded sum, and puts the
 * part taken from the payment's settlement back into settlement pending while the payment is
 * still unsettled (once it has settled, that part goes to the wallet). A late success adds the
 * refund back to the payment's refunded sum and takes it as admission does (from the payment's
 * settlement while it is unsettled, the rest from the wallet); the caller checks that it fits.
 * A refund the operator failed while its bank might still pay it stays on the refunded sum
 * until the bank answers (`refundable_withheld`, reports.ts): its late success always fits.
 *
 * Locks: the refund row first (this file's conditional UPDATE), then its payment's row, then
 * the ledger accounts in the ledger's own order. Admission locks the payment's row and then
 * the wallet, and never an existing refund's row, so the two orders cannot meet in a cycle.
 */
import type { Trx } from "../db/handles.ts";
import type { RefundRow, RefundStatus } from "../db/types.ts";
import { recordEvent } from "../events/outbox.ts";
import { postRefundLateSuccess, postRefundPaid, postRefundRelease } from "../ledger/postings.ts";
import { settlementPartOf } from "./settlement-part.ts";
import {
  addRefunded,
  lockPaymentById,
  type RefundStamps,
  setSettlementPart,
  subtractRefunded,
  takeWithheld,
  updateRefundStatus,
} from "./store.ts";
import { refundView } from "./view.ts";

type RefundEvent = "refund.processing" | "refund.succeeded" | "refund.failed" | "refund.canceled";
type Effect = (trx: Trx, row: RefundRow, at: Date) => Promise<void>;

interface RefundTransitionRule {
  from: readonly RefundStatus[];
  to: RefundStatus;
  /** The ledger posting (and the payment's refunded sum) written with the move. */
  effect?: Effect;
  event?: RefundEvent;
  stamps?: (at: Date, failureReason: string | undefined) => RefundStamps;
}

/** The hold goes back where it came from, and the payment's refunded sum drops by the refund. */
const release: Effect = async (trx, row, at) => {
  const payment = await lockPaymentById(trx, row.payment_id);
  if (!payment) throw new Error(`refund ${row.id} names a missing payment`);
  const unsettled = payment.settled_at === null;
  await postRefundRelease(trx, {
    merchantId: row.merchant_id,
    refundId: row.id,
    amountSatang: row.amount_satang,
    returnToSettlementSatang: unsettled ? row.settlement_part_satang : 0n,
    at,
  });
  await subtractRefunded(trx, {
    paymentId: row.payment_id,
    amountSatang: row.amount_satang,
    settlementPartSatang: row.settlement_part_satang,
  });
};

const paid: Effect = async (trx, row, at) => {
  await postRefundPaid(trx, {
    merchantId: row.merchant_id,
    refundId: row.id,
    amountSatang: row.amount_satang,
    at,
  });
};

/**
 * A late success takes the refund again as admission does: while the payment is unsettled, from
 * its settlement (as much as the payment still has awaiting settlement), the rest from the
 * wallet, below zero if the merchant spent it meanwhile.
 */
const paidLate: Effect = async (trx, row, at) => {
  const payment = await lockPaymentById(trx, row.payment_id);
  if (!payment) throw new Error(`refund ${row.id} names a missing payment`);
  const settlementPart = settlementPartOf(payment, row.amount_satang);
  if (row.refundable_withheld) {
    // Failed by the operator, never by the bank: still on the payment's refunded sum.
    await takeWithheld(trx, {
      refundId: row.id,
      paymentId: row.payment_id,
      settlementPartSatang: settlementPart,
    });
  } else {
    const added = await addRefunded(trx, {
      paymentId: row.payment_id,
      amountSatang: row.amount_satang,
      settlementPartSatang: settlementPart,
    });
    if (!added)
      throw new Error(`refund ${row.id}: late success over the payment's amount (caller must check)`);
  }
  await setSettlementPart(trx, row.id, settlementPart);
  await postRefundLateSuccess(trx, {
    merchantId: row.merchant_id,
    refundId: row.id,
    amountSatang: row.amount_satang,
    settlementPartSatang: settlementPart,
    at,
  });
};

export const REFUND_TRANSITIONS = {
  cancel: {
    from: ["pending"],
    to: "canceled",
    effect: release,
    event: "refund.canceled",
    stamps: (at) => ({ canceled_at: at }),
  },
  dispatch: { from: ["pending"], to: "processing", event: "refund.processing" },
  succeed: {
    from: ["processing"],
    to: "succeeded",
    effect: paid,
    event: "refund.succeeded",
    stamps: (at) => ({ succeeded_at: at }),
  },
  fail: {
    from: ["processing"],
    to: "failed",
    effect: release,
    event: "refund.failed",
    stamps: (at, reason) => ({ failed_at: at, failure_reason: reason ?? "The bank refused the transfer" }),
  },
  succeedLate: {
    from: ["failed"],
    to: "succeeded",
    effect: paidLate,
    event: "refund.succeeded",
    // The bank paid it after all: no failure reason is left on a succeeded refund (failedAt
    // stays, as the time it was reported failed).
    stamps: (at) => ({ succeeded_at: at, failure_reason: null }),
  },
} as const satisfies Record<string, RefundTransitionRule>;

export type RefundTransition = keyof typeof REFUND_TRANSITIONS;

/** The status a new refund is admitted in; its hold is posted by admission (service.ts). */
export const ADMITTED_REFUND_STATUS: RefundStatus = "pending";

/** Whether `transition` may start from `status` (the table alone). */
export function canMoveRefund(transition: RefundTransition, status: RefundStatus): boolean {
  const rule: RefundTransitionRule = REFUND_TRANSITIONS[transition];
  return rule.from.includes(status);
}

/**
 * The one writer of a refund's status after admission: moves it by `transition` when its status
 * is one the transition starts from (one conditional UPDATE in the caller's transaction), with
 * the transition's posting and event in that same transaction, so of two racing moves exactly
 * one changes the row and only that one posts. Undefined when the refund is not (or not the
 * merchant's, or no longer) in such a status; nothing is written then.
 */
export async function moveRefund(
  trx: Trx,
  transition: RefundTransition,
  target: { id: string; merchantId?: string; failureReason?: string },
  at: Date,
): Promise<RefundRow | undefined> {
  const rule: RefundTransitionRule = REFUND_TRANSITIONS[transition];
  const row = await updateRefundStatus(trx, {
    id: target.id,
    merchantId: target.merchantId,
    from: rule.from,
    to: rule.to,
    at,
    stamps: rule.stamps?.(at, target.failureReason) ?? {},
  });
  if (!row) return undefined;
  // The posting and the event carry the time the refund was stamped with (db/change-times.ts),
  // as a withdraw's do: later than `at` when the refund changed in the same millisecond, or was
  // made ahead of a test clock that has been reset since (CONTRACT 10).
  const stamped = row.updated_at;
  if (rule.effect) await rule.effect(trx, row, stamped);
  if (rule.event) {
    await recordEvent(trx, {
      merchantId: row.merchant_id,
      type: rule.event,
      objectType: "refund",
      object: refundView(row),
      occurredAt: stamped,
    });
  }
  return row;
}
