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
 * Because every admission of a merchant waits for the previous one to commit, each sees the
 * withdraws and the balance its predecessors left: N concurrent requests against capacity for
 * k admit exactly k. The unique indexes on (merchant, reference) and (merchant, idempotency
 * key) back the lock up: were it ever bypassed, a duplicate would still not be stored.
 */
import type { Transaction } from "kysely";
import type { Database, Merchant, WithdrawRow, WithdrawStatus } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import type { AuthContext } from "../http/auth.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import { lockWallet } from "../ledger/accounts.ts";
import { postWithdrawHold, postWithdrawRelease } from "../ledger/postings.ts";
import { normalizeAccountNumber } from "../lib/account-number.ts";
import { businessNow } from "../lib/clock.ts";
import { canonicalJsonHash } from "../lib/crypto.ts";
import { AppError, fieldError } from "../lib/errors.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { formatAmount, parseAmount } from "../lib/money.ts";
import { emitWithdrawEvent, expireVerificationIfDue } from "../lifecycle/payout-transitions.ts";
import { findMerchant } from "../merchants/store.ts";
import { checkPayoutGuard } from "./guard.ts";
import { checkWithdrawLimits } from "./limits.ts";
import type { CreateWithdrawBody, ListWithdrawsQuery, WithdrawRecord, WithdrawSortField } from "./schemas.ts";
import {
  findWithdraw,
  findWithdrawById,
  findWithdrawByIdempotencyKey,
  findWithdrawByReference,
  insertWithdrawIfAbsent,
  listWithdrawRows,
  transitionWithdraw,
  upsertDestination,
} from "./store.ts";
import { withdrawView } from "./view.ts";

/** How long a withdraw awaits the operator's approval before it expires (CONTRACT 7). */
export const WITHDRAW_VERIFICATION_TTL_MS = 24 * 60 * 60_000;

/** Statuses a merchant can cancel from. Processing is not among them: see cancelWithdraw. */
const MERCHANT_CANCELABLE: readonly WithdrawStatus[] = ["awaiting_verification", "pending"];

const withdrawNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Withdraw not found");

/** How a create request was answered: a new record (201) or an idempotent replay (200). */
export type CreateOutcome = "created" | "replayed";

export interface CreateResult {
  outcome: CreateOutcome;
  withdraw: WithdrawRecord;
}

function replayOf(existing: WithdrawRow, requestHash: string): WithdrawRow {
  if (existing.request_hash !== requestHash) {
    throw new AppError(
      "IDEMPOTENCY_KEY_MISMATCH",
      "idempotencyKey was already used with a different request body",
      { field: "idempotencyKey" },
    );
  }
  return existing;
}

function duplicateReference(referenceId: string): AppError {
  return fieldError(
    "DUPLICATE_REFERENCE_ID",
    "referenceId",
    `A withdraw with referenceId "${referenceId}" already exists`,
  );
}

/** Rules on the body that its schema cannot express; the schema has run already. */
function checkBody(body: CreateWithdrawBody) {
  const amountSatang = parseAmount(body.amount);
  if (amountSatang === null) throw fieldError("INVALID_AMOUNT", "amount", "amount is not a valid amount");
  const accountNumber = normalizeAccountNumber(body.customerBankAccountNumber);
  if (accountNumber === null) {
    throw fieldError(
      "VALIDATION_ERROR",
      "customerBankAccountNumber",
      "customerBankAccountNumber must have 10 to 15 digits",
    );
  }
  return { amountSatang, accountNumber, accountName: body.customerBankAccountName.trim() };
}

function checkWalletStatus(merchant: Merchant): void {
  if (merchant.wallet_status !== "active") {
    throw new AppError("WALLET_INACTIVE", `The merchant's wallet is ${merchant.wallet_status}`, {
      walletStatus: merchant.wallet_status,
    });
  }
}

function checkBalance(availableSatang: bigint, amountSatang: bigint): void {
  if (availableSatang < amountSatang) {
    throw new AppError(
      "INSUFFICIENT_BALANCE",
      `Insufficient wallet balance: ${formatAmount(availableSatang)} available, ${formatAmount(amountSatang)} requested`,
      { available: formatAmount(availableSatang), amount: formatAmount(amountSatang) },
    );
  }
}

export async function createWithdraw(
  deps: Deps,
  auth: AuthContext,
  body: CreateWithdrawBody,
): Promise<CreateResult> {
  const merchantId = auth.merchant.id;
  const { amountSatang, accountNumber, accountName } = checkBody(body);
  const requestHash = canonicalJsonHash(body);
  const idempotencyKey = body.idempotencyKey ?? newId();

  return deps.db.transaction().execute(async (trx): Promise<CreateResult> => {
    // Only `trx` is used in here: on the embedded store a second connection would wait for
    // the one this transaction holds.
    const wallet = await lockWallet(trx, merchantId);
    // Read after the lock, so the wallet status, limits and threshold are the current ones.
    const merchant = await findMerchant(trx, merchantId);
    if (!merchant) throw new AppError("AUTHENTICATION_ERROR", "Merchant context is not available");
    const now = businessNow(deps.clock, merchant.clock_offset_ms);

    if (body.idempotencyKey !== undefined) {
      const existing = await findWithdrawByIdempotencyKey(trx, merchantId, body.idempotencyKey);
      if (existing) return { outcome: "replayed", withdraw: withdrawView(replayOf(existing, requestHash)) };
    }
    if (await findWithdrawByReference(trx, merchantId, body.referenceId)) {
      throw duplicateReference(body.referenceId);
    }
    checkWalletStatus(merchant);
    await checkPayoutGuard(trx, { merchantId, amountSatang, accountName, now });
    await checkWithdrawLimits(trx, merchant, amountSatang, now);
    checkBalance(wallet.availableSatang, amountSatang);

    const destinationId = await upsertDestination(
      trx,
      { merchantId, destinationType: body.destinationType, bankCode: body.customerBankCode, accountNumber },
      accountName,
      now,
      newId(),
    );
    const threshold = merchant.withdraw_verification_threshold_satang;
    const needsVerification = threshold !== null && amountSatang >= threshold;
    const inserted = await insertWithdrawIfAbsent(trx, {
      id: newId(),
      merchant_id: merchantId,
      integration_id: auth.integration.id,
      amount_satang: amountSatang,
      currency: "THB",
      status: needsVerification ? "awaiting_verification" : "pending",
      reference_id: body.referenceId,
      destination_type: body.destinationType,
      destination_id: destinationId,
      bank_account_name: accountName,
      bank_account_number: accountNumber,
      bank_code: body.customerBankCode,
      description: body.description ?? null,
      metadata: body.metadata === undefined ? null : JSON.stringify(body.metadata),
      idempotency_key: idempotencyKey,
      request_hash: requestHash,
      verification_expires_at: needsVerification
        ? new Date(now.getTime() + WITHDRAW_VERIFICATION_TTL_MS)
        : null,
      paid_at: null,
      failed_at: null,
      canceled_at: null,
      created_at: now,
      updated_at: now,
    });
    if (!inserted) {
      // Unreachable while admission holds the wallet lock; kept so that a path that ever
      // skipped the lock would still answer like the lookups above instead of failing.
      const sameKey = await findWithdrawByIdempotencyKey(trx, merchantId, idempotencyKey);
      if (sameKey) return { outcome: "replayed", withdraw: withdrawView(replayOf(sameKey, requestHash)) };
      throw duplicateReference(body.referenceId);
    }
    await postWithdrawHold(trx, { merchantId, withdrawId: inserted.id, amountSatang, at: now });
    return { outcome: "created", withdraw: withdrawView(inserted) };
  });
}

export async function getWithdraw(deps: Deps, auth: AuthContext, id: string): Promise<WithdrawRecord> {
  // A malformed id cannot name a withdraw: the same 404 as a missing one.
  if (!isUuid(id)) throw withdrawNotFound();
  const row = await findWithdraw(deps.db, auth.merchant.id, id);
  if (!row) throw withdrawNotFound();
  return withdrawView(row);
}

export async function getWithdrawByReference(
  deps: Deps,
  auth: AuthContext,
  referenceId: string,
): Promise<WithdrawRecord> {
  const row = await findWithdrawByReference(deps.db, auth.merchant.id, referenceId);
  if (!row) throw withdrawNotFound();
  return withdrawView(row);
}

function notCancelable(row: WithdrawRow): AppError {
  const message =
    row.status === "processing"
      ? "Withdraw cannot be canceled while processing: the payout is already with the provider, which does not support canceling it"
      : `Withdraw cannot be canceled: its status is ${row.status}`;
  return fieldError("VALIDATION_ERROR", "status", message);
}

/**
 * Ends an open withdraw as canceled and releases its hold in the same transaction. The status
 * change is one conditional UPDATE, so of two racing cancels (or a cancel racing the payout
 * worker) exactly one changes the row, and only that one releases the hold.
 */
async function cancelAndRelease(
  trx: Transaction<Database>,
  query: { id: string; merchantId: string | undefined; from: readonly WithdrawStatus[]; at: Date },
): Promise<WithdrawRow | undefined> {
  const { at } = query;
  const canceled = await transitionWithdraw(trx, {
    id: query.id,
    merchantId: query.merchantId,
    from: query.from,
    to: "canceled",
    at,
  });
  if (!canceled) return undefined;
  await postWithdrawRelease(trx, {
    merchantId: canceled.merchant_id,
    withdrawId: canceled.id,
    amountSatang: canceled.amount_satang,
    at,
  });
  await emitWithdrawEvent(trx, canceled, "withdraw.canceled", at);
  return canceled;
}

/**
 * Cancel by the merchant: pending and awaiting_verification withdraws become canceled. A
 * processing withdraw is refused (400): the sandbox provider cannot recall a payout in flight,
 * and canceling it here would release money the provider may still pay out.
 */
export async function cancelWithdraw(deps: Deps, auth: AuthContext, id: string): Promise<WithdrawRecord> {
  if (!isUuid(id)) throw withdrawNotFound();
  const merchant = auth.merchant;
  const row = await deps.db.transaction().execute(async (trx) => {
    // A withdraw past its approval deadline is expired even before the job runs.
    await expireVerificationIfDue(trx, deps, id, merchant.id);
    const canceled = await cancelAndRelease(trx, {
      id,
      merchantId: merchant.id,
      from: MERCHANT_CANCELABLE,
      at: businessNow(deps.clock, merchant.clock_offset_ms),
    });
    if (canceled) return canceled;
    const current = await findWithdraw(trx, merchant.id, id);
    if (!current) throw withdrawNotFound();
    throw notCancelable(current);
  });
  return withdrawView(row);
}

export async function listWithdraws(
  deps: Deps,
  auth: AuthContext,
  query: ListWithdrawsQuery,
): Promise<Page<WithdrawRecord>> {
  const params = parseListQuery<WithdrawSortField>(query, "createdAt");
  const { rows, total } = await listWithdrawRows(
    deps.db,
    auth.merchant.id,
    { status: query.status, destinationType: query.destinationType },
    params,
  );
  return listPage(rows.map(withdrawView), total, params);
}

// Operator decisions on withdraws awaiting verification (CONTRACT 2).

function notAwaitingVerification(row: WithdrawRow): AppError {
  return new AppError(
    "STATE_CONFLICT",
    `Withdraw is not awaiting verification: its status is ${row.status}`,
    { status: row.status },
  );
}

async function operatorDecision(
  deps: Deps,
  id: string,
  decide: (trx: Transaction<Database>, at: Date) => Promise<WithdrawRow | undefined>,
): Promise<WithdrawRecord> {
  if (!isUuid(id)) throw withdrawNotFound();
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await findWithdrawById(trx, id);
    if (!current) throw withdrawNotFound();
    const merchant = await findMerchant(trx, current.merchant_id);
    if (!merchant) throw withdrawNotFound();
    // An approval (or rejection) after the 24 hours sees the withdraw expired, as the job would.
    await expireVerificationIfDue(trx, deps, id);
    const changed = await decide(trx, businessNow(deps.clock, merchant.clock_offset_ms));
    if (changed) return changed;
    // The conditional update found another status: re-read it for the message, since it may
    // have moved since the first read.
    throw notAwaitingVerification((await findWithdrawById(trx, id)) ?? current);
  });
  return withdrawView(row);
}

/** awaiting_verification -> pending; the hold placed at create stays. */
export function approveWithdraw(deps: Deps, id: string): Promise<WithdrawRecord> {
  return operatorDecision(deps, id, (trx, at) =>
    transitionWithdraw(trx, {
      id,
      merchantId: undefined,
      from: ["awaiting_verification"],
      to: "pending",
      at,
    }),
  );
}

/** awaiting_verification -> canceled, with the hold released. */
export function rejectWithdraw(deps: Deps, id: string): Promise<WithdrawRecord> {
  return operatorDecision(deps, id, (trx, at) =>
    cancelAndRelease(trx, { id, merchantId: undefined, from: ["awaiting_verification"], at }),
  );
}
