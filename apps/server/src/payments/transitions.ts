/**
 * The payment state machine (docs/lifecycle.md): every move a payment's status can make, with
 * the ledger posting and the event that go with it, and the one function that writes the
 * status column. Every path that changes a payment's status comes here: create, the merchant's
 * cancel, expiry (job, clock advance, and the check before any other action), and what a
 * provider reports (reports.ts). The status sets the rules speak of are in statuses.ts.
 *
 * | transition  | from                  | to             | ledger            | event            |
 * |-------------|-----------------------|----------------|-------------------|------------------|
 * | create      | (new)                 | requires_action | -                | -                |
 * | cancel      | open                  | canceled       | -                 | payment.canceled |
 * | expire      | awaiting the customer | expired        | -                 | payment.expired  |
 * | process     | awaiting the customer | processing     | -                 | -                |
 * | succeed     | open                  | succeeded      | payment_succeeded | payment.received |
 * | confirmLate | expired (within 72 h) | succeeded      | payment_succeeded | payment.received |
 * | fail        | open                  | payment_failed | -                 | payment.failed   |
 *
 * Stamps: cancel sets canceledAt; process sets confirmedAt; succeed and confirmLate set
 * capturedAt and, unless it was set before, confirmedAt.
 *
 * A payment expires at `expiresAt` and not a millisecond before: it is due when
 * `expires_at <= business now`. Every path that acts on a payment checks that first with the
 * same rule as the expiry job (`expireIfDue`), so an action arriving after `expiresAt` but
 * before the job ran sees the payment expired, exactly as if the job had been quicker. A
 * payment the provider is already processing does not expire: the customer has paid and the
 * money is on its way.
 */
import type { Db, Trx } from "../db/handles.ts";
import type { SignatureUse } from "../db/replay-records.ts";
import type { NewPayment, PaymentRow, PaymentStatus } from "../db/types.ts";
import { recordEvent } from "../events/outbox.ts";
import { postPaymentSucceeded } from "../ledger/postings.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { AWAITING_CUSTOMER_STATUSES, isAwaitingCustomer, OPEN_PAYMENT_STATUSES } from "./statuses.ts";
import {
  insertPaymentGrouped,
  insertPaymentIfAbsent,
  lockPayment,
  type PaymentStamps,
  type SIGNATURE_USED,
  updatePaymentStatus,
} from "./store.ts";
import { paymentView, type ViewContext } from "./view.ts";

type PaymentEvent = "payment.received" | "payment.failed" | "payment.expired" | "payment.canceled";

interface PaymentTransitionRule {
  /** The statuses the move starts from; empty for the first status of a new payment. */
  from: readonly PaymentStatus[];
  to: PaymentStatus;
  /** The ledger posting written with the move, in the same transaction. */
  posting?: (trx: Trx, row: PaymentRow, at: Date) => Promise<unknown>;
  /** The event written with the move, carrying the payment as the API shows it. */
  event?: PaymentEvent;
  /** Columns stamped with the move's time besides `updated_at`. */
  stamps?: (at: Date) => PaymentStamps;
}

const succeeded = (trx: Trx, row: PaymentRow, at: Date) =>
  postPaymentSucceeded(trx, {
    merchantId: row.merchant_id,
    paymentId: row.id,
    amountSatang: row.amount_satang,
    at,
  });

export const PAYMENT_TRANSITIONS = {
  create: { from: [], to: "requires_action" },
  cancel: {
    from: OPEN_PAYMENT_STATUSES,
    to: "canceled",
    event: "payment.canceled",
    stamps: (at) => ({ canceled_at: at }),
  },
  expire: { from: AWAITING_CUSTOMER_STATUSES, to: "expired", event: "payment.expired" },
  process: {
    from: AWAITING_CUSTOMER_STATUSES,
    to: "processing",
    stamps: (at) => ({ confirmed_at: at }),
  },
  succeed: {
    from: OPEN_PAYMENT_STATUSES,
    to: "succeeded",
    posting: succeeded,
    event: "payment.received",
    stamps: (at) => ({ captured_at: at, confirmedAtIfUnset: at }),
  },
  confirmLate: {
    from: ["expired"],
    to: "succeeded",
    posting: succeeded,
    event: "payment.received",
    stamps: (at) => ({ captured_at: at, confirmedAtIfUnset: at }),
  },
  fail: { from: OPEN_PAYMENT_STATUSES, to: "payment_failed", event: "payment.failed" },
} as const satisfies Record<string, PaymentTransitionRule>;

export type PaymentTransition = keyof typeof PAYMENT_TRANSITIONS;

const rule = (transition: PaymentTransition): PaymentTransitionRule => PAYMENT_TRANSITIONS[transition];

/** Whether `transition` may start from `status` (the table alone; no times or amounts). */
export function canMovePayment(transition: PaymentTransition, status: PaymentStatus): boolean {
  return rule(transition).from.includes(status);
}

/** What the events of a move need: the base URL the payment record's links start with. */
export interface PaymentEventContext {
  config: ViewContext;
}

async function applyEffects(
  trx: Trx,
  ctx: PaymentEventContext,
  move: PaymentTransitionRule,
  row: PaymentRow,
  at: Date,
): Promise<void> {
  if (move.posting) await move.posting(trx, row, at);
  if (move.event) {
    await recordEvent(trx, {
      merchantId: row.merchant_id,
      type: move.event,
      objectType: "payment",
      object: paymentView(row, ctx.config),
      occurredAt: at,
    });
  }
}

/**
 * The one writer of a payment's status after create: moves it by `transition` when its status
 * is one the transition starts from (one conditional UPDATE, in the caller's transaction), and
 * writes the transition's posting and event in that same transaction. Undefined when the
 * payment is not (or not the merchant's, or no longer) in such a status; nothing is written.
 */
export async function movePayment(
  trx: Trx,
  ctx: PaymentEventContext,
  transition: Exclude<PaymentTransition, "create">,
  target: { id: string; merchantId?: string },
  at: Date,
): Promise<PaymentRow | undefined> {
  const move = rule(transition);
  const row = await updatePaymentStatus(trx, {
    id: target.id,
    merchantId: target.merchantId,
    from: move.from,
    to: move.to,
    at,
    stamps: move.stamps?.(at) ?? {},
  });
  // The posting and the event carry the time the payment was stamped with, which is later than
  // `at` only when a reset test clock acts on a payment made ahead of it (payments/store.ts).
  if (row) await applyEffects(trx, ctx, move, row, row.updated_at);
  return row;
}

/** `movePayment` on a payment the caller holds locked and has checked: it must move. */
export async function moveLockedPayment(
  trx: Trx,
  ctx: PaymentEventContext,
  transition: Exclude<PaymentTransition, "create">,
  row: PaymentRow,
  at: Date,
): Promise<PaymentRow> {
  const moved = await movePayment(trx, ctx, transition, { id: row.id }, at);
  if (!moved) throw new Error(`payment ${row.id} is ${row.status} under its lock: ${transition} refused`);
  return moved;
}

/**
 * Creates a payment in its first status. Undefined when a unique key (id, idempotency key,
 * reference id, transfer reference) is taken; the caller settles against the existing row.
 */
export function createPaymentRow(trx: Trx, row: Omit<NewPayment, "status">): Promise<PaymentRow | undefined> {
  return insertPaymentIfAbsent(trx, { ...row, status: PAYMENT_TRANSITIONS.create.to });
}

/**
 * A new payment and the signed request's replay record in one statement (payments/store.ts),
 * grouped with the other creates of this process that arrive at the same time: the new row,
 * undefined when a unique key was taken, or SIGNATURE_USED.
 */
export function createPaymentRowWithReplayRecord(
  db: Db,
  row: Omit<NewPayment, "status">,
  use: SignatureUse | undefined,
): Promise<PaymentRow | undefined | typeof SIGNATURE_USED> {
  return insertPaymentGrouped(db, { ...row, status: PAYMENT_TRANSITIONS.create.to }, use);
}

/** The one expiry rule: waiting for the customer, and `expiresAt` has come. */
export function isExpiryDue(row: Pick<PaymentRow, "status" | "expires_at">, now: Date): boolean {
  return (
    isAwaitingCustomer(row.status) && row.expires_at !== null && row.expires_at.getTime() <= now.getTime()
  );
}

/** Applies the expiry rule to a locked payment: the payment as it is after that. */
export async function expireIfDue(
  trx: Trx,
  ctx: PaymentEventContext,
  row: PaymentRow,
  now: Date,
): Promise<PaymentRow> {
  return isExpiryDue(row, now) ? moveLockedPayment(trx, ctx, "expire", row, now) : row;
}

/**
 * Locks the merchant's payment and expires it if due. Used before a merchant's own action (a
 * cancel), so that action sees the same state the expiry job would have left.
 */
export async function expirePaymentIfDue(
  trx: Trx,
  ctx: PaymentEventContext & { clock: Clock },
  merchantId: string,
  paymentId: string,
): Promise<void> {
  const locked = await lockPayment(trx, paymentId);
  if (!locked || locked.row.merchant_id !== merchantId) return;
  await expireIfDue(trx, ctx, locked.row, businessNow(ctx.clock, locked.offsetMs));
}
