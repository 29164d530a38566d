/**
 * Undecided payouts (CONTRACT 15, docs/lifecycle.md): a withdraw (or a
 * refund) whose transfer the bank's answers leave undecided is never failed, nor its hold released, until the
 * bank's inquiry shows nothing was executed. What the connector can decide it decides by itself
 * (lifecycle/payouts.ts asks it); what it cannot stays `processing`, and past
 * PAYOUT_UNDECIDED_ALERT_S it is:
 *
 * - listed for the operator with the bank's last answers (`listUndecided`),
 * - counted by the metric `satang_payouts_undecided` (`undecidedCount`),
 * - logged at error once (`alertUndecided`, the `payout-undecided-alert` job),
 *
 * and the operator decides it (`resolveWithdraw`, `resolveRefund`): the same transition, event and ledger posting
 * as the provider's own answer (bookPayoutReport), with who decided, why and the bank's
 * evidence kept in `payout_resolutions`.
 */
import { type Trx, withTransaction } from "../db/handles.ts";
import { unwatched } from "../db/transaction-scope.ts";
import { businessNow } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { JOB_BATCH_SIZE, PAYOUT_UNDECIDED_ALERT_S_DEFAULT } from "../lib/limits.ts";
import { formatAmount } from "../lib/money.ts";
import { pageOffset } from "../lib/page-offset.ts";
import {
  type PayoutSubject,
  type PayoutSubjectKind,
  payoutKeyOf,
  refundSubject,
  subjectOfRow,
  withdrawSubject,
} from "../lib/payout-subjects.ts";
import type { PayoutEvidence } from "../providers/provider.ts";
import type { RefundRecord } from "../refunds/schemas.ts";
import { lockRefund, withholdRefundable } from "../refunds/store.ts";
import { refundView } from "../refunds/view.ts";
import type { WithdrawRecord } from "../withdraws/schemas.ts";
import { lockWithdraw } from "../withdraws/store.ts";
import { withdrawView } from "../withdraws/view.ts";
import { bankReferenceHolder, bankReferenceInUse, lockBankReference } from "./bank-references.ts";
import { type BookedPayout, bookPayoutReport } from "./callbacks.ts";
import { type LifecycleContext, providerHolding } from "./context.ts";
import { watchResolvedPayout } from "./payouts.ts";
import { lockPayout, updatePayout } from "./store.ts";
import {
  countUndecided,
  insertResolution,
  listUndecidedRows,
  markUnalerted,
  payoutProviderOf,
  type UndecidedRow,
} from "./undecided-store.ts";

export function undecidedAlertMs(ctx: Pick<LifecycleContext, "config">): number {
  return ctx.config.payoutUndecidedAlertMs ?? PAYOUT_UNDECIDED_ALERT_S_DEFAULT * 1000;
}

export interface UndecidedRecord {
  /** What the payout pays: a withdraw, or a refund back to a customer. */
  subjectType: PayoutSubjectKind;
  /** The withdraw's id; null for a refund. */
  withdrawId: string | null;
  /** The refund's id; null for a withdraw. */
  refundId: string | null;
  merchantId: string;
  referenceId: string;
  amount: string;
  provider: string;
  payoutState: string;
  sendAttempts: number;
  checks: number;
  providerReference: string | null;
  lastError: string | null;
  handedOverAt: string;
  undecidedSeconds: number;
  nextCheckAt: string;
  alertedAt: string | null;
  bank: {
    transfer: Record<string, unknown> | null;
    lastAnswers: {
      at: string;
      operation: string;
      httpStatus: number | null;
      answer: unknown;
      error: string | null;
    }[];
  } | null;
}

function evidenceView(evidence: PayoutEvidence | null): UndecidedRecord["bank"] {
  if (!evidence) return null;
  return {
    transfer: evidence.transfer
      ? Object.fromEntries(
          Object.entries(evidence.transfer).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
        )
      : null,
    lastAnswers: evidence.lastAnswers.map((a) => ({ ...a, at: a.at.toISOString() })),
  };
}

async function evidenceOf(
  ctx: LifecycleContext,
  subject: PayoutSubject,
  provider: string,
): Promise<PayoutEvidence | null> {
  const connector = providerHolding(ctx, provider);
  if (!connector?.payoutEvidence) return null;
  // What the connector records of the bank's answer is not the operator's resolution: the
  // resolution's own transaction below is the one its audit entry commits with.
  return unwatched(() => connector.payoutEvidence?.(payoutKeyOf(subject)) ?? null);
}

async function recordOf(ctx: LifecycleContext, row: UndecidedRow, now: Date): Promise<UndecidedRecord> {
  const subject = subjectOfRow(row);
  return {
    subjectType: subject.kind,
    withdrawId: row.withdraw_id,
    refundId: row.refund_id,
    merchantId: row.merchant_id,
    referenceId: row.reference_id,
    amount: formatAmount(row.amount_satang),
    provider: row.provider,
    payoutState: row.state,
    sendAttempts: row.send_attempts,
    checks: row.checks,
    providerReference: row.provider_reference,
    lastError: row.last_error,
    handedOverAt: row.created_at.toISOString(),
    // Since the hand-over in the merchant's business time, the time the list is decided by (a
    // sandbox merchant's test clock moves both; in live the two are one): a listed payout always
    // shows at least PAYOUT_UNDECIDED_ALERT_S.
    undecidedSeconds: Math.max(
      0,
      Math.floor((now.getTime() + Number(row.clock_offset_ms) - row.created_at.getTime()) / 1000),
    ),
    nextCheckAt: row.next_check_at.toISOString(),
    alertedAt: row.undecided_alerted_at?.toISOString() ?? null,
    bank: evidenceView(await evidenceOf(ctx, subject, row.provider)),
  };
}

/** The operator's list: undecided past the bound, the longest undecided first. */
export async function listUndecided(
  ctx: LifecycleContext,
  query: { page: number; limit: number },
): Promise<{ records: UndecidedRecord[]; total: number }> {
  const now = ctx.clock.now();
  const { rows, total } = await listUndecidedRows(ctx.db, {
    now,
    alertMs: undecidedAlertMs(ctx),
    offset: pageOffset(query.page, query.limit),
    limit: query.limit,
  });
  const records: UndecidedRecord[] = [];
  for (const row of rows) records.push(await recordOf(ctx, row, now));
  return { records, total };
}

/** How many payouts are undecided past the bound now: the gauge `satang_payouts_undecided`. */
export function undecidedCount(ctx: Pick<LifecycleContext, "db" | "clock" | "config">): Promise<number> {
  return countUndecided(ctx.db, ctx.clock.now(), undecidedAlertMs(ctx));
}

export interface AlertLogger {
  error(details: object, message: string): void;
}

/**
 * One run of the alert: every payout newly undecided past the bound is logged at error, once
 * (the mark is kept on its payout attempt). Returns how many were alerted.
 */
export async function alertUndecided(ctx: LifecycleContext, log: AlertLogger | undefined): Promise<number> {
  const alerted = await markUnalerted(ctx.db, {
    now: ctx.clock.now(),
    alertMs: undecidedAlertMs(ctx),
    limit: JOB_BATCH_SIZE,
  });
  for (const row of alerted) {
    log?.error(
      {
        ...(row.refund_id === null ? { withdrawId: row.withdraw_id } : { refundId: row.refund_id }),
        provider: row.provider,
        handedOverAt: row.created_at.toISOString(),
        lastError: row.last_error,
        alert: "payout_undecided",
      },
      "payout undecided past PAYOUT_UNDECIDED_ALERT_S: the operator must resolve it (GET /admin/v1/payouts/undecided)",
    );
  }
  return alerted.length;
}

export interface ResolveInput {
  outcome: "paid" | "failed";
  reason: string;
  bankReference?: string | undefined;
}

export interface ResolutionRecord {
  withdrawId: string;
  outcome: "paid" | "failed";
  reason: string;
  bankReference: string | null;
  actor: string;
  provider: string;
  resolvedAt: string;
}

/** The operator's decision on a refund's payout: the same record, naming the refund. */
export type RefundResolutionRecord = Omit<ResolutionRecord, "withdrawId"> & { refundId: string };

const notFound = () => new AppError("RESOURCE_NOT_FOUND", "Withdraw not found");
const refundNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Refund not found");

/** What the operator's decision needs of its subject, locked: its status and its merchant. */
type LockSubject = (trx: Trx) => Promise<{ status: string; merchant_id: string } | undefined>;

/** Why a processing withdraw or refund without a connector's attempt is not the operator's to resolve. */
function notHeldByConnector(ctx: LifecycleContext, name: string): string {
  if (ctx.config.payouts === "manual" || ctx.config.env === "live")
    return `${name} is not held by a payout connector: the payout desk records its outcome`;
  return `${name} is not held by a payout connector: the payout desk records its outcome when it is in a batch, and otherwise the sandbox's simulate route reports what the simulated bank did`;
}

/**
 * The operator decides an undecided payout of `subject`: in one transaction the attempt and the
 * subject are locked (the order the lifecycle takes them), the decision is recorded and booked
 * exactly as the provider's own answer would be.
 */
async function resolvePayout(
  ctx: LifecycleContext,
  subject: PayoutSubject,
  lockSubject: LockSubject,
  given: ResolveInput,
  who: { actor: string; requestId: string | null },
): Promise<{
  booked: Extract<BookedPayout, { kind: "applied" }>;
  resolution: Omit<ResolutionRecord, "withdrawId">;
}> {
  // The bank's reference as the desk keeps one: spaces around it are not part of it.
  const input = { ...given, bankReference: given.bankReference?.trim() || undefined };
  const name = subject.kind === "withdraw" ? "Withdraw" : "Refund";
  const before = await payoutProviderOf(ctx.db, subject);
  const evidence = before ? await evidenceOf(ctx, subject, before) : null;
  return withTransaction(ctx.db, async (trx) => {
    const payout = await lockPayout(trx, subject);
    const row = await lockSubject(trx);
    if (!row) throw subject.kind === "withdraw" ? notFound() : refundNotFound();
    if (row.status !== "processing" || !payout || payout.row.state === "completed") {
      throw new AppError(
        "STATE_CONFLICT",
        row.status !== "processing"
          ? `${name} is ${row.status}: only a processing ${subject.kind} can be resolved`
          : notHeldByConnector(ctx, name),
        { status: row.status, reason: "not_undecided" },
      );
    }
    if (input.outcome === "failed") await refuseWhileMoneyInFlight(ctx, trx, subject, payout, name);
    if (input.outcome === "paid") await refuseHeldBankReference(trx, input.bankReference);
    // The merchant's business time (CONTRACT 10), as every other move of the payout and its record.
    const at = businessNow(ctx.clock, payout.offsetMs);
    await insertResolution(trx, {
      subject,
      merchantId: row.merchant_id,
      provider: payout.row.provider,
      outcome: input.outcome,
      reason: input.reason,
      bankReference: input.bankReference ?? null,
      actor: who.actor,
      evidence: evidenceView(evidence),
      requestId: who.requestId,
      at,
    });
    await updatePayout(trx, subject, {
      lastError: `resolved ${input.outcome} by ${who.actor}: ${input.reason}`.slice(0, 500),
      ...(input.bankReference ? { providerReference: input.bankReference } : {}),
      at,
    });
    const booked = await bookPayoutReport(trx, ctx, subject, input.outcome, input.reason);
    if (booked.kind !== "applied") {
      throw new AppError("STATE_CONFLICT", booked.refusal.message, {
        status: row.status,
        reason: booked.refusal.reason,
      });
    }
    if (input.outcome === "failed" && providerHolding(ctx, payout.row.provider))
      await stillAskTheBank(trx, subject, booked, at);
    return {
      booked,
      resolution: {
        outcome: input.outcome,
        reason: input.reason,
        bankReference: input.bankReference ?? null,
        actor: who.actor,
        provider: payout.row.provider,
        resolvedAt: at.toISOString(),
      },
    };
  });
}

/** One bank reference pays one withdraw or refund, as on the payout desk (bank-references.ts). */
async function refuseHeldBankReference(trx: Trx, bankReference: string | undefined): Promise<void> {
  if (bankReference === undefined) return;
  await lockBankReference(trx, bankReference);
  const holder = await bankReferenceHolder(trx, bankReference);
  if (holder) throw bankReferenceInUse(bankReference, holder);
}

/**
 * The operator's `failed` is a decision, not the bank's answer: the bank is still asked, and a
 * transfer it executed after all is booked as a late success (lifecycle/payouts.ts). Until it
 * answers, a refund's amount stays on its payment's refunded sum: no second refund may take it.
 */
async function stillAskTheBank(
  trx: Trx,
  subject: PayoutSubject,
  booked: Extract<BookedPayout, { kind: "applied" }>,
  at: Date,
): Promise<void> {
  await watchResolvedPayout(trx, subject, at);
  if (booked.refund) await withholdRefundable(trx, booked.refund);
}

/**
 * A `failed` resolution is refused (409 STATE_CONFLICT, `reason: "bank_shows_paid"`) while the
 * bank's last answer shows the transfer completed (`bankShowsPaid`: for another amount, say,
 * which the connector could not book), and (`reason: "payout_in_flight"`) while the
 * connector holding the payout is not configured on this server (nobody can ask the bank),
 * while the lifecycle's send of it has no answer yet (`sending`: handed to the connector and not
 * answered, whichever connector it is, the sandbox's bank included), or while the
 * connector has a step that may move money on its way (`moneyInFlight`): a
 * create or confirm claimed just before the operator's decision would otherwise reach the bank
 * after the hold was released. The payout attempt is locked already, so no later step can be
 * claimed (providers/payout-fence.ts).
 */
async function refuseWhileMoneyInFlight(
  ctx: LifecycleContext,
  trx: Trx,
  subject: PayoutSubject,
  payout: { row: { provider: string; state: string; next_check_at: Date } },
  name: string,
): Promise<void> {
  const provider = payout.row.provider;
  // Whatever the time: the lease is counted on the merchant's test clock in sandbox, which an
  // advance moves past while the send is still on its way. The reconciler asks the bank once
  // the lease has passed and records its answer, and the attempt is then no longer `sending`.
  if (payout.row.state === "sending") {
    throw new AppError(
      "STATE_CONFLICT",
      `${name} cannot be resolved failed yet: its payout was handed to ${provider} and may still reach the bank; its answer, or the reconciler's question to the bank from ${payout.row.next_check_at.toISOString()}, decides first`,
      { status: "processing", reason: "payout_in_flight" },
    );
  }
  const connector = providerHolding(ctx, provider);
  if (!connector) {
    // Nobody can ask the bank that holds it whether it paid: a release now could follow a
    // transfer it executed. `paid` stays open to the operator who has the bank's word.
    throw new AppError(
      "STATE_CONFLICT",
      `${name} cannot be resolved failed: the connector ${provider}, which holds its payout, is not configured on this server, so nobody can ask whether it paid. Configure ${provider} again (it is then asked, and its evidence shown), or resolve paid with the bank's reference if it paid`,
      { status: "processing", reason: "payout_in_flight" },
    );
  }
  const paid = (await connector.bankShowsPaid?.(trx, payoutKeyOf(subject))) ?? null;
  if (paid !== null) {
    throw new AppError(
      "STATE_CONFLICT",
      `${name} cannot be resolved failed: ${paid}. Resolve it paid with the bank's reference once the statement shows what left, or wait for the bank's next answer`,
      { status: "processing", reason: "bank_shows_paid" },
    );
  }
  if (!connector.moneyInFlight) return;
  const inFlight = await connector.moneyInFlight(trx, payoutKeyOf(subject));
  if (inFlight === null) return;
  throw new AppError("STATE_CONFLICT", `${name} cannot be resolved failed yet: ${inFlight}`, {
    status: "processing",
    reason: "payout_in_flight",
  });
}

/**
 * The operator decides an undecided withdraw payout: only a `processing` withdraw whose payout
 * attempt a connector holds open (else 409 STATE_CONFLICT). The connector's steps check the
 * attempt is still open before anything that could move money (each connector's store), so
 * none follows.
 */
export async function resolveWithdraw(
  ctx: LifecycleContext,
  withdrawId: string,
  input: ResolveInput,
  who: { actor: string; requestId: string | null },
): Promise<{ withdraw: WithdrawRecord; resolution: ResolutionRecord }> {
  if (!isUuid(withdrawId)) throw notFound();
  const id = withdrawId.toLowerCase();
  const lock: LockSubject = async (trx) => (await lockWithdraw(trx, id))?.row;
  const { booked, resolution } = await resolvePayout(ctx, withdrawSubject(id), lock, input, who);
  if (!booked.withdraw) throw new Error("a booked withdraw payout without its withdraw");
  return { withdraw: withdrawView(booked.withdraw), resolution: { withdrawId: id, ...resolution } };
}

/**
 * The operator decides an undecided refund payout, exactly as a withdraw's: only a `processing`
 * refund whose payout a connector holds open. Failed keeps the operator's reason as the refund's
 * `failureReason` and releases its hold; paid consumes it.
 */
export async function resolveRefund(
  ctx: LifecycleContext,
  refundId: string,
  input: ResolveInput,
  who: { actor: string; requestId: string | null },
): Promise<{ refund: RefundRecord; resolution: RefundResolutionRecord }> {
  if (!isUuid(refundId)) throw refundNotFound();
  const id = refundId.toLowerCase();
  const lock: LockSubject = (trx) => lockRefund(trx, id);
  const { booked, resolution } = await resolvePayout(ctx, refundSubject(id), lock, input, who);
  if (!booked.refund) throw new Error("a booked refund payout without its refund");
  return { refund: refundView(booked.refund), resolution: { refundId: id, ...resolution } };
}
