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
 * Round trips: the lock's statement also writes the signed request's replay record; everything
 * the checks look at is read by one statement after it (withdraws/store.ts
 * `admissionReadStatement`), sent with BEGIN and the lock in one round trip; the withdraw with
 * its saved destination is one INSERT, its hold one more (ledger/postings.ts), sent with the
 * COMMIT in a second (db/pg-driver.ts). The lock is held for one round trip and the decision.
 * The creates of one wallet also take their turns in the process, two at a time, before they
 * take a pool connection (db/key-queue.ts).
 *
 * Because every admission of a merchant waits for the previous one to commit, each sees the
 * withdraws and the balance its predecessors left: N concurrent requests against capacity for
 * k admit exactly k. The unique indexes on (merchant, reference) and (merchant, idempotency
 * key) back the lock up: were it ever bypassed, a duplicate would still not be stored.
 */
import { type Db, type Trx, withTransaction } from "../db/handles.ts";
import { inTurn, lockWaitBound, type Turn } from "../db/key-queue.ts";
import { runTogether, transactionSettings } from "../db/pg-driver.ts";
import type { SignatureUse } from "../db/replay-records.ts";
import type { Integration, Merchant, NewWithdraw, WithdrawRow } from "../db/types.ts";
import type { PendingReplay } from "../http/auth.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import { lockNewWallet, type WalletLock, walletLockStatement } from "../ledger/accounts.ts";
import { normalizeAccountNumber } from "../lib/account-number.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { AppError, fieldError } from "../lib/errors.ts";
import { duplicateReference, replayOf, requestHashOf } from "../lib/idempotency.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { formatAmount, parseAmount } from "../lib/money.ts";
import { findMerchant } from "../merchants/store.ts";
import { checkPayoutGuard, guardQuery } from "./guard.ts";
import { checkWithdrawLimits, utcDay, utcMonth } from "./limits.ts";
import type { CreateWithdrawBody, ListWithdrawsQuery, WithdrawRecord, WithdrawSortField } from "./schemas.ts";
import {
  type AdmissionFacts,
  admissionReadStatement,
  findWithdraw,
  findWithdrawById,
  findWithdrawByIdempotencyKey,
  findWithdrawByReference,
  inOpenPayoutBatch,
  listWithdrawRows,
  readAdmission,
} from "./store.ts";
import { admitWithdraw, expireVerificationIfDue, moveWithdraw, WithdrawKeyTaken } from "./transitions.ts";
import { withdrawView } from "./view.ts";

/** How long a withdraw awaits the operator's approval before it expires (CONTRACT 7). */
const WITHDRAW_VERIFICATION_TTL_MS = 24 * 60 * 60_000;

export const withdrawNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Withdraw not found");

/** What the withdraw services use: the database or a transaction, and the business clock. */
export interface WithdrawContext {
  db: Db;
  clock: Clock;
  /**
   * Where payouts go (the payout connector): when its transfers cannot be recalled once sent
   * (`irrevocablePayouts`), a processing withdraw cannot be canceled (409).
   */
  provider?: { readonly irrevocablePayouts?: boolean } | undefined;
}

/** How a create request was answered: a new record (201) or an idempotent replay (200). */
export type CreateOutcome = "created" | "replayed";

export interface CreateResult {
  outcome: CreateOutcome;
  withdraw: WithdrawRecord;
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
  if (merchant.wallet_status !== "active") throw walletInactive(merchant.wallet_status);
}

/** 403 for a withdraw from a frozen or closed wallet. */
export function walletInactive(status: "frozen" | "closed"): AppError {
  return new AppError("WALLET_INACTIVE", `The merchant's wallet is ${status}`, { walletStatus: status });
}

function checkBalance(availableSatang: bigint, amountSatang: bigint): void {
  if (availableSatang < amountSatang) throw insufficientBalance(availableSatang, amountSatang);
}

/** 400 for a withdraw larger than the available wallet. */
export function insufficientBalance(availableSatang: bigint, amountSatang: bigint): AppError {
  return new AppError(
    "INSUFFICIENT_BALANCE",
    `Insufficient wallet balance: ${formatAmount(availableSatang)} available, ${formatAmount(amountSatang)} requested`,
    { available: formatAmount(availableSatang), amount: formatAmount(amountSatang) },
  );
}

/** The row of an admitted withdraw: the request as checked, and what admission decided. */
function withdrawRowOf(
  body: CreateWithdrawBody,
  admitted: {
    merchantId: string;
    integrationId: string;
    amountSatang: bigint;
    accountNumber: string;
    accountName: string;
    idempotencyKey: string;
    requestHash: string;
    verificationExpiresAt: Date | null;
    now: Date;
  },
): Omit<NewWithdraw, "status" | "destination_id"> {
  return {
    id: newId(),
    merchant_id: admitted.merchantId,
    integration_id: admitted.integrationId,
    amount_satang: admitted.amountSatang,
    currency: "THB",
    reference_id: body.referenceId,
    destination_type: body.destinationType,
    bank_account_name: admitted.accountName,
    bank_account_number: admitted.accountNumber,
    bank_code: body.customerBankCode,
    description: body.description ?? null,
    metadata: body.metadata === undefined ? null : JSON.stringify(body.metadata),
    idempotency_key: admitted.idempotencyKey,
    request_hash: admitted.requestHash,
    verification_expires_at: admitted.verificationExpiresAt,
    paid_at: null,
    failed_at: null,
    canceled_at: null,
    created_at: admitted.now,
    updated_at: admitted.now,
  };
}

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
  return inTurn(ctx.db, `wallet:${merchant.id}`, (turn) => admit(ctx, request, turn));
}

interface AdmissionRequest {
  merchantId: string;
  /** What the authenticated merchant said of its clock and limits, for the admission read. */
  assumed: { clockOffsetMs: bigint; hasLimits: boolean };
  integration: Pick<Integration, "id">;
  body: CreateWithdrawBody;
  checked: ReturnType<typeof checkBody>;
  requestHash: string;
  idempotencyKey: string;
  replay: PendingReplay | undefined;
}

/**
 * The admission of one create, in one transaction under the wallet lock. A withdraw whose
 * unique key was taken as it was inserted (WithdrawKeyTaken: unreachable under the lock) rolls
 * back and is admitted once more, which answers like the lookups do (the replay, or 409).
 */
async function admit(
  ctx: WithdrawContext,
  request: AdmissionRequest,
  turn: Turn | undefined,
): Promise<CreateResult> {
  try {
    return await admitOnce(ctx, request, turn);
  } catch (error) {
    if (!(error instanceof WithdrawKeyTaken)) throw error;
    // The failed transaction took its replay record with it: the second one writes it again.
    return admitOnce(ctx, request, undefined);
  }
}

function admitOnce(
  ctx: WithdrawContext,
  request: AdmissionRequest,
  turn: Turn | undefined,
): Promise<CreateResult> {
  return withTransaction(ctx.db, async (trx): Promise<CreateResult> => {
    // Only `trx` is used in here: on the embedded store a second connection would wait for
    // the one this transaction holds.
    // One business time for the read and the checks (a day's limit read for one day is checked
    // for that day).
    const assumedNow = businessNow(ctx.clock, request.assumed.clockOffsetMs);
    const own = !ctx.db.isTransaction;
    const { wallet, facts } = await lockAndRead(trx, request, assumedNow, { turn, own });
    const decided = await decideAdmission(trx, ctx, request, { facts, assumedNow }, wallet.availableSatang);
    if ("replayed" in decided) return { outcome: "replayed", withdraw: withdrawView(decided.replayed) };
    // The insert and the hold go with the COMMIT when this transaction is the service's own.
    return insertAdmitted(trx, request, decided.merchant, decided.now, own);
  });
}

/**
 * The wallet lock (its statement also writes the signed request's replay record) and the
 * admission read, sent together: one round trip (db/pg-driver.ts), BEGIN included. The read
 * starts, and takes its snapshot, once the lock's statement has ended. The wait for the lock
 * gets what is left of the bound its turn in the queue began (db/key-queue.ts), set in the
 * BEGIN. A merchant without ledger accounts yet gets
 * them, and the read is made again under the lock.
 */
async function lockAndRead(
  trx: Trx,
  request: AdmissionRequest,
  assumedNow: Date,
  transaction: { turn: Turn | undefined; own: boolean },
): Promise<{ wallet: WalletLock; facts: AdmissionFacts }> {
  const { replay, merchantId } = request;
  // Both settings ride in the transaction's BEGIN (db/pg-driver.ts `transactionSettings`): the
  // lock bound left after the wait for a turn, and generic plans, so that the admission read
  // is planned once per connection rather than on every call (its parts are index-shaped for
  // any merchant: withdraws/store.ts). Generic plans only when the transaction is the
  // admission's own: in a caller's they would outlive the admission.
  const bound = lockWaitBound(trx, transaction.turn);
  const generic = transaction.own
    ? [transactionSettings(trx, ADMISSION_PLAN_SETTINGS, { onlyInBegin: true })]
    : [];
  const read = admissionReadStatement(trx, admissionQuery(request, assumedNow));
  const together = async (use?: SignatureUse): Promise<[WalletLock | undefined, AdmissionFacts]> => {
    const lock = walletLockStatement(trx, merchantId, use);
    const settings = [...generic, ...(bound ? [bound] : [])];
    const answers = await runTogether(trx, ...settings, lock, read);
    return answers.slice(settings.length) as [WalletLock | undefined, AdmissionFacts];
  };
  const [wallet, facts] = replay ? await replay.writtenBy(together) : await together();
  if (wallet) return { wallet, facts };
  const created = await lockNewWallet(trx, merchantId);
  return { wallet: created, facts: await readAdmission(trx, admissionQuery(request, assumedNow)) };
}

/** The plan mode of an admission's transaction (`lockAndRead`). */
const ADMISSION_PLAN_SETTINGS = { plan_cache_mode: "force_generic_plan" } as const;

/** What the admission read asks, at the business time of the merchant as it authenticated. */
function admissionQuery(request: AdmissionRequest, assumedNow: Date) {
  const { merchantId, body, assumed } = request;
  return {
    ...guardQuery({ merchantId, amountSatang: request.checked.amountSatang, now: assumedNow }),
    idempotencyKey: body.idempotencyKey,
    referenceId: body.referenceId,
    windows: assumed.hasLimits ? { day: utcDay(assumedNow), month: utcMonth(assumedNow) } : undefined,
  };
}

/**
 * The checks of a create in the order of CONTRACT 7, on what one statement read after the
 * wallet lock (withdraws/store.ts `admissionReadStatement`), so the merchant's wallet status,
 * limits and threshold are the current ones. That read is made for the business time of the
 * merchant the request authenticated as; if the merchant's clock has moved since (a sandbox
 * test clock), the guard and the limits are read again for its time now.
 */
async function decideAdmission(
  trx: Trx,
  ctx: WithdrawContext,
  request: AdmissionRequest,
  read: { facts: AdmissionFacts; assumedNow: Date },
  availableSatang: bigint,
): Promise<{ replayed: WithdrawRow } | { merchant: Merchant; now: Date }> {
  const { merchantId, body, assumed } = request;
  const { amountSatang, accountName } = request.checked;
  const { facts, assumedNow } = read;
  const current = facts.merchant;
  if (!current) throw new AppError("AUTHENTICATION_ERROR", "Merchant context is not available");
  const sameTime = current.clock_offset_ms === assumed.clockOffsetMs;
  const now = sameTime ? assumedNow : businessNow(ctx.clock, current.clock_offset_ms);

  if (body.idempotencyKey !== undefined && facts.keyTaken) {
    const existing = await findWithdrawByIdempotencyKey(trx, merchantId, body.idempotencyKey);
    if (existing) return { replayed: replayOf(existing, request.requestHash) };
  }
  if (facts.referenceTaken) throw duplicateReference("withdraw", body.referenceId);
  checkWalletStatus(current);
  const payout = { merchantId, amountSatang, accountName, now };
  await checkPayoutGuard(trx, payout, sameTime ? facts.guardCandidates : undefined);
  await checkWithdrawLimits(trx, current, amountSatang, now, sameTime ? facts.used : undefined);
  checkBalance(availableSatang, amountSatang);
  return { merchant: current, now };
}

/**
 * Inserts the admitted withdraw, its saved destination and its hold; with the COMMIT when
 * `last` (the admission's transaction is its own, and nothing follows in it).
 */
async function insertAdmitted(
  trx: Trx,
  request: AdmissionRequest,
  current: Merchant,
  now: Date,
  last: boolean,
): Promise<CreateResult> {
  const { merchantId, body, idempotencyKey, requestHash } = request;
  const { amountSatang, accountNumber, accountName } = request.checked;
  const threshold = current.withdraw_verification_threshold_satang;
  const needsVerification = threshold !== null && amountSatang >= threshold;
  const inserted = await admitWithdraw(
    trx,
    needsVerification ? "admitForReview" : "admit",
    withdrawRowOf(body, {
      merchantId,
      integrationId: request.integration.id,
      amountSatang,
      accountNumber,
      accountName,
      idempotencyKey,
      requestHash,
      verificationExpiresAt: needsVerification
        ? new Date(now.getTime() + WITHDRAW_VERIFICATION_TTL_MS)
        : null,
      now,
    }),
    {
      key: {
        merchantId,
        destinationType: body.destinationType,
        bankCode: body.customerBankCode,
        accountNumber,
      },
      accountName,
      at: now,
      idIfNew: newId(),
    },
    { last },
  );
  return { outcome: "created", withdraw: withdrawView(inserted) };
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

export function notCancelable(
  row: Pick<WithdrawRow, "status">,
  ctx: Pick<WithdrawContext, "provider">,
): AppError {
  // A connector whose transfers have no recall: the transfer is with the bank (CONTRACT 15).
  if (row.status === "processing" && ctx.provider?.irrevocablePayouts === true) {
    return new AppError(
      "STATE_CONFLICT",
      "Withdraw cannot be canceled while processing: the transfer is with the bank, which cannot recall it",
      { status: row.status, reason: "payout_in_flight" },
    );
  }
  const message =
    row.status === "processing"
      ? "Withdraw cannot be canceled while processing: the payout is already with the provider, which does not support canceling it"
      : `Withdraw cannot be canceled: its status is ${row.status}`;
  return fieldError("VALIDATION_ERROR", "status", message);
}

/** In the operator's open payout batch: the money may be leaving by hand right now. */
export function inPayoutBatch(row: Pick<WithdrawRow, "status">): AppError {
  return new AppError(
    "STATE_CONFLICT",
    "Withdraw cannot be canceled: it is in the operator's open payout batch and may be being paid now",
    { status: row.status, reason: "in_payout_batch" },
  );
}

/**
 * Cancel by the merchant: pending and awaiting_verification withdraws become canceled and
 * their hold is released (transitions.ts `cancel`). A processing withdraw is refused (400): the
 * sandbox provider cannot recall a payout in flight, and canceling it here would release money
 * the provider may still pay out. The move is one conditional UPDATE, so of two racing cancels
 * (or a cancel racing the payout worker) exactly one changes the row and releases the hold.
 * A withdraw in an open batch of the manual payout desk is refused with 409 STATE_CONFLICT.
 */
export async function cancelWithdraw(
  ctx: WithdrawContext,
  merchant: Pick<Merchant, "id" | "clock_offset_ms">,
  id: string,
): Promise<WithdrawRecord> {
  if (!isUuid(id)) throw withdrawNotFound();
  const row = await withTransaction(ctx.db, async (trx) => {
    // A withdraw past its approval deadline is expired even before the job runs.
    await expireVerificationIfDue(trx, ctx, id, merchant.id);
    const at = businessNow(ctx.clock, merchant.clock_offset_ms);
    const canceled = await moveWithdraw(trx, "cancel", { id, merchantId: merchant.id }, at);
    if (canceled) return canceled;
    const current = await findWithdraw(trx, merchant.id, id);
    if (!current) throw withdrawNotFound();
    if (current.status === "processing" && (await inOpenPayoutBatch(trx, id))) throw inPayoutBatch(current);
    throw notCancelable(current, ctx);
  });
  return withdrawView(row);
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
  const row = await withTransaction(ctx.db, async (trx) => {
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
    throw notAwaitingVerification((await findWithdrawById(trx, id)) ?? current);
  });
  return withdrawView(row);
}

/** awaiting_verification -> pending; the hold placed at create stays. */
export function approveWithdraw(ctx: WithdrawContext, id: string): Promise<WithdrawRecord> {
  return operatorDecision(ctx, id, (trx, at) => moveWithdraw(trx, "approve", { id }, at));
}

/** awaiting_verification -> canceled, with the hold released. */
export function rejectWithdraw(ctx: WithdrawContext, id: string): Promise<WithdrawRecord> {
  return operatorDecision(ctx, id, (trx, at) => moveWithdraw(trx, "reject", { id }, at));
}
