/**
 * The withdraw state machine (docs/withdraws.md, docs/lifecycle.md): every move a withdraw's
 * status can make, with the ledger posting and the event that go with it, and the one function
 * that writes the status column. Every path that changes a withdraw's status comes here:
 * admission, the merchant's cancel, the operator's approve and reject, verification expiry,
 * payout dispatch, and what the provider reports (reports.ts). The status sets the rules speak
 * of are in statuses.ts.
 *
 * | transition         | from                  | to                    | ledger        | event               |
 * |--------------------|-----------------------|-----------------------|---------------|---------------------|
 * | admit              | (new)                 | pending               | hold          | -                   |
 * | admitForReview     | (new, over threshold) | awaiting_verification | hold          | -                   |
 * | approve            | awaiting_verification | pending               | -             | -                   |
 * | reject             | awaiting_verification | canceled              | hold released | withdraw.canceled   |
 * | cancel             | awaiting_verification, pending | canceled     | hold released | withdraw.canceled   |
 * | expireVerification | awaiting_verification (24 h)   | expired      | hold released | withdraw.canceled (object expired) |
 * | dispatch           | pending               | processing            | -             | withdraw.processing |
 * | pay                | processing            | paid                  | hold consumed | withdraw.paid       |
 * | fail               | processing            | failed                | hold released | withdraw.failed     |
 * | payLate            | failed, expired       | paid                  | wallet debited again | withdraw.paid |
 *
 * Stamps: canceled sets canceledAt, paid sets paidAt, failed sets failedAt.
 *
 * Locks: the withdraw row first (the lifecycle locks it, or this file's conditional UPDATE
 * does), then (for a late success, reports.ts) the merchant's wallet lock, then the ledger
 * accounts in the ledger's own order. Admission takes the wallet lock but never an existing
 * withdraw's row, so the two orders cannot meet in a cycle.
 */
import type { Trx } from "../db/handles.ts";
import { runStatement, runTogether, runTogetherAndCommit } from "../db/pg-driver.ts";
import type { NewWithdraw, WithdrawRow, WithdrawStatus } from "../db/types.ts";
import { recordEvent } from "../events/outbox.ts";
import {
  postingStatement,
  postWithdrawHold,
  postWithdrawLateSuccess,
  postWithdrawPaid,
  postWithdrawRelease,
  withdrawHold,
} from "../ledger/postings.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { LATE_SUCCESS_STATUSES, MERCHANT_CANCELABLE_STATUSES } from "./statuses.ts";
import {
  type DestinationUse,
  isWithdrawKeyConflict,
  lockWithdraw,
  updateWithdrawStatus,
  type WithdrawStamps,
  withdrawInsertStatement,
} from "./store.ts";
import { withdrawView } from "./view.ts";

type WithdrawEvent = "withdraw.processing" | "withdraw.paid" | "withdraw.failed" | "withdraw.canceled";
type Posting = (
  trx: Trx,
  input: { merchantId: string; withdrawId: string; amountSatang: bigint; at: Date },
) => Promise<unknown>;

interface WithdrawTransitionRule {
  /** The statuses the move starts from; empty for the first status of a new withdraw. */
  from: readonly WithdrawStatus[];
  to: WithdrawStatus;
  /** The ledger posting written with the move, in the same transaction. */
  posting?: Posting;
  /** The event written with the move, carrying the withdraw as the API shows it. */
  event?: WithdrawEvent;
  /** Columns stamped with the move's time besides `updated_at`. */
  stamps?: (at: Date) => WithdrawStamps;
}

const canceledAt = (at: Date) => ({ canceled_at: at });
const paidAt = (at: Date) => ({ paid_at: at });

export const WITHDRAW_TRANSITIONS = {
  admit: { from: [], to: "pending", posting: postWithdrawHold },
  admitForReview: { from: [], to: "awaiting_verification", posting: postWithdrawHold },
  approve: { from: ["awaiting_verification"], to: "pending" },
  reject: {
    from: ["awaiting_verification"],
    to: "canceled",
    posting: postWithdrawRelease,
    event: "withdraw.canceled",
    stamps: canceledAt,
  },
  cancel: {
    from: MERCHANT_CANCELABLE_STATUSES,
    to: "canceled",
    posting: postWithdrawRelease,
    event: "withdraw.canceled",
    stamps: canceledAt,
  },
  // No event type names an expiry (CONTRACT 12's list is closed): the merchant learns the payout
  // will not happen from withdraw.canceled, its object reading `expired`.
  expireVerification: {
    from: ["awaiting_verification"],
    to: "expired",
    posting: postWithdrawRelease,
    event: "withdraw.canceled",
  },
  dispatch: { from: ["pending"], to: "processing", event: "withdraw.processing" },
  pay: {
    from: ["processing"],
    to: "paid",
    posting: postWithdrawPaid,
    event: "withdraw.paid",
    stamps: paidAt,
  },
  fail: {
    from: ["processing"],
    to: "failed",
    posting: postWithdrawRelease,
    event: "withdraw.failed",
    stamps: (at) => ({ failed_at: at }),
  },
  payLate: {
    from: LATE_SUCCESS_STATUSES,
    to: "paid",
    posting: postWithdrawLateSuccess,
    event: "withdraw.paid",
    stamps: paidAt,
  },
} as const satisfies Record<string, WithdrawTransitionRule>;

export type WithdrawTransition = keyof typeof WITHDRAW_TRANSITIONS;
type Move = Exclude<WithdrawTransition, "admit" | "admitForReview">;

const rule = (transition: WithdrawTransition): WithdrawTransitionRule => WITHDRAW_TRANSITIONS[transition];

/** Whether `transition` may start from `status` (the table alone; no times or amounts). */
export function canMoveWithdraw(transition: WithdrawTransition, status: WithdrawStatus): boolean {
  return rule(transition).from.includes(status);
}

async function applyEffects(
  trx: Trx,
  move: WithdrawTransitionRule,
  row: WithdrawRow,
  at: Date,
): Promise<void> {
  if (move.posting) {
    await move.posting(trx, {
      merchantId: row.merchant_id,
      withdrawId: row.id,
      amountSatang: row.amount_satang,
      at,
    });
  }
  if (move.event) {
    await recordEvent(trx, {
      merchantId: row.merchant_id,
      type: move.event,
      objectType: "withdraw",
      object: withdrawView(row),
      occurredAt: at,
    });
  }
}

/**
 * The one writer of a withdraw's status after admission: moves it by `transition` when its
 * status is one the transition starts from (one conditional UPDATE, in the caller's
 * transaction), and writes the transition's posting and event in that same transaction, so of
 * two racing moves exactly one changes the row and only that one posts. Undefined when the
 * withdraw is not (or not the merchant's, or no longer) in such a status; nothing is written.
 */
export async function moveWithdraw(
  trx: Trx,
  transition: Move,
  target: { id: string; merchantId?: string },
  at: Date,
): Promise<WithdrawRow | undefined> {
  const move = rule(transition);
  const row = await updateWithdrawStatus(trx, {
    id: target.id,
    merchantId: target.merchantId,
    from: move.from,
    to: move.to,
    at,
    stamps: move.stamps?.(at) ?? {},
  });
  // The posting and the event carry the time the withdraw was stamped with, which is later than
  // `at` only when a reset test clock acts on a withdraw made ahead of it (withdraws/store.ts).
  if (row) await applyEffects(trx, move, row, row.updated_at);
  return row;
}

/** `moveWithdraw` on a withdraw the caller holds locked and has checked: it must move. */
export async function moveLockedWithdraw(
  trx: Trx,
  transition: Move,
  row: WithdrawRow,
  at: Date,
): Promise<WithdrawRow> {
  const moved = await moveWithdraw(trx, transition, { id: row.id }, at);
  if (!moved) throw new Error(`withdraw ${row.id} is ${row.status} under its lock: ${transition} refused`);
  return moved;
}

/**
 * A withdraw's INSERT found its id, reference id or idempotency key taken: its transaction has
 * failed (the hold sent with the INSERT, and the COMMIT, are not kept) and the admission must
 * run again, which then finds the withdraw that took the key. Unreachable while admission holds
 * the wallet lock and reads the keys under it.
 */
export class WithdrawKeyTaken extends Error {
  constructor(cause: unknown) {
    super("a unique key of the new withdraw was taken during its admission", { cause });
  }
}

/**
 * Admits a new withdraw in its first status, paying to its saved destination, with its hold,
 * in the caller's transaction (which holds the merchant's wallet lock). The INSERT and the hold
 * go to the database together, in one round trip, when the transaction knows the merchant's
 * account ids (the wallet lock read them), and with the COMMIT too when `last` (the caller
 * opened the transaction, and this is the last thing it does: db/pg-driver.ts
 * `runTogetherAndCommit`).
 */
export async function admitWithdraw(
  trx: Trx,
  transition: "admit" | "admitForReview",
  row: Omit<NewWithdraw, "status" | "destination_id">,
  destination: DestinationUse,
  options: { last?: boolean } = {},
): Promise<WithdrawRow> {
  const move = rule(transition);
  const insert = withdrawInsertStatement(trx, { ...row, status: move.to }, destination);
  const hold = postingStatement(
    trx,
    withdrawHold({
      merchantId: row.merchant_id,
      withdrawId: row.id,
      amountSatang: row.amount_satang,
      at: row.created_at,
    }),
  );
  try {
    if (hold) {
      const send = options.last ? runTogetherAndCommit : runTogether;
      const [inserted] = await send(trx, insert, hold);
      return inserted;
    }
    const inserted = await runStatement(trx, insert);
    await applyEffects(trx, move, inserted, inserted.created_at);
    return inserted;
  } catch (error) {
    if (isWithdrawKeyConflict(error)) throw new WithdrawKeyTaken(error);
    throw error;
  }
}

/** The verification rule: awaiting the operator, and the 24 hours have run out. */
export function isVerificationDue(
  row: Pick<WithdrawRow, "status" | "verification_expires_at">,
  now: Date,
): boolean {
  return (
    row.status === "awaiting_verification" &&
    row.verification_expires_at !== null &&
    row.verification_expires_at.getTime() <= now.getTime()
  );
}

/**
 * Locks the withdraw and expires it if its approval deadline has passed. Used before the
 * merchant's cancel and the operator's approve or reject, so that they see what the expiry job
 * would have left: an approval one millisecond late is refused, like the job would refuse it.
 */
export async function expireVerificationIfDue(
  trx: Trx,
  ctx: { clock: Clock },
  withdrawId: string,
  merchantId?: string,
): Promise<void> {
  const locked = await lockWithdraw(trx, withdrawId);
  if (!locked) return;
  const { row } = locked;
  if (merchantId !== undefined && row.merchant_id !== merchantId) return;
  const now = businessNow(ctx.clock, locked.offsetMs);
  if (isVerificationDue(row, now)) await moveLockedWithdraw(trx, "expireVerification", row, now);
}
