/**
 * Live collection through SCB (docs/providers/scb.md): payment confirmations SCB posts, and the
 * reconciler that asks SCB about payments whose confirmation never came.
 *
 * Nothing is credited on a confirmation's word. A confirmation is recorded (one row per SCB
 * transaction id, however often SCB sends it), acknowledged, and checked with SCB's bill payment
 * inquiry (`collection.confirmPayment`). Only a transaction SCB shows for the operator's biller,
 * the payment's ref1 and the payment's amount succeeds the payment, through the same report path
 * as every provider (payments/reports.ts: succeed, or the late confirmation of an expired
 * payment within 72 hours), so the ledger, events and webhooks are those of the sandbox.
 *
 * One SCB transaction id credits once: it is the callback id of a `provider_callbacks` row
 * (provider `scb`), whose primary key refuses a second one in any process. Whatever SCB shows
 * that cannot be credited (an unknown reference, another amount, a second payment under one
 * reference, a payment canceled or past the window) and every confirmation SCB does not confirm
 * is written to `provider_anomalies` for the operator, and credits nothing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { type Db, withTransaction } from "../db/handles.ts";
import type { PaymentRow } from "../db/types.ts";
import { AppError } from "../lib/errors.ts";
import { JOB_BATCH_SIZE, LATE_CONFIRMATION_WINDOW_MS } from "../lib/limits.ts";
import { formatThb } from "../lib/money.ts";
import { type Refusal, unknownSubject } from "../lib/provider-reports.ts";
import { applyPaymentReport } from "../payments/reports.ts";
import { findPaymentByCollectionReference } from "../payments/store.ts";
import {
  type ConfirmationCheck,
  type ConfirmationClaim,
  confirmationAck,
  parseConfirmation,
  type VerifiedPayment,
} from "../providers/scb/collection.ts";
import type { ScbConnector } from "../providers/scb/connector.ts";
import { SCB_PROVIDER_NAME } from "../providers/scb/names.ts";
import type { ScbTransactionSource } from "../providers/scb/tables.ts";
import { bangkokDate } from "../providers/scb/time.ts";
import type { ConfirmationAck } from "../providers/scb/types.ts";
import { recordAnomaly } from "./anomalies.ts";
import type { LifecycleContext } from "./context.ts";
import {
  type ConfirmationRow,
  claimConfirmationRecheck,
  claimDueCollections,
  decideConfirmation,
  dueConfirmationRechecks,
  noteCollectionCheck,
  recordConfirmation,
  recordScbTransaction,
  wasCredited,
} from "./scb-store.ts";
import { closeAnomalies, insertCallbackIfAbsent, setCallbackResult } from "./store.ts";

/** How long a confirmation being checked is left to its checker before the reconciler retries. */
const CONFIRMATION_CHECK_LEASE_MS = 120_000;
/**
 * How long a confirmation SCB's inquiry does not show yet is checked again (every
 * SCB_RECONCILE_INTERVAL_S) before it is recorded as unconfirmed: a genuine payment can reach
 * the inquiry after its confirmation.
 */
export const UNSHOWN_CONFIRMATION_RECHECK_MS = 10 * 60_000;
/** An open payment's checks back off (interval, doubled each time) to at most this. */
const OPEN_PAYMENT_CHECK_INTERVAL_MAX_MS = 15 * 60_000;
/** Expired payments (the late-confirmation window) are asked about at least this far apart... */
const EXPIRED_PAYMENT_CHECK_INTERVAL_MS = 15 * 60_000;
/** ...backing off to at most this (the daily sweep asks about every reference again). */
const EXPIRED_PAYMENT_CHECK_INTERVAL_MAX_MS = 60 * 60_000;
/**
 * A check asks the Bangkok dates since the previous answered check, less this: a payment made
 * just before midnight can reach the inquiry just after it.
 */
const INQUIRY_VISIBILITY_GRACE_MS = 60 * 60_000;
/** Anomalies a credit of the same SCB transaction makes untrue. */
const CLOSED_BY_CREDIT = ["unconfirmed_confirmation", "altered_confirmation"] as const;

type ScbContext = LifecycleContext & { scb: ScbConnector };

function scbOf(ctx: LifecycleContext): ScbContext {
  if (!ctx.scb || !ctx.config.scb) throw new AppError("RESOURCE_NOT_FOUND", "SCB is not configured");
  return ctx as ScbContext;
}

const reconcileIntervalMs = (ctx: LifecycleContext) => ctx.config.scb?.reconcileIntervalMs ?? 60_000;

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether a path segment is the callback token: constant time, whatever the lengths. */
export function isCallbackToken(ctx: LifecycleContext, candidate: string): boolean {
  const token = ctx.config.scb?.callbackToken;
  if (!token) return false;
  return timingSafeEqual(digest(token), digest(candidate));
}

/** What crediting one SCB transaction did: applied, duplicate, or why it was refused. */
interface CreditResult {
  result: string;
  paymentId: string | null;
}

function amountRefusal(row: PaymentRow, paid: bigint): Refusal {
  return {
    reason: "amount_mismatch",
    message: `SCB shows ${formatThb(paid)} THB paid under the payment's reference; the payment is for ${formatThb(row.amount_satang)} THB. Nothing was credited`,
    anomaly: true,
    merchantId: row.merchant_id,
    subjectStatus: row.status,
    amountSatang: paid,
  };
}

/** A refusal of money SCB shows as paid: always one for the operator (a refund, a late credit). */
function paidButRefused(refusal: Refusal, paid: bigint): Refusal {
  if (refusal.reason !== "already_succeeded") return { ...refusal, anomaly: true, amountSatang: paid };
  return {
    ...refusal,
    reason: "second_payment",
    message:
      "A second SCB transaction was paid under the reference of a payment that has already succeeded. Nothing was credited",
    anomaly: true,
    amountSatang: paid,
  };
}

/**
 * Credits one transaction SCB showed (never a confirmation's claim): the payment with its ref1
 * succeeds when the amount is the payment's. Once per transaction id.
 */
export async function creditScbTransaction(
  ctx: LifecycleContext,
  paid: VerifiedPayment,
  seenBy: ScbTransactionSource,
): Promise<CreditResult> {
  const row = await findPaymentByCollectionReference(ctx.db, paid.ref1);
  const paymentId = row?.id ?? null;
  const at = ctx.clock.now();
  // The Bangkok date SCB paid it on (its own clock when SCB printed no time).
  const paidDate = bangkokDate(paid.paidAt ?? (ctx.scb?.clock ?? ctx.clock).now());
  const keep = (trx: Db, result: string) =>
    recordScbTransaction(trx, {
      transactionId: paid.transactionId,
      ref1: paid.ref1,
      amountSatang: paid.amountSatang,
      paidAt: paid.paidAt,
      paidDate,
      paymentId,
      result,
      seenBy,
      at,
    });
  return withTransaction(ctx.db, async (trx): Promise<CreditResult> => {
    const fresh = await insertCallbackIfAbsent(trx, {
      provider: SCB_PROVIDER_NAME,
      callback_id: paid.transactionId,
      subject_type: "payment",
      subject_id: paymentId ?? paid.ref1,
      outcome: "succeeded",
      result: "applied",
      reason: null,
      received_at: ctx.clock.now(),
    });
    if (!fresh) return { result: "duplicate", paymentId };
    let refusal: Refusal;
    if (!row) {
      refusal = {
        ...unknownSubject(
          "unknown_reference",
          `SCB shows a payment under ref1 ${paid.ref1}, which no payment has`,
        ),
        amountSatang: paid.amountSatang,
      };
    } else if (row.amount_satang !== paid.amountSatang) {
      refusal = amountRefusal(row, paid.amountSatang);
    } else {
      const applied = await applyPaymentReport(trx, ctx, row.id, "succeeded");
      if (applied.kind === "applied") {
        await keep(trx, "applied");
        // A confirmation of this transaction recorded as unconfirmed (SCB's inquiry did not show
        // it yet) or altered is no longer money SCB holds uncredited.
        await closeAnomalies(trx, {
          provider: SCB_PROVIDER_NAME,
          callbackId: paid.transactionId,
          reasons: CLOSED_BY_CREDIT,
          resolution: `credited: SCB's transaction ${paid.transactionId} was credited to payment ${row.id}`,
          at,
        });
        return { result: "applied", paymentId };
      }
      refusal = paidButRefused(applied.refusal, paid.amountSatang);
    }
    await keep(trx, refusal.reason);
    await setCallbackResult(trx, SCB_PROVIDER_NAME, paid.transactionId, "refused", refusal.reason);
    await recordAnomaly(trx, ctx, {
      provider: SCB_PROVIDER_NAME,
      subjectType: "payment",
      subjectId: paymentId ?? paid.ref1,
      report: "payment.succeeded",
      callbackId: paid.transactionId,
      refusal,
    });
    return { result: refusal.reason, paymentId };
  });
}

/** The body a stored claim is checked with again: the fields `confirmPayment` reads. */
function claimBody(row: ConfirmationRow): string {
  return JSON.stringify({
    transactionId: row.transaction_id,
    billPaymentRef1: row.ref1,
    transactionDateandTime: row.paid_at.toISOString(),
    ...(row.claimed_amount_satang === null ? {} : { amount: formatThb(row.claimed_amount_satang) }),
    ...(row.claimed_biller_id === null ? {} : { payeeProxyId: row.claimed_biller_id }),
  });
}

/** A confirmation SCB does not confirm: recorded for the operator with what it claimed. */
async function unconfirmed(
  ctx: LifecycleContext,
  claim: ConfirmationClaim,
  decision: { status: "not_found" | "mismatch"; reason: string; message: string },
): Promise<void> {
  const row = await findPaymentByCollectionReference(ctx.db, claim.ref1);
  const at = ctx.clock.now();
  await withTransaction(ctx.db, async (trx) => {
    // The transaction was credited meanwhile (the reconciler found it): nothing is uncredited.
    const credited = await wasCredited(trx, SCB_PROVIDER_NAME, claim.transactionId);
    if (credited) {
      await decideConfirmation(trx, claim.transactionId, {
        status: "verified",
        paymentId: row?.id ?? null,
        result: "duplicate",
        detail: null,
        nextCheckAt: null,
        at,
      });
      return;
    }
    await recordAnomaly(trx, ctx, {
      provider: SCB_PROVIDER_NAME,
      subjectType: "payment",
      subjectId: row?.id ?? claim.ref1,
      report: "payment.succeeded",
      callbackId: claim.transactionId,
      refusal: {
        reason: decision.reason,
        message: decision.message,
        anomaly: true,
        merchantId: row?.merchant_id ?? null,
        subjectStatus: row?.status ?? null,
        amountSatang: claim.amountSatang,
      },
    });
    await decideConfirmation(trx, claim.transactionId, {
      status: decision.status,
      paymentId: row?.id ?? null,
      result: decision.reason,
      detail: decision.message,
      nextCheckAt: null,
      at,
    });
  });
}

/** Acts on SCB's answer about one confirmation and records the decision. */
async function actOnCheck(
  ctx: ScbContext,
  check: Exclude<ConfirmationCheck, { status: "malformed" }>,
  receivedAt: Date,
) {
  const at = ctx.clock.now();
  const { claim } = check;
  switch (check.status) {
    case "verified": {
      const credit = await creditScbTransaction(ctx, check.payment, "confirmation");
      await decideConfirmation(ctx.db, claim.transactionId, {
        status: "verified",
        paymentId: credit.paymentId,
        result: credit.result,
        detail: null,
        nextCheckAt: null,
        at,
      });
      return;
    }
    case "not_found":
      if (check.retry && at.getTime() - receivedAt.getTime() < UNSHOWN_CONFIRMATION_RECHECK_MS) {
        // Not shown yet: asked again each interval for a bounded time before it is an anomaly.
        await decideConfirmation(ctx.db, claim.transactionId, {
          status: "received",
          paymentId: null,
          result: null,
          detail: `SCB's inquiry does not show it yet: ${check.reason}`,
          nextCheckAt: new Date(at.getTime() + reconcileIntervalMs(ctx)),
          at,
        });
        return;
      }
      return unconfirmed(ctx, claim, {
        status: "not_found",
        reason: "unconfirmed_confirmation",
        message: `Payment confirmation not confirmed by SCB: ${check.reason}. Nothing was credited`,
      });
    case "mismatch":
      // The genuine transaction is credited by the reconciler, on SCB's own word.
      return unconfirmed(ctx, claim, {
        status: "mismatch",
        reason: "altered_confirmation",
        message: `Payment confirmation differs from SCB's transaction in ${check.fields.join(", ")}. Nothing was credited on it`,
      });
    default:
      await decideConfirmation(ctx.db, claim.transactionId, {
        status: "unavailable",
        paymentId: null,
        result: null,
        detail: check.error,
        nextCheckAt: new Date(at.getTime() + reconcileIntervalMs(ctx)),
        at,
      });
  }
}

/** Checks a recorded confirmation with SCB's inquiry and acts on the answer. */
async function checkConfirmation(ctx: ScbContext, row: ConfirmationRow): Promise<void> {
  const check = await ctx.scb.collection.confirmPayment(claimBody(row));
  if (check.status === "malformed")
    throw new Error(`a stored confirmation reads as malformed: ${check.error}`);
  await actOnCheck(ctx, check, row.received_at);
}

/**
 * A payment confirmation as SCB posted it: recorded, checked, acknowledged. A body that is not a
 * confirmation answers 400 VALIDATION_ERROR (SCB sends it again). Otherwise the answer is SCB's
 * acknowledgment, also when SCB could not be asked (the reconciler checks it again) and for a
 * re-send (checked once).
 */
export async function receiveScbConfirmation(
  ctx: LifecycleContext,
  rawBody: string,
): Promise<ConfirmationAck> {
  const scb = scbOf(ctx);
  const parsed = parseConfirmation(rawBody);
  if (!parsed.ok) throw new AppError("VALIDATION_ERROR", `Not a payment confirmation: ${parsed.error}`);
  const { claim } = parsed;
  const at = ctx.clock.now();
  const recorded = await recordConfirmation(ctx.db, {
    transactionId: claim.transactionId,
    ref1: claim.ref1,
    claimedAmountSatang: claim.amountSatang,
    claimedBillerId: claim.billerId,
    paidAt: claim.paidAt,
    at,
    recheckAt: new Date(at.getTime() + CONFIRMATION_CHECK_LEASE_MS),
  });
  let row: ConfirmationRow | undefined = recorded.row;
  // A re-send is checked again only when SCB could not be asked before.
  if (!recorded.fresh) {
    row = await claimConfirmationRecheck(
      ctx.db,
      claim.transactionId,
      at,
      new Date(at.getTime() + CONFIRMATION_CHECK_LEASE_MS),
    );
  }
  if (row) {
    const check = await scb.scb.collection.confirmPayment(recorded.fresh ? rawBody : claimBody(row));
    if (check.status !== "malformed") await actOnCheck(scb, check, row.received_at);
  }
  return confirmationAck(claim.transactionId);
}

/** Re-checks undecided confirmations whose time has come. */
async function recheckConfirmations(ctx: ScbContext): Promise<number> {
  const now = ctx.clock.now();
  let handled = 0;
  for (const transactionId of await dueConfirmationRechecks(ctx.db, now, JOB_BATCH_SIZE)) {
    const row = await claimConfirmationRecheck(
      ctx.db,
      transactionId,
      now,
      new Date(now.getTime() + CONFIRMATION_CHECK_LEASE_MS),
    );
    if (!row) continue;
    await checkConfirmation(ctx, row);
    handled += 1;
  }
  return handled;
}

/**
 * How long until a payment's next question, after its `checks`-th: the interval, doubled after
 * each check, up to 15 minutes while it is open; at least 15 minutes and at most an hour once it
 * expired (docs/providers/scb.md, "How often SCB is asked").
 */
export function nextCheckDelayMs(intervalMs: number, checks: number, expired: boolean): number {
  const doubled = intervalMs * 2 ** Math.min(Math.max(checks - 1, 0), 20);
  if (!expired) return Math.min(doubled, Math.max(intervalMs, OPEN_PAYMENT_CHECK_INTERVAL_MAX_MS));
  return Math.min(
    Math.max(doubled, intervalMs, EXPIRED_PAYMENT_CHECK_INTERVAL_MS),
    Math.max(intervalMs, EXPIRED_PAYMENT_CHECK_INTERVAL_MAX_MS),
  );
}

/**
 * Asks SCB about live PromptPay payments whose confirmation may have been lost: open ones first
 * an interval after create, then less and less often (nextCheckDelayMs), expired ones within the
 * late-confirmation window at most every 15 minutes. Each check asks the Bangkok dates since the
 * previous answered one (less an hour), so a payment costs one inquiry per check, two across
 * midnight. Every transaction SCB shows under a payment's ref1 is credited (once). While SCB
 * throttles the inquiry (429), nothing is claimed, and what was claimed waits for the end of it.
 */
async function reconcileCollections(ctx: ScbContext): Promise<number> {
  const interval = reconcileIntervalMs(ctx);
  if (ctx.scb.collection.throttledUntil()) return 0;
  const claimed = await withTransaction(ctx.db, (trx) => {
    const now = ctx.clock.now();
    return claimDueCollections(trx, {
      now,
      firstCheckBefore: new Date(now.getTime() - interval),
      expiredSince: new Date(now.getTime() - LATE_CONFIRMATION_WINDOW_MS),
      nextCheckAt: new Date(now.getTime() + interval),
      limit: JOB_BATCH_SIZE,
    });
  });
  for (const payment of claimed) {
    const at = ctx.clock.now();
    const throttled = ctx.scb.collection.throttledUntil();
    if (throttled) {
      const resume = new Date(at.getTime() + (throttled.getTime() - ctx.scb.clock.now().getTime()));
      await noteCollectionCheck(ctx.db, payment.id, {
        lastError: `SCB throttled the inquiry (HTTP 429) until ${throttled.toISOString()}`,
        nextCheckAt: resume,
        at,
      });
      continue;
    }
    const askedAt = ctx.scb.clock.now();
    const since = payment.last_checked_at
      ? new Date(payment.last_checked_at.getTime() - INQUIRY_VISIBILITY_GRACE_MS)
      : payment.created_at;
    const search = await ctx.scb.collection.findPayments({
      ref1: payment.collection_reference,
      from: new Date(Math.max(since.getTime(), payment.created_at.getTime())),
    });
    if (search.status === "unavailable") {
      await noteCollectionCheck(ctx.db, payment.id, { lastError: search.error, at: ctx.clock.now() });
      continue;
    }
    for (const paid of search.payments) await creditScbTransaction(ctx, paid, "reconciler");
    const done = ctx.clock.now();
    const delay = nextCheckDelayMs(interval, payment.checks, payment.status === "expired");
    await noteCollectionCheck(ctx.db, payment.id, {
      lastError: search.unreadable.length > 0 ? `unreadable: ${search.unreadable.join("; ")}` : null,
      at: done,
      // Rows that could not be read are not taken as "not paid": the dates stay to be asked.
      ...(search.unreadable.length > 0 ? {} : { checkedAt: askedAt }),
      nextCheckAt: new Date(done.getTime() + delay),
    });
  }
  return claimed.length;
}

/** One run of the SCB reconciler: undecided confirmations, then payments. Nothing without SCB. */
export async function reconcileScb(ctx: LifecycleContext): Promise<number> {
  if (!ctx.scb || !ctx.config.scb) return 0;
  const scb = ctx as ScbContext;
  return (await recheckConfirmations(scb)) + (await reconcileCollections(scb));
}
