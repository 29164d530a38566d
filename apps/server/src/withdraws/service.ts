/**
 * Withdraw rules: create (serialized admission), retrieve, list, cancel, and the operator's
 * approve and reject. Everything is scoped to the authenticated merchant, and every timestamp
 * is the merchant's business time (the injected clock plus its sandbox test-clock offset).
 *
 * Create checks, in the order of CONTRACT 7, inside one transaction that holds the merchant's
 * wallet lock (a row lock on its wallet_available ledger account, so it serializes requests
 * across every process on the database): the body schema (in the route); idempotent replay
 * (same key and body -> the original record, 200, nothing else checked or consumed; same key,
 * other body -> 422); duplicate referenceId (409); wallet status (403); the matching-payout
 * guard (409); the daily then the monthly limit (400 INVALID_INPUT); the available balance
 * (400 INSUFFICIENT_BALANCE); then the insert and the hold, in the same transaction.
 *
 * The admission itself is withdraws/admission.ts (one create in one transaction: its statements
 * and round trips) and withdraws/admission-group.ts (creates of different wallets that arrive
 * together, in one transaction). The creates of one wallet also take their turns in the
 * process, two at a time, before they take a pool connection (db/key-queue.ts).
 *
 * Because every admission of a merchant waits for the previous one to commit, each sees the
 * withdraws and the balance its predecessors left: N concurrent requests against capacity for
 * k admit exactly k. The unique indexes on (merchant, reference) and (merchant, idempotency
 * key) back the lock up: were it ever bypassed, a duplicate would still not be stored.
 */
import { type Trx, withTransaction } from "../db/handles.ts";
import { inTurn } from "../db/key-queue.ts";
import { unwatched } from "../db/transaction-scope.ts";
import type { Integration, Merchant, WithdrawRow } from "../db/types.ts";
import type { PendingReplay } from "../http/auth.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import { businessNow } from "../lib/clock.ts";
import { AppError, fieldError } from "../lib/errors.ts";
import { requestHashOf } from "../lib/idempotency.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { findMerchant } from "../merchants/store.ts";
import { type AdmissionRequest, type CreateResult, checkBody, type WithdrawContext } from "./admission.ts";
import { admitGrouped } from "./admission-group.ts";
import type { CreateWithdrawBody, ListWithdrawsQuery, WithdrawRecord, WithdrawSortField } from "./schemas.ts";
import {
  findWithdraw,
  findWithdrawById,
  findWithdrawByReference,
  inOpenPayoutBatch,
  listWithdrawRows,
} from "./store.ts";
import { expireVerificationIfDue, moveWithdraw } from "./transitions.ts";
import { withdrawView } from "./view.ts";

export const withdrawNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Withdraw not found");

export type { CreateOutcome, CreateResult, WithdrawContext } from "./admission.ts";
export { insufficientBalance, walletInactive } from "./admission.ts";

/**
 * Creates a withdraw and its hold. `replay`, the signed request's replay record (http/auth.ts),
 * is written first in the same transaction, before the wallet lock, so the lock is not held
 * for it and the record commits with the withdraw.
 */
export async function createWithdraw(
  ctx: WithdrawContext,
  merchant: Pick<Merchant, "id"> &
    Partial<
      Pick<Merchant, "clock_offset_ms" | "daily_withdraw_limit_satang" | "monthly_withdraw_limit_satang">
    >,
  integration: Pick<Integration, "id">,
  body: CreateWithdrawBody,
  replay?: PendingReplay,
): Promise<CreateResult> {
  const request: AdmissionRequest = {
    merchantId: merchant.id,
    assumed: {
      clockOffsetMs: merchant.clock_offset_ms ?? 0n,
      // Unknown limits are read as if there were some: the capacity costs one subquery.
      hasLimits:
        merchant.daily_withdraw_limit_satang !== null || merchant.monthly_withdraw_limit_satang !== null,
    },
    integration,
    body,
    checked: checkBody(body),
    requestHash: requestHashOf(body),
    idempotencyKey: body.idempotencyKey ?? newId(),
    replay,
  };
  // The creates of one wallet take their turns in this process before they take a connection
  // (db/key-queue.ts, two at a time); the wallet lock below orders them between processes.
  return inTurn(ctx.db, `wallet:${merchant.id}`, (turn) => admitGrouped(ctx, request, turn));
}

export async function getWithdraw(
  ctx: Pick<WithdrawContext, "db">,
  merchant: Pick<Merchant, "id">,
  id: string,
): Promise<WithdrawRecord> {
  // A malformed id cannot name a withdraw: the same 404 as a missing one.
  if (!isUuid(id)) throw withdrawNotFound();
  const row = await findWithdraw(ctx.db, merchant.id, id);
  if (!row) throw withdrawNotFound();
  return withdrawView(row);
}

export async function getWithdrawByReference(
  ctx: Pick<WithdrawContext, "db">,
  merchant: Pick<Merchant, "id">,
  referenceId: string,
): Promise<WithdrawRecord> {
  const row = await findWithdrawByReference(ctx.db, merchant.id, referenceId);
  if (!row) throw withdrawNotFound();
  return withdrawView(row);
}

/**
 * Why a withdraw cannot be canceled, as interface.md answers "a cancel of a non-cancellable
 * withdraw": 400 VALIDATION_ERROR on `status`, in sandbox and live alike. A processing one is
 * with the bank, and no connector recalls a payout once sent (the sandbox bank and every live
 * connector's transfer); an ended one (paid, failed, canceled, expired) has nothing to cancel.
 */
export function notCancelable(row: Pick<WithdrawRow, "status">): AppError {
  const message =
    row.status === "processing"
      ? "Withdraw cannot be canceled while processing: the payout is with the bank, which cannot recall it"
      : `Withdraw cannot be canceled: its status is ${row.status}`;
  return fieldError("VALIDATION_ERROR", "status", message);
}

/** In the operator's open payout batch: the money may be leaving by hand right now. */
export function inPayoutBatch(): AppError {
  return fieldError(
    "VALIDATION_ERROR",
    "status",
    "Withdraw cannot be canceled: it is in the operator's open payout batch and may be being paid now",
  );
}

/** A withdraw's state change, or the refusal it answers once what its transaction did commits. */
type Decided = { row: WithdrawRow } | { refused: AppError };

/**
 * Cancel by the merchant: pending and awaiting_verification withdraws become canceled and
 * their hold is released (transitions.ts `cancel`). A processing withdraw is refused (400
 * VALIDATION_ERROR on `status`): no bank recalls a payout in flight, and canceling it here would
 * release money the bank may still pay out. The move is one conditional UPDATE, so of two racing cancels
 * (or a cancel racing the payout worker) exactly one changes the row and releases the hold.
 * A withdraw in an open batch of the manual payout desk is refused the same way, with its own message.
 */
export async function cancelWithdraw(
  ctx: WithdrawContext,
  merchant: Pick<Merchant, "id" | "clock_offset_ms">,
  id: string,
): Promise<WithdrawRecord> {
  if (!isUuid(id)) throw withdrawNotFound();
  const outcome = await withTransaction(ctx.db, async (trx): Promise<Decided> => {
    // A withdraw past its approval deadline is expired even before the job runs; the expiry
    // commits (hold released, event written) although the cancel is then refused.
    await expireVerificationIfDue(trx, ctx, id, merchant.id);
    const at = businessNow(ctx.clock, merchant.clock_offset_ms);
    const canceled = await moveWithdraw(trx, "cancel", { id, merchantId: merchant.id }, at);
    if (canceled) return { row: canceled };
    const current = await findWithdraw(trx, merchant.id, id);
    if (!current) throw withdrawNotFound();
    if (current.status === "processing" && (await inOpenPayoutBatch(trx, id)))
      return { refused: inPayoutBatch() };
    return { refused: notCancelable(current) };
  });
  if ("refused" in outcome) throw outcome.refused;
  return withdrawView(outcome.row);
}

export async function listWithdraws(
  ctx: Pick<WithdrawContext, "db">,
  merchant: Pick<Merchant, "id">,
  query: ListWithdrawsQuery,
): Promise<Page<WithdrawRecord>> {
  const params = parseListQuery<WithdrawSortField>(query, "createdAt");
  const { rows, total } = await listWithdrawRows(
    ctx.db,
    merchant.id,
    { status: query.status, destinationType: query.destinationType },
    params,
  );
  return listPage(rows.map(withdrawView), total, params);
}

// Operator decisions on withdraws awaiting verification (CONTRACT 2).

export function notAwaitingVerification(row: Pick<WithdrawRow, "status">): AppError {
  return new AppError(
    "STATE_CONFLICT",
    `Withdraw is not awaiting verification: its status is ${row.status}`,
    { status: row.status },
  );
}

async function operatorDecision(
  ctx: WithdrawContext,
  id: string,
  decide: (trx: Trx, at: Date) => Promise<WithdrawRow | undefined>,
): Promise<WithdrawRecord> {
  if (!isUuid(id)) throw withdrawNotFound();
  let refusedAsExpired = false;
  try {
    const row = await withTransaction(ctx.db, async (trx) => {
      refusedAsExpired = false;
      const current = await findWithdrawById(trx, id);
      if (!current) throw withdrawNotFound();
      const merchant = await findMerchant(trx, current.merchant_id);
      if (!merchant) throw withdrawNotFound();
      // An approval (or rejection) after the 24 hours sees the withdraw expired, as the job would.
      await expireVerificationIfDue(trx, ctx, id);
      const changed = await decide(trx, businessNow(ctx.clock, merchant.clock_offset_ms));
      if (changed) return changed;
      // The conditional update found another status: re-read it for the message, since it may
      // have moved since the first read.
      const found = (await findWithdrawById(trx, id)) ?? current;
      refusedAsExpired = found.status === "expired";
      throw notAwaitingVerification(found);
    });
    return withdrawView(row);
  } catch (error) {
    // Refused as expired, the expiry rolled back with the refusal: an audited route's committed
    // transaction records its action (audit/trail.ts), and this one's action was refused. The
    // expiry commits now, before the answer (hold released, event written), as with the
    // merchant's cancel, in a transaction of its own and unwatched: it is the expiry job's work,
    // not the operator's. (Expired before, it finds nothing to do.)
    if (refusedAsExpired) {
      await unwatched(() => withTransaction(ctx.db, (trx) => expireVerificationIfDue(trx, ctx, id)));
    }
    throw error;
  }
}

/** awaiting_verification -> pending; the hold placed at create stays. */
export function approveWithdraw(ctx: WithdrawContext, id: string): Promise<WithdrawRecord> {
  return operatorDecision(ctx, id, (trx, at) => moveWithdraw(trx, "approve", { id }, at));
}

/** awaiting_verification -> canceled, with the hold released. */
export function rejectWithdraw(ctx: WithdrawContext, id: string): Promise<WithdrawRecord> {
  return operatorDecision(ctx, id, (trx, at) => moveWithdraw(trx, "reject", { id }, at));
}
