/**
 * Payout processing (docs/lifecycle.md): handing pending withdraws and live refunds to the
 * provider, recording its answer, reconciling the answers that never came, verification expiry,
 * and sandbox simulation.
 *
 * A payout pays a "payout subject" (lib/payout-subjects.ts): a withdraw, or a refund paid back to
 * the customer. Both take the same three steps below with the same attempt record; only the
 * transitions differ (withdraws/transitions.ts and reports.ts, refunds/transitions.ts and
 * reports.ts), and a refund's idempotency key is its own, never a withdraw's.
 *
 * The provider is never called inside a database transaction (a slow bank must not hold row
 * locks, nor the embedded store's only connection). So a payout goes out in three steps:
 *
 * 1. One transaction moves the withdraw pending -> processing, writes withdraw.processing and
 *    inserts the payout attempt record (`payouts`, state `sending`). From here on, whatever
 *    happens to this process, the database knows a send may be under way.
 * 2. `sendPayout` with the withdraw id as the provider's idempotency key, outside any
 *    transaction, bounded by PROVIDER_CALL_TIMEOUT_MS.
 * 3. One transaction records the answer: `accepted` (the outcome comes later, by callback),
 *    `paid`/`failed` (booked at once), or indeterminate (an error, a timeout, a lost response):
 *    state `unknown`, and the withdraw stays processing.
 *
 * The reconciler asks the provider about every open attempt whose check is due (an `unknown`
 * one, an `accepted` one whose callback may have been lost, a `sending` one whose process died
 * between steps 1 and 3) with `getPayout`, and books what it says. Only when the provider says
 * it has never seen the key is the payout sent again, with the same key: the provider keeps one
 * payout per key, so that is the same payout, never a second one.
 */
import { type Trx, withTransaction } from "../db/handles.ts";
import { takenByPayoutDesk } from "../db/payout-desk-items.ts";
import type { WithOffset } from "../db/rows.ts";
import type { RefundRow, WithdrawRow } from "../db/types.ts";
import { atOffset, businessNow } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import {
  JOB_BATCH_SIZE,
  PAYOUT_CHECK_DELAY_MAX_MS,
  PAYOUT_CHECK_DELAY_MIN_MS,
  PAYOUT_SEND_LEASE_MS,
  PROVIDER_CALL_TIMEOUT_MS,
  PROVIDER_ERROR_LENGTH_MAX,
} from "../lib/limits.ts";
import { payoutDeskConflict } from "../lib/payout-desk-conflict.ts";
import {
  type PayoutSubject,
  payoutKeyOf,
  refundSubject,
  subjectOfRow,
  withdrawSubject,
} from "../lib/payout-subjects.ts";
import { findMerchant } from "../merchants/store.ts";
import type { PayoutInput, PayoutLookup, Provider, SendPayoutResult } from "../providers/provider.ts";
import { findRefundById, returnWithheld } from "../refunds/store.ts";
import { moveRefund } from "../refunds/transitions.ts";
import { walletInactive } from "../withdraws/admission.ts";
import type { WithdrawRecord } from "../withdraws/schemas.ts";
import { ENDED_UNPAID_STATUSES } from "../withdraws/statuses.ts";
import { findWithdraw, findWithdrawById } from "../withdraws/store.ts";
import { moveLockedWithdraw } from "../withdraws/transitions.ts";
import { withdrawView } from "../withdraws/view.ts";
import { recordAnomaly } from "./anomalies.ts";
import { type BookedPayout, bookPayoutReport, receiveProviderCallback } from "./callbacks.ts";
import { type LifecycleContext, providerHolding, simulatorOf } from "./context.ts";
import { eachMerchant } from "./per-merchant.ts";
import {
  claimDuePayouts,
  claimDueVerifications,
  claimPendingRefunds,
  claimPendingWithdraws,
  insertPayout,
  lockPayout,
  merchantsDueVerificationExpiry,
  updatePayout,
} from "./store.ts";

/** How long after its `checks`-th check an open payout is asked about again: doubling, capped. */
function checkDelayMs(checks: number): number {
  const doublings = Math.min(Math.max(checks - 1, 0), 30);
  return Math.min(PAYOUT_CHECK_DELAY_MIN_MS * 2 ** doublings, PAYOUT_CHECK_DELAY_MAX_MS);
}

const later = (at: Date, ms: number) => new Date(at.getTime() + ms);

/** When an accepted payout is asked about next after its send: when the provider asked, else the backoff. */
function recheckAt(at: Date, answer: { recheckAfterMs?: number }, backoff: Date): Date {
  return answer.recheckAfterMs === undefined ? backoff : later(at, answer.recheckAfterMs);
}

/**
 * When a payout a check found still undecided is asked about next: the backoff (1 minute,
 * doubling with each check, up to an hour), or later when the provider asked for later (a bank's
 * inquiry wait). A provider's earlier "ask again soon" does not undo the backoff: a transfer
 * the bank keeps showing in progress, or cannot find, is not asked about every few seconds.
 */
function recheckAfterCheck(at: Date, answer: { recheckAfterMs?: number }, backoff: Date): Date {
  const asked = recheckAt(at, answer, backoff);
  return asked > backoff ? asked : backoff;
}

/**
 * The operator resolved the payout `failed` without the bank saying so (lifecycle/undecided.ts):
 * its attempt record is watched instead of completed, so the reconciler keeps asking the bank
 * (`reconcileOne`): a transfer the bank executed after all is booked as a late success. Nothing
 * is sent for it again: its withdraw or refund is no longer `processing`, which every
 * connector step's fence requires (providers/payout-fence.ts).
 */
export async function watchResolvedPayout(trx: Trx, subject: PayoutSubject, at: Date): Promise<void> {
  await updatePayout(trx, subject, { state: "watching", nextCheckAt: later(at, checkDelayMs(0)), at });
}

/**
 * A watched payout's answer (`watchResolvedPayout`): executed -> booked as the late success of
 * the failed withdraw or refund (debited again) and recorded for the operator, whose decision
 * the bank contradicts; failed, or never received -> the record is completed, nothing booked;
 * still undecided or no answer -> asked again later. Never resent.
 */
async function watchedAnswer(
  trx: Trx,
  ctx: LifecycleContext,
  provider: Provider,
  subject: PayoutSubject,
  lookup: Lookup,
  at: Date,
  nextCheckAt: Date,
  previousError: string | null,
): Promise<void> {
  if (lookup.status === "error" || lookup.status === "accepted") {
    const reference = lookup.status === "accepted" ? { providerReference: lookup.providerReference } : {};
    const lastError = lookup.status === "error" ? lookup.error : (lookup.note ?? null);
    await updatePayout(trx, subject, { ...reference, lastError, nextCheckAt, at });
    if (lookup.status === "accepted" && lastError !== previousError) {
      await recordShownCompleted(trx, ctx, provider, subject);
    }
    return;
  }
  if (lookup.status !== "paid") {
    await updatePayout(trx, subject, { state: "completed", at });
    // The bank confirms the operator's failure: the refund's amount may be refunded again.
    if (subject.kind === "refund") await returnWithheld(trx, subject.id);
    return;
  }
  await updatePayout(trx, subject, { providerReference: lookup.providerReference, at });
  const booked = await bookPayoutReport(trx, ctx, subject, "paid");
  if (booked.kind === "refused") {
    await refusedAnswer(trx, ctx, provider, subject, "paid", booked, at);
    return;
  }
  // Booked on a watched attempt, the late success carries its notice (lifecycle/callbacks.ts).
  if (!booked.notice) return;
  await recordAnomaly(trx, ctx, {
    provider: provider.name,
    subjectType: subject.kind,
    subjectId: subject.id,
    report: "payout.paid",
    callbackId: null,
    refusal: booked.notice,
  });
}

/**
 * A watched payout (resolved `failed` by the operator) that the bank now shows completed, but
 * that the connector could not book (another amount than the payout's, say): recorded for the
 * operator, once each time the bank's answer changes to it, since the bank says money left
 * after the hold was released (docs/lifecycle.md). Nothing is booked: what left is the
 * operator's to establish with the bank.
 */
async function recordShownCompleted(
  trx: Trx,
  ctx: LifecycleContext,
  provider: Provider,
  subject: PayoutSubject,
): Promise<void> {
  const shown = (await provider.bankShowsPaid?.(trx, payoutKeyOf(subject))) ?? null;
  if (shown === null) return;
  const row =
    subject.kind === "withdraw"
      ? await findWithdrawById(trx, subject.id)
      : await findRefundById(trx, subject.id);
  if (!row) return;
  const name = subject.kind === "withdraw" ? "Withdraw" : "Refund";
  await recordAnomaly(trx, ctx, {
    provider: provider.name,
    subjectType: subject.kind,
    subjectId: subject.id,
    report: "payout.completed",
    callbackId: null,
    refusal: {
      reason: "resolved_failed_bank_shows_completed",
      message: `${name} was resolved failed by the operator, but ${shown}; nothing booked: check the statement and settle what left with the bank`,
      anomaly: true,
      merchantId: row.merchant_id,
      subjectStatus: row.status,
      amountSatang: row.amount_satang,
    },
  });
}

/** The provider's reason for a failed payout, kept on the attempt record for the operator. */
function failureReason(answer: { status: string; reason?: string }): { lastError?: string } {
  const reason = bankReason(answer);
  return reason === undefined ? {} : { lastError: reason };
}

/** The bank's reason for a failure, as a failed refund keeps it. */
function bankReason(answer: { status: string; reason?: string }): string | undefined {
  if (answer.status !== "failed" || answer.reason === undefined) return undefined;
  return answer.reason.slice(0, PROVIDER_ERROR_LENGTH_MAX);
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  return text.slice(0, PROVIDER_ERROR_LENGTH_MAX);
}

/**
 * Runs one provider call bounded by `ms`: rejects when it takes longer, and aborts the signal
 * the call was given, so a provider that takes several steps starts none after the bound. A
 * send the lifecycle has given up on must not go on to confirm a transfer later, when the
 * reconciler may already be deciding the same withdraw (docs/lifecycle.md).
 */
function bounded<T>(call: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`the provider did not answer within ${ms} ms`));
    }, ms);
  });
  return Promise.race([call(controller.signal), timeout]).finally(() => clearTimeout(timer));
}

/** A payout the lifecycle has started: what it pays, and what the provider is sent. */
interface StartedPayout {
  subject: PayoutSubject;
  input: PayoutInput;
  /** The attempt's `send_attempts`: its answer is booked only while no later send was started. */
  sendAttempt: number;
}

function payoutInput(row: WithdrawRow): PayoutInput {
  return {
    idempotencyKey: payoutKeyOf(withdrawSubject(row.id)),
    merchantId: row.merchant_id,
    amountSatang: row.amount_satang,
    destinationType: row.destination_type,
    bankCode: row.bank_code,
    accountNumber: row.bank_account_number,
    accountName: row.bank_account_name,
  };
}

/**
 * A refund's payout: its amount to its destination (the payment's customer account unless the
 * refund named one), under the refund's own idempotency key.
 */
function refundPayoutInput(row: RefundRow): PayoutInput {
  return {
    idempotencyKey: payoutKeyOf(refundSubject(row.id)),
    merchantId: row.merchant_id,
    amountSatang: row.amount_satang,
    destinationType: "bank_account",
    bankCode: row.bank_code,
    accountNumber: row.bank_account_number,
    accountName: row.bank_account_name,
  };
}

/** Step 1: pending -> processing, withdraw.processing and the attempt record, per claimed row. */
async function startPayouts(
  trx: Trx,
  provider: Provider,
  claimed: WithOffset<WithdrawRow>[],
  now: Date,
): Promise<StartedPayout[]> {
  const started: StartedPayout[] = [];
  for (const { row, offsetMs } of claimed) {
    const at = atOffset(now, offsetMs);
    const processing = await moveLockedWithdraw(trx, "dispatch", row, at);
    const subject = withdrawSubject(row.id);
    await insertPayout(trx, {
      subject,
      merchantId: row.merchant_id,
      provider: provider.name,
      nextCheckAt: later(at, PAYOUT_SEND_LEASE_MS),
      at,
    });
    started.push({ subject, input: payoutInput(processing), sendAttempt: 1 });
  }
  return started;
}

/** Step 1 for refunds: pending -> processing, refund.processing and the attempt record. */
async function startRefundPayouts(
  trx: Trx,
  provider: Provider,
  claimed: WithOffset<RefundRow>[],
  now: Date,
): Promise<StartedPayout[]> {
  const started: StartedPayout[] = [];
  for (const { row, offsetMs } of claimed) {
    const at = atOffset(now, offsetMs);
    const processing = await moveRefund(trx, "dispatch", { id: row.id }, at);
    // The claim holds the row's lock: a pending refund cannot have moved meanwhile.
    if (!processing) throw new Error(`refund ${row.id} refused dispatch under its lock`);
    const subject = refundSubject(row.id);
    await insertPayout(trx, {
      subject,
      merchantId: row.merchant_id,
      provider: provider.name,
      nextCheckAt: later(at, PAYOUT_SEND_LEASE_MS),
      at,
    });
    started.push({ subject, input: refundPayoutInput(processing), sendAttempt: 1 });
  }
  return started;
}

/** A refused booking of a provider's answer: kept for the operator, and the attempt closed. */
async function refusedAnswer(
  trx: Trx,
  ctx: LifecycleContext,
  provider: Provider,
  subject: PayoutSubject,
  outcome: "paid" | "failed",
  result: Extract<BookedPayout, { kind: "refused" }>,
  at: Date,
): Promise<void> {
  await recordAnomaly(trx, ctx, {
    provider: provider.name,
    subjectType: subject.kind,
    subjectId: subject.id,
    report: `payout.${outcome}`,
    callbackId: null,
    refusal: result.refusal,
  });
  await updatePayout(trx, subject, { state: "completed", at });
}

/**
 * Step 3: books the provider's answer to a send, unless a callback or the reconciler came first.
 * An answer that lands after a later send of the same payout was started (the reconciler resent
 * it when the provider had not seen this one) is not booked: a refusal of the earlier send would
 * otherwise fail the payout and release its hold while the later send may still be carried out.
 */
async function recordSendResult(
  trx: Trx,
  ctx: LifecycleContext,
  provider: Provider,
  started: StartedPayout,
  result: SendPayoutResult,
): Promise<void> {
  const { subject } = started;
  const locked = await lockPayout(trx, subject);
  if (locked?.row.state !== "sending" || locked.row.send_attempts !== started.sendAttempt) return;
  const at = businessNow(ctx.clock, locked.offsetMs);
  const nextCheckAt = later(at, checkDelayMs(locked.row.checks));
  if (result.status === "indeterminate") {
    await updatePayout(trx, subject, { state: "unknown", lastError: result.error, nextCheckAt, at });
    return;
  }
  if (result.status === "accepted") {
    await updatePayout(trx, subject, {
      state: "accepted",
      providerReference: result.providerReference,
      lastError: result.note ?? null,
      nextCheckAt: recheckAt(at, result, nextCheckAt),
      at,
    });
    return;
  }
  await updatePayout(trx, subject, {
    providerReference: result.providerReference,
    ...failureReason(result),
    at,
  });
  const booked = await bookPayoutReport(trx, ctx, subject, result.status, bankReason(result));
  if (booked.kind === "refused") await refusedAnswer(trx, ctx, provider, subject, result.status, booked, at);
}

/** Step 2 and 3 for one started payout. `responseLost` simulates a send whose answer never came. */
async function sendAndRecord(
  ctx: LifecycleContext,
  provider: Provider,
  started: StartedPayout,
  options: { responseLost?: boolean } = {},
): Promise<void> {
  let result: SendPayoutResult;
  try {
    const answer = await bounded(
      (signal) => provider.sendPayout(started.input, { signal }),
      ctx.payoutCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS,
    );
    result = options.responseLost
      ? { status: "indeterminate", error: "the provider's response was lost (sandbox simulation)" }
      : answer;
  } catch (error) {
    result = { status: "indeterminate", error: describe(error) };
  }
  await withTransaction(ctx.db, (trx) => recordSendResult(trx, ctx, provider, started, result));
}

/**
 * One batch of the payout dispatcher: claims pending withdraws and hands them to the provider.
 * Runs only where pending withdraws are picked up automatically (live, or a sandbox with
 * SANDBOX_PAYOUT_PICKUP=automatic) and the provider pays them; in the default sandbox they wait
 * for a simulate route, and with SATANG_PAYOUTS=manual for the operator's payout desk.
 */
export async function dispatchPendingWithdraws(ctx: LifecycleContext): Promise<number> {
  if (ctx.config.payoutPickup !== "automatic") return 0;
  // SATANG_PAYOUTS=manual: the operator's payout desk takes pending withdraws into batches
  // (payout-desk/); the worker leaves them alone, so no withdraw is paid twice.
  if (ctx.config.payouts === "manual") return 0;
  const provider = ctx.provider;
  if (!provider) return 0;
  const started = await withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const claimed = await claimPendingWithdraws(trx, { limit: JOB_BATCH_SIZE });
    return startPayouts(trx, provider, claimed, now);
  });
  await Promise.all(started.map((payout) => sendAndRecord(ctx, provider, payout)));
  return started.length;
}

/**
 * One batch of the refund payout dispatcher: claims pending refunds and hands them to the payout
 * provider, exactly as withdraws are (docs/refunds.md "Live"). Live only: a sandbox refund stays
 * pending until its simulate route says what the bank did (CONTRACT 9), and with
 * SATANG_PAYOUTS=manual the operator's payout desk takes refunds into batches instead.
 */
export async function dispatchPendingRefunds(ctx: LifecycleContext): Promise<number> {
  if (ctx.config.env !== "live") return 0;
  if (ctx.config.payoutPickup !== "automatic") return 0;
  if (ctx.config.payouts === "manual") return 0;
  const provider = ctx.provider;
  if (!provider) return 0;
  const started = await withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const claimed = await claimPendingRefunds(trx, { limit: JOB_BATCH_SIZE });
    return startRefundPayouts(trx, provider, claimed, now);
  });
  await Promise.all(started.map((payout) => sendAndRecord(ctx, provider, payout)));
  return started.length;
}

/** The payout dispatcher job's run: pending withdraws, then pending (live) refunds. */
export async function dispatchPendingPayouts(ctx: LifecycleContext): Promise<number> {
  const withdraws = await dispatchPendingWithdraws(ctx);
  return withdraws + (await dispatchPendingRefunds(ctx));
}

/**
 * Hands one pending withdraw to the provider now (sandbox simulation). When a worker took it
 * first, this waits for that worker's transaction and then finds nothing pending to start.
 */
async function dispatchWithdraw(
  ctx: LifecycleContext,
  withdrawId: string,
  options: { responseLost?: boolean } = {},
): Promise<void> {
  const provider = ctx.provider;
  if (!provider) throw new Error("no payout provider is configured");
  const started = await withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const claimed = await claimPendingWithdraws(trx, { limit: 1, withdrawId });
    return startPayouts(trx, provider, claimed, now);
  });
  for (const payout of started) await sendAndRecord(ctx, provider, payout, options);
}

type Lookup = PayoutLookup | { status: "error"; error: string };

/** Asks the provider about one claimed payout and books the answer; resends only an unknown key. */
/** What a resend of the subject's payout sends: the same input as its first send. */
async function resendOf(
  trx: Trx,
  subject: PayoutSubject,
  sendAttempt: number,
): Promise<StartedPayout | undefined> {
  if (subject.kind === "refund") {
    const refund = await findRefundById(trx, subject.id);
    return refund ? { subject, input: refundPayoutInput(refund), sendAttempt } : undefined;
  }
  const withdraw = await findWithdrawById(trx, subject.id);
  return withdraw ? { subject, input: payoutInput(withdraw), sendAttempt } : undefined;
}

/** The provider's answer about a payout, within the call's bound; a failure is an answer too. */
async function askAbout(ctx: LifecycleContext, provider: Provider, key: string): Promise<Lookup> {
  try {
    return await bounded(
      (signal) => provider.getPayout(key, { signal }),
      ctx.payoutCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS,
    );
  } catch (error) {
    return { status: "error", error: describe(error) };
  }
}

async function reconcileOne(
  ctx: LifecycleContext,
  provider: Provider,
  claim: { subject: PayoutSubject; key: string; checks: number },
): Promise<void> {
  const { subject } = claim;
  const lookup = await askAbout(ctx, provider, claim.key);
  const resend = await withTransaction(ctx.db, async (trx): Promise<StartedPayout | undefined> => {
    const locked = await lockPayout(trx, subject);
    if (!locked || locked.row.state === "completed") return undefined;
    // A later check claimed the payout while this one waited for the provider (past the lease):
    // its answer is the newer, and this one's may be older than a send it started.
    if (locked.row.checks !== claim.checks) return undefined;
    const payout = locked.row;
    const at = businessNow(ctx.clock, locked.offsetMs);
    const nextCheckAt = later(at, checkDelayMs(payout.checks));
    if (payout.state === "watching") {
      await watchedAnswer(trx, ctx, provider, subject, lookup, at, nextCheckAt, payout.last_error);
      return undefined;
    }
    switch (lookup.status) {
      case "not_found":
        // The provider never received the send (the process died before it, or the request
        // never arrived). Sending again with the same key is the same payout.
        await updatePayout(trx, subject, {
          state: "sending",
          sendAttempts: payout.send_attempts + 1,
          nextCheckAt: later(at, PAYOUT_SEND_LEASE_MS),
          at,
        });
        return resendOf(trx, subject, payout.send_attempts + 1);
      case "accepted":
        await updatePayout(trx, subject, {
          state: "accepted",
          providerReference: lookup.providerReference,
          lastError: lookup.note ?? null,
          nextCheckAt: recheckAfterCheck(at, lookup, nextCheckAt),
          at,
        });
        return undefined;
      case "error":
        await updatePayout(trx, subject, {
          state: payout.state === "sending" ? "unknown" : payout.state,
          lastError: lookup.error,
          nextCheckAt,
          at,
        });
        return undefined;
      default: {
        await updatePayout(trx, subject, {
          providerReference: lookup.providerReference,
          ...failureReason(lookup),
          at,
        });
        const booked = await bookPayoutReport(trx, ctx, subject, lookup.status, bankReason(lookup));
        if (booked.kind === "refused") {
          await refusedAnswer(trx, ctx, provider, subject, lookup.status, booked, at);
        }
        return undefined;
      }
    }
  });
  if (resend) await sendAndRecord(ctx, provider, resend);
}

/**
 * One batch of the reconciler. Claiming a payout pushes its next check a lease ahead in the
 * same transaction, so after the claim commits no other worker takes it while this one is
 * asking the provider.
 */
export async function reconcilePayouts(ctx: LifecycleContext): Promise<number> {
  if (!ctx.provider && !ctx.heldPayouts) return 0;
  const claimed = await withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const due = await claimDuePayouts(trx, { now, limit: JOB_BATCH_SIZE });
    for (const { row, offsetMs } of due) {
      const at = atOffset(now, offsetMs);
      await updatePayout(trx, subjectOfRow(row), {
        checks: row.checks + 1,
        nextCheckAt: later(at, PAYOUT_SEND_LEASE_MS),
        at,
      });
    }
    // Each as it stands after this claim: its `checks` tells this claim from a later one.
    return due.map(({ row }) => ({ ...row, checks: row.checks + 1 }));
  });
  await Promise.all(
    claimed.map((row) => {
      const claim = { subject: subjectOfRow(row), key: row.idempotency_key, checks: row.checks };
      // Asked of the connector that sent it, never of the one that takes new payouts now.
      const holder = providerHolding(ctx, row.provider);
      return holder ? reconcileOne(ctx, holder, claim) : holderMissing(ctx, row.provider, claim);
    }),
  );
  return claimed.length;
}

/**
 * A payout whose connector is not configured on this server any more (SATANG_PROVIDER without
 * it, or a bank connector without its payer settings): nobody else may be asked or sent it, so
 * it keeps its hold, is checked again later, and says why on the operator's undecided list.
 * Nobody was asked, so its `checks` stay as they were and it is looked at again after the
 * shortest delay rather than a backoff: once the connector is configured again (a restart), the
 * connector is asked within a minute, not up to an hour later.
 */
async function holderMissing(
  ctx: LifecycleContext,
  name: string,
  claim: { subject: PayoutSubject; checks: number },
): Promise<void> {
  await withTransaction(ctx.db, async (trx) => {
    const locked = await lockPayout(trx, claim.subject);
    if (!locked || locked.row.state === "completed" || locked.row.checks !== claim.checks) return;
    const at = businessNow(ctx.clock, locked.offsetMs);
    await updatePayout(trx, claim.subject, {
      state: locked.row.state === "sending" ? "unknown" : locked.row.state,
      lastError: `the connector ${name}, which holds this payout, is not configured on this server: it is asked nothing and its hold stays until ${name} is configured again (the operator may resolve it paid meanwhile, not failed)`,
      checks: claim.checks - 1,
      nextCheckAt: later(at, PAYOUT_CHECK_DELAY_MIN_MS),
      at,
    });
  });
}

/**
 * One batch of verification expiry: withdraws that waited 24 h for the operator's approval
 * become expired and their holds return to the wallet. With `merchantId`, only that merchant's.
 */
export async function expireDueVerifications(
  ctx: LifecycleContext,
  merchantId?: string,
  options: { skipLocked?: boolean } = {},
): Promise<number> {
  return withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const claimed = await claimDueVerifications(trx, {
      now,
      limit: JOB_BATCH_SIZE,
      merchantId,
      skipLocked: options.skipLocked,
    });
    // Merchant order, so two workers take the merchants' ledger locks in the same order.
    claimed.sort((a, b) => a.row.merchant_id.localeCompare(b.row.merchant_id));
    for (const { row, offsetMs } of claimed) {
      await moveLockedWithdraw(trx, "expireVerification", row, atOffset(now, offsetMs));
    }
    return claimed.length;
  });
}

/**
 * The verification-expiry job's run: one batch for each merchant with withdraws whose
 * verification ran out, each merchant in its own transaction (per-merchant.ts).
 */
export async function expireDueVerificationsByMerchant(ctx: LifecycleContext): Promise<number> {
  const merchants = await merchantsDueVerificationExpiry(ctx.db, {
    now: ctx.clock.now(),
    limit: JOB_BATCH_SIZE,
  });
  return eachMerchant(merchants, (merchantId) =>
    expireDueVerifications(ctx, merchantId, { skipLocked: true }),
  );
}

// Sandbox simulation.

export const SIMULATED_WITHDRAW_OUTCOMES = ["processing", "paid", "failed", "indeterminate"] as const;
export type SimulatedWithdrawOutcome = (typeof SIMULATED_WITHDRAW_OUTCOMES)[number];

const withdrawNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Withdraw not found");

export function conflict(row: Pick<WithdrawRow, "status">, message: string): AppError {
  return new AppError("STATE_CONFLICT", message, { status: row.status, reason: "invalid_transition" });
}

/** Marks an open payout's last answer as lost: the reconciler will ask the provider about it. */
async function markIndeterminate(ctx: LifecycleContext, withdrawId: string): Promise<void> {
  const subject = withdrawSubject(withdrawId);
  await withTransaction(ctx.db, async (trx) => {
    const locked = await lockPayout(trx, subject);
    if (!locked || locked.row.state === "completed" || locked.row.state === "watching") return;
    const at = businessNow(ctx.clock, locked.offsetMs);
    await updatePayout(trx, subject, {
      state: "unknown",
      lastError: "the provider's answer was indeterminate (sandbox simulation)",
      nextCheckAt: later(at, checkDelayMs(locked.row.checks)),
      at,
    });
  });
}

async function current(ctx: LifecycleContext, merchantId: string, id: string): Promise<WithdrawRow> {
  const row = await findWithdraw(ctx.db, merchantId, id);
  if (!row) throw withdrawNotFound();
  return row;
}

/**
 * Sandbox: the simulated bank moves a withdraw (CONTRACT 9).
 *
 * - `processing`: a pending withdraw is handed to the bank, which accepts it and waits.
 * - `indeterminate`: a pending withdraw is handed over but the bank's answer is lost; a
 *   processing one has its last answer lost. Either way it stays processing until reconciled.
 * - `paid` / `failed`: a pending withdraw is handed over first; then the bank decides and sends
 *   a signed callback through the same path a real provider's callback takes. `paid` on a
 *   failed or expired withdraw is the late success.
 *
 * Any other transition answers 409 STATE_CONFLICT; another merchant's withdraw 404.
 */
/**
 * The withdraw after a simulate route dispatched it: processing, or a 409 naming the status a
 * concurrent request moved it to first (a cancel between the route's read and the dispatch's
 * claim), so the route never answers 200 for a move that did not happen.
 */
async function sentOrConflict(ctx: LifecycleContext, merchantId: string, id: string): Promise<WithdrawRow> {
  const row = await current(ctx, merchantId, id);
  if (row.status !== "processing" && row.status !== "paid") {
    throw conflict(row, `Withdraw is ${row.status}: it was not sent to the bank`);
  }
  return row;
}

export async function simulateWithdraw(
  ctx: LifecycleContext,
  merchantId: string,
  withdrawId: string,
  outcome: SimulatedWithdrawOutcome,
): Promise<WithdrawRecord> {
  if (!isUuid(withdrawId)) throw withdrawNotFound();
  const id = withdrawId.toLowerCase();
  const bank = simulatorOf(ctx);
  let row = await current(ctx, merchantId, id);
  const inBatch = await takenByPayoutDesk(ctx.db, { withdrawId: id });
  if (ctx.config.payouts === "manual" || inBatch) throw payoutDeskConflict("Withdraw", row.status, inBatch);
  if (row.status === "awaiting_verification") {
    throw conflict(row, "Withdraw is awaiting the operator's verification: the provider has not received it");
  }
  // A frozen or closed wallet pays nothing out: its pending withdraw is not handed to the
  // simulated bank either, as the dispatcher and the payout desk leave it (lifecycle/store.ts).
  if (row.status === "pending") {
    const walletStatus = (await findMerchant(ctx.db, merchantId))?.wallet_status;
    if (walletStatus === "frozen" || walletStatus === "closed") throw walletInactive(walletStatus);
  }
  if (outcome === "processing" || outcome === "indeterminate") {
    if (row.status === "pending") {
      await dispatchWithdraw(ctx, id, { responseLost: outcome === "indeterminate" });
      await sentOrConflict(ctx, merchantId, id);
    } else if (row.status === "processing" && outcome === "indeterminate") {
      await markIndeterminate(ctx, id);
    } else {
      throw conflict(
        row,
        outcome === "processing"
          ? `Withdraw is ${row.status}: only a pending withdraw can move to processing`
          : `Withdraw is ${row.status}: only a pending or processing withdraw can have an indeterminate result`,
      );
    }
    return withdrawView(await current(ctx, merchantId, id));
  }
  // Reports that would change nothing and mean nothing for the money are refused before the
  // bank is involved; the ones that may mean money moved go through the bank and the callback
  // path, which records them for the operator.
  const repeats = outcome === "paid" ? row.status === "paid" : ENDED_UNPAID_STATUSES.includes(row.status);
  if (repeats) throw conflict(row, `Withdraw is already ${row.status}`);
  if (row.status === "pending") {
    await dispatchWithdraw(ctx, id);
    row = await sentOrConflict(ctx, merchantId, id);
  }
  await bank.decidePayout(id, outcome, row.amount_satang);
  const result = await receiveProviderCallback(
    ctx,
    bank,
    await bank.signCallback(`payout.${outcome}`, { payoutKey: id }),
  );
  if (result.result === "refused") {
    throw new AppError("STATE_CONFLICT", result.message ?? "The withdraw cannot make this transition", {
      status: result.withdraw?.status ?? null,
      // A fresh callback (its id is new) that was refused always says why.
      reason: result.reason ?? "refused",
    });
  }
  if (!result.withdraw) throw new Error("an applied payout report without its withdraw");
  return withdrawView(result.withdraw);
}
