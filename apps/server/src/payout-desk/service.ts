/**
 * The manual payout desk (docs/payout-desk.md), for deployments whose bank offers no transfer
 * API (`SATANG_PAYOUTS=manual`): the operator takes pending withdraws and refunds into a batch,
 * pays them from the bank's own channel with the batch's CSV, and records each outcome here.
 *
 * A refund is a line of a batch like a withdraw (migration 0096), paid to the refund's
 * destination, and moves through the refund's own transitions (refunds/transitions.ts and
 * reports.ts): taken into a batch is `dispatch` (refund.processing), paid is `succeed`
 * (refund.succeeded), failed is `fail` with the operator's reason (refund.failed, the hold
 * released).
 *
 * Every status change goes through the withdraw's own transitions (withdraws/transitions.ts and
 * withdraws/reports.ts), so the events, the ledger postings and the webhooks are those of the
 * provider path: taking a withdraw into a batch is `dispatch` (pending -> processing,
 * withdraw.processing); paid is the provider's paid report (hold consumed, withdraw.paid);
 * failed is its failed report (hold released, withdraw.failed).
 *
 * Locks, in the withdraw module's order: the withdraw (or refund) row, then the batch row, then
 * the item.
 * The batch lock makes one batch's outcomes go one at a time, so whichever is the last sees
 * every other and closes the batch.
 */

import type { OperatorActor } from "../admin/actor.ts";
import type { Config } from "../config.ts";
import { type Db, type Trx, withTransaction } from "../db/handles.ts";
import { unwatched } from "../db/transaction-scope.ts";
import type { PayoutBatchItemRow, PayoutOutcome } from "../db/types.ts";
import { type Page, page } from "../http/envelope.ts";
import { atOffset, type Clock } from "../lib/clock.ts";
import { AppError, fieldError, notFound } from "../lib/errors.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { PAGE_SIZE_DEFAULT, PAYOUT_BATCH_ITEMS_MAX } from "../lib/limits.ts";
import { type PayoutSubject, refundSubject, withdrawSubject } from "../lib/payout-subjects.ts";
import { recordAnomaly } from "../lifecycle/anomalies.ts";
import { bankReferenceHolder, bankReferenceInUse, lockBankReference } from "../lifecycle/bank-references.ts";
import { findMerchant } from "../merchants/store.ts";
import { applyRefundPayoutReport } from "../refunds/reports.ts";
import { lockRefund } from "../refunds/store.ts";
import { moveRefund } from "../refunds/transitions.ts";
import { applyPayoutReport } from "../withdraws/reports.ts";
import { lockWithdraw } from "../withdraws/store.ts";
import { moveLockedWithdraw } from "../withdraws/transitions.ts";
import { batchCsv } from "./csv.ts";
import type {
  BatchListQuery,
  BatchRecord,
  BatchSummaryRecord,
  CreateBatchBody,
  RecordOutcomeBody,
} from "./schemas.ts";
import {
  claimPendingForBatch,
  claimPendingRefundsForBatch,
  closeBatchIfDone,
  findBatch,
  insertBatch,
  insertBatchItems,
  isBankReferenceConflict,
  listBatches,
  listBatchItems,
  lockBatch,
  lockBatchItem,
  type NewBatchLine,
  setItemOutcome,
  touchBatch,
} from "./store.ts";
import { batchSummaryView, batchView } from "./view.ts";

export interface PayoutDeskContext {
  db: Db;
  clock: Clock;
  config: Pick<Config, "payouts">;
}

export const batchNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Payout batch not found");

export function deskOff(): AppError {
  return new AppError(
    "STATE_CONFLICT",
    "The payout desk is off: withdraws are paid through the provider. Set SATANG_PAYOUTS=manual to pay them from the desk.",
    { reason: "payout_desk_off" },
  );
}

type ClaimedWithdraw = Awaited<ReturnType<typeof claimPendingForBatch>>[number];
type ClaimedRefund = Awaited<ReturnType<typeof claimPendingRefundsForBatch>>[number];
type Claimed = { kind: "withdraw"; claim: ClaimedWithdraw } | { kind: "refund"; claim: ClaimedRefund };

/** The oldest `max` of the claimed withdraws and refunds, in the order they were created. */
function oldestFirst(withdraws: ClaimedWithdraw[], refunds: ClaimedRefund[], max: number): Claimed[] {
  const all: Claimed[] = [
    ...withdraws.map((claim) => ({ kind: "withdraw" as const, claim })),
    ...refunds.map((claim) => ({ kind: "refund" as const, claim })),
  ];
  all.sort(
    (a, b) =>
      a.claim.row.created_at.getTime() - b.claim.row.created_at.getTime() ||
      a.claim.row.id.localeCompare(b.claim.row.id),
  );
  return all.slice(0, max);
}

/**
 * Takes the claimed withdraws and refunds to processing, each at its merchant's business time
 * and through its own transitions (withdraw.processing, refund.processing).
 */
async function takeLines(trx: Trx, claimed: readonly Claimed[], now: Date): Promise<NewBatchLine[]> {
  const taken: NewBatchLine[] = [];
  for (const { kind, claim } of claimed) {
    const at = atOffset(now, claim.offsetMs);
    if (kind === "withdraw") {
      const row = await moveLockedWithdraw(trx, "dispatch", claim.row, at);
      taken.push({
        subject: withdrawSubject(row.id),
        merchantId: row.merchant_id,
        amountSatang: row.amount_satang,
      });
      continue;
    }
    const row = await moveRefund(trx, "dispatch", { id: claim.row.id }, at);
    // The claim holds the refund's lock: a pending refund cannot have moved meanwhile.
    if (!row) throw new Error(`refund ${claim.row.id} refused dispatch under its lock`);
    taken.push({
      subject: refundSubject(row.id),
      merchantId: row.merchant_id,
      amountSatang: row.amount_satang,
    });
  }
  return taken;
}

/** A batch of one merchant whose wallet is frozen or closed: its payouts wait, none is taken. */
export function walletNotPaid(status: "frozen" | "closed"): AppError {
  return new AppError(
    "STATE_CONFLICT",
    `The merchant's wallet is ${status}: its pending withdraws and refunds are not paid until it is active again`,
    { reason: "wallet_inactive", status },
  );
}

/**
 * Creates a batch of the oldest pending withdraws and refunds (of one merchant when asked), at
 * most `maxCount`, and moves each to processing. Refused with 409 when the desk is off or when
 * nothing is pending: an empty batch pays nothing and is never created. `createdBy` is a free
 * label for the record, and without one the name of the credential that created the batch
 * (`operator`: the operator token's name, as the audit log has it), which the batch keeps
 * beside the label as `createdByOperator` whatever the label says.
 */
export async function createBatch(
  ctx: PayoutDeskContext,
  input: CreateBatchBody,
  operator: string,
): Promise<BatchRecord> {
  if (ctx.config.payouts !== "manual") throw deskOff();
  const id = newId();
  // The answer is read in the action's transaction: once it commits, nothing is left to fail,
  // so an error answer (a 503 busy, say) always means no batch was taken.
  return withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const max = input.maxCount ?? PAYOUT_BATCH_ITEMS_MAX;
    const merchantId = input.merchantId?.toLowerCase();
    // A mistyped merchant is named as such, not answered as one with nothing to pay.
    const merchant = merchantId === undefined ? undefined : await findMerchant(trx, merchantId);
    if (merchantId !== undefined && !merchant) throw notFound("Merchant");
    const withdraws = await claimPendingForBatch(trx, { limit: max, merchantId });
    const refunds = await claimPendingRefundsForBatch(trx, { limit: max, merchantId });
    const claimed = oldestFirst(withdraws, refunds, max);
    if (claimed.length === 0) {
      // A frozen or closed wallet's pending payouts wait: say so, not that nothing is pending.
      if (merchant && merchant.wallet_status !== "active") throw walletNotPaid(merchant.wallet_status);
      const whose = input.merchantId === undefined ? "" : " of this merchant";
      throw new AppError(
        "STATE_CONFLICT",
        `No pending withdraws or refunds${whose} to take into a batch: an empty batch is not created`,
        { reason: "no_pending_withdraws" },
      );
    }
    const taken = await takeLines(trx, claimed, now);
    await insertBatch(trx, {
      id,
      createdBy: input.createdBy?.trim() || operator,
      createdByOperator: operator,
      itemCount: taken.length,
      totalSatang: taken.reduce((sum, line) => sum + line.amountSatang, 0n),
      at: now,
    });
    await insertBatchItems(trx, id, taken);
    // The batch is the record the action created (its audit entry names it by the answer's id).
    return getBatch({ db: trx }, id);
  });
}

export async function getBatch(ctx: Pick<PayoutDeskContext, "db">, id: string): Promise<BatchRecord> {
  if (!isUuid(id)) throw batchNotFound();
  const batchId = id.toLowerCase();
  const row = await findBatch(ctx.db, batchId);
  if (!row) throw batchNotFound();
  return batchView(row, await listBatchItems(ctx.db, batchId));
}

export async function listPayoutBatches(
  ctx: Pick<PayoutDeskContext, "db">,
  query: BatchListQuery,
): Promise<Page<BatchSummaryRecord>> {
  const pageNumber = query.page ?? 1;
  const limit = query.limit ?? PAGE_SIZE_DEFAULT;
  const { rows, total } = await listBatches(ctx.db, { status: query.status, page: pageNumber, limit });
  return page(rows.map(batchSummaryView), total, pageNumber, limit);
}

/** The batch's CSV (csv.ts) and the file name it is downloaded under. */
export async function batchCsvFile(
  ctx: Pick<PayoutDeskContext, "db">,
  id: string,
): Promise<{ fileName: string; body: string }> {
  if (!isUuid(id)) throw batchNotFound();
  const batchId = id.toLowerCase();
  const row = await findBatch(ctx.db, batchId);
  if (!row) throw batchNotFound();
  return { fileName: `payout-batch-${batchId}.csv`, body: batchCsv(await listBatchItems(ctx.db, batchId)) };
}

interface Outcome {
  outcome: PayoutOutcome;
  bankReference: string | null;
  failureReason: string | null;
}

/** The body as an outcome: paid needs the bank's reference, failed a reason, never both. */
function outcomeOf(body: RecordOutcomeBody): Outcome {
  const bankReference = body.bankReference?.trim() || null;
  const failureReason = body.reason?.trim() || null;
  if (body.outcome === "paid") {
    if (bankReference === null) {
      throw fieldError("VALIDATION_ERROR", "bankReference", "bankReference is required when outcome is paid");
    }
    if (failureReason !== null) {
      throw fieldError("VALIDATION_ERROR", "reason", "reason is only for outcome failed");
    }
    return { outcome: "paid", bankReference, failureReason: null };
  }
  if (failureReason === null) {
    throw fieldError("VALIDATION_ERROR", "reason", "reason is required when outcome is failed");
  }
  if (bankReference !== null) {
    throw fieldError("VALIDATION_ERROR", "bankReference", "bankReference is only for outcome paid");
  }
  return { outcome: "failed", bankReference: null, failureReason };
}

/** The outcome recorded again: a bank reference compared without case, as references are. */
function sameOutcome(item: PayoutBatchItemRow, outcome: Outcome): boolean {
  return (
    item.outcome === outcome.outcome &&
    item.bank_reference?.toLowerCase() === outcome.bankReference?.toLowerCase() &&
    item.failure_reason === outcome.failureReason
  );
}

/**
 * A line recorded failed that the bank paid after all (its statement shows the transfer): `paid`
 * with the bank's reference is booked as the late success (CONTRACT 8: debited again), as a
 * connector's late report is. Nothing else replaces a recorded outcome.
 */
function correctsToPaid(item: PayoutBatchItemRow, outcome: Outcome): boolean {
  return item.outcome === "failed" && outcome.outcome === "paid";
}

/** A line's outcome is recorded already, and the one asked for differs: it cannot be changed. */
export function outcomeAlreadyRecorded(
  recorded: Pick<PayoutBatchItemRow, "refund_id" | "bank_reference" | "failure_reason"> & {
    outcome: PayoutOutcome;
  },
): AppError {
  const detail =
    recorded.outcome === "paid" ? `bank reference ${recorded.bank_reference}` : recorded.failure_reason;
  return new AppError(
    "STATE_CONFLICT",
    `This ${recorded.refund_id === null ? "withdraw" : "refund"}'s outcome is already recorded as ${recorded.outcome} (${detail}); it cannot be changed`,
    { reason: "outcome_already_recorded", outcome: recorded.outcome },
  );
}

/** Books the outcome on the line's withdraw or refund, as the bank's own report of it would be. */
async function applyOutcome(
  trx: Trx,
  ctx: PayoutDeskContext,
  subject: PayoutSubject,
  outcome: Outcome,
): Promise<void> {
  const result =
    subject.kind === "withdraw"
      ? await applyPayoutReport(trx, ctx, subject.id, outcome.outcome)
      : await applyRefundPayoutReport(
          trx,
          ctx,
          subject.id,
          outcome.outcome,
          outcome.failureReason ?? undefined,
        );
  if (result.kind === "refused") {
    const record = "withdraw" in result ? result.withdraw : result.refund;
    const refused = new AppError("STATE_CONFLICT", result.refusal.message, {
      reason: result.refusal.reason,
      status: record?.status ?? null,
    });
    // A refusal the operator must look at (the bank paid a refund whose payment was refunded
    // again since) is recorded although this transaction rolls back: recordLineOutcome.
    if (result.refusal.anomaly) {
      throw new RefusedForTheOperator(refused, {
        provider: PAYOUT_DESK_SOURCE,
        subjectType: subject.kind,
        subjectId: subject.id,
        report: `payout.${outcome.outcome}`,
        callbackId: null,
        refusal: result.refusal,
      });
    }
    throw refused;
  }
  // Applied, and the operator must still look at it (a late success that overdrew the wallet).
  if (result.notice) {
    await recordAnomaly(trx, ctx, {
      provider: PAYOUT_DESK_SOURCE,
      subjectType: subject.kind,
      subjectId: subject.id,
      report: `payout.${outcome.outcome}`,
      callbackId: null,
      refusal: result.notice,
    });
  }
}

/** The anomalies' source for an outcome the payout desk recorded. */
const PAYOUT_DESK_SOURCE = "payout_desk";

/** A refused outcome that is recorded for the operator (GET /admin/v1/anomalies) all the same. */
class RefusedForTheOperator extends Error {
  constructor(
    readonly answer: AppError,
    readonly anomaly: Parameters<typeof recordAnomaly>[2],
  ) {
    super(answer.message);
  }
}

/** Locks the line's withdraw or refund first (the order of its module); undefined when missing. */
async function lockSubject(trx: Trx, subject: PayoutSubject): Promise<object | undefined> {
  return subject.kind === "withdraw" ? lockWithdraw(trx, subject.id) : lockRefund(trx, subject.id);
}

/** One outcome, in one transaction with the withdraw, the batch and the item locked in that order. */
async function recordInTransaction(
  trx: Trx,
  ctx: PayoutDeskContext,
  key: { batchId: string; subject: PayoutSubject },
  outcome: Outcome,
  actor: OperatorActor,
): Promise<void> {
  const locked = await lockSubject(trx, key.subject);
  const batch = await lockBatch(trx, key.batchId);
  if (!batch) throw batchNotFound();
  const item = locked ? await lockBatchItem(trx, key.batchId, key.subject) : undefined;
  if (!item) throw notInBatch(key.subject);
  if (item.outcome !== null) {
    if (sameOutcome(item, outcome)) return;
    if (!correctsToPaid(item, outcome)) throw outcomeAlreadyRecorded({ ...item, outcome: item.outcome });
  }
  if (outcome.bankReference !== null) {
    // The reference's lock orders this recording with every other of it, a resolution's too
    // (lifecycle/bank-references.ts); the desk's unique index stays as the last word.
    await lockBankReference(trx, outcome.bankReference);
    const holder = await bankReferenceHolder(trx, outcome.bankReference);
    if (holder) throw bankReferenceInUse(outcome.bankReference, holder);
  }
  await applyOutcome(trx, ctx, key.subject, outcome);
  const now = ctx.clock.now();
  await setItemOutcome(trx, key, {
    ...outcome,
    replacing: item.outcome,
    at: now,
    recordedBy: actor.name,
    recordedVia: actor.via,
  });
  await touchBatch(trx, key.batchId, now);
  await closeBatchIfDone(trx, key.batchId, now);
}

/**
 * Records what the bank did with one withdraw of a batch. The same outcome again (same
 * reference or reason) changes nothing and answers the batch as it is; a different one is
 * refused with 409, but for `paid` on a line recorded failed (the bank paid it after all: the
 * late success), and so is a bank reference already recorded for another withdraw. The last
 * outcome of a batch closes it. `actor` is kept with the outcome: who recorded it, and through
 * which tool.
 */
export async function recordOutcome(
  ctx: PayoutDeskContext,
  batchId: string,
  withdrawId: string,
  body: RecordOutcomeBody,
  actor: OperatorActor,
): Promise<BatchRecord> {
  if (!isUuid(batchId)) throw batchNotFound();
  if (!isUuid(withdrawId)) throw notInBatch(withdrawSubject(withdrawId));
  return recordLineOutcome(ctx, batchId, withdrawSubject(withdrawId.toLowerCase()), body, actor);
}

/** The same for a refund line of a batch: its outcome is booked with the refund's transitions. */
export async function recordRefundOutcome(
  ctx: PayoutDeskContext,
  batchId: string,
  refundId: string,
  body: RecordOutcomeBody,
  actor: OperatorActor,
): Promise<BatchRecord> {
  if (!isUuid(batchId)) throw batchNotFound();
  if (!isUuid(refundId)) throw notInBatch(refundSubject(refundId));
  return recordLineOutcome(ctx, batchId, refundSubject(refundId.toLowerCase()), body, actor);
}

export const notInBatch = (subject: Pick<PayoutSubject, "kind">) =>
  new AppError("RESOURCE_NOT_FOUND", `This ${subject.kind} is not in this payout batch`);

async function recordLineOutcome(
  ctx: PayoutDeskContext,
  batchId: string,
  subject: PayoutSubject,
  body: RecordOutcomeBody,
  actor: OperatorActor,
): Promise<BatchRecord> {
  if (!isUuid(batchId)) throw batchNotFound();
  const outcome = outcomeOf(body);
  const key = { batchId: batchId.toLowerCase(), subject };
  try {
    // The answer is read in the action's transaction (as createBatch's is): an error answer
    // always means nothing was recorded.
    return await withTransaction(ctx.db, async (trx) => {
      await recordInTransaction(trx, ctx, key, outcome, actor);
      return getBatch({ db: trx }, key.batchId);
    });
  } catch (error) {
    if (error instanceof RefusedForTheOperator) {
      // Its own transaction, and not the operator's action: a refused request audits nothing.
      await unwatched(() => withTransaction(ctx.db, (trx) => recordAnomaly(trx, ctx, error.anomaly)));
      throw error.answer;
    }
    // Another batch's recording of the same reference committed while this one ran: the index
    // refused this write and everything of this transaction was rolled back.
    if (outcome.bankReference === null || !isBankReferenceConflict(error)) throw error;
    throw bankReferenceInUse(outcome.bankReference, await bankReferenceHolder(ctx.db, outcome.bankReference));
  }
}
