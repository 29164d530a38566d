/**
 * Withdraw admission: the checks of a create in the order of CONTRACT 7 and the insert with its
 * hold, for one create in one transaction under the merchant's wallet lock (`admit`), and the
 * parts the grouped admission shares (withdraws/admission-group.ts): the request, the pure
 * decision on what the admission read found, and the new withdraw's row.
 *
 * Round trips: the lock's statement also writes the signed request's replay record; everything
 * the checks look at is read by one statement after it (withdraws/store.ts
 * `admissionReadStatement`), sent with BEGIN and the lock in one round trip; the withdraw with
 * its saved destination is one INSERT, its hold one more (ledger/postings.ts), sent with the
 * COMMIT in a second (db/pg-driver.ts). The lock is held for one round trip and the decision.
 */
import { type Db, type Trx, withTransaction } from "../db/handles.ts";
import { lockWaitBound, type Turn } from "../db/key-queue.ts";
import { runTogether, transactionSettings } from "../db/pg-driver.ts";
import type { SignatureUse } from "../db/replay-records.ts";
import type { Integration, Merchant, NewWithdraw, WithdrawRow } from "../db/types.ts";
import type { PendingReplay } from "../http/auth.ts";
import { lockNewWallet, type WalletLock, walletLockStatement } from "../ledger/accounts.ts";
import { normalizeAccountNumber } from "../lib/account-number.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { AppError, fieldError } from "../lib/errors.ts";
import { duplicateReference, replayOf } from "../lib/idempotency.ts";
import { newId } from "../lib/ids.ts";
import { describeSatang, formatAmount, parseAmount } from "../lib/money.ts";
import { decideGuard, guardError, guardQuery } from "./guard.ts";
import { limitError, usedCapacity, utcDay, utcMonth } from "./limits.ts";
import type { CreateWithdrawBody, WithdrawRecord } from "./schemas.ts";
import {
  type AdmissionFacts,
  admissionReadStatement,
  findGuardCandidates,
  findWithdrawByIdempotencyKey,
  readAdmission,
} from "./store.ts";
import { admitWithdraw, WithdrawKeyTaken } from "./transitions.ts";
import { withdrawView } from "./view.ts";

/** What the withdraw services use: the database or a transaction, and the business clock. */
export interface WithdrawContext {
  db: Db;
  clock: Clock;
}

/** How a create request was answered: a new record (201) or an idempotent replay (200). */
export type CreateOutcome = "created" | "replayed";

export interface CreateResult {
  outcome: CreateOutcome;
  withdraw: WithdrawRecord;
}

/** How long a withdraw awaits the operator's approval before it expires (CONTRACT 7). */
const WITHDRAW_VERIFICATION_TTL_MS = 24 * 60 * 60_000;

/** Rules on the body that its schema cannot express; the schema has run already. */
export function checkBody(body: CreateWithdrawBody) {
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

/** 403 for a withdraw from a frozen or closed wallet. */
export function walletInactive(status: "frozen" | "closed"): AppError {
  return new AppError("WALLET_INACTIVE", `The merchant's wallet is ${status}`, { walletStatus: status });
}

/** 400 for a withdraw larger than the available wallet. */
export function insufficientBalance(availableSatang: bigint, amountSatang: bigint): AppError {
  return new AppError(
    "INSUFFICIENT_BALANCE",
    `Insufficient wallet balance: ${describeSatang(availableSatang)} available, ${describeSatang(amountSatang)} requested`,
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

export interface AdmissionRequest {
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
export async function admit(
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

/**
 * The plan settings of an admission's transaction (`lockAndRead`): generic plans, made once per
 * connection, and made without sequential scans. Every statement of an admission finds its rows
 * by key (the merchant, its wallet's accounts, its saved destination, its withdraws of the
 * amount); a generic plan is made at the first run on a connection and kept until the tables'
 * statistics change, and one made while the tables were a page or two (a young database, or one
 * autovacuum has not analyzed since it grew) read whole tables (every merchant, every account,
 * every saved destination) for each group until then. The plans of the foreign-key checks and
 * the ledger's triggers first made in the transaction are made under the same setting.
 */
export const ADMISSION_PLAN_SETTINGS = {
  plan_cache_mode: "force_generic_plan",
  enable_seqscan: "off",
} as const;

/** What the admission read asks, at the business time of the merchant as it authenticated. */
export function admissionQuery(request: AdmissionRequest, assumedNow: Date) {
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
  const { facts, assumedNow } = read;
  const current = merchantOf(facts);
  const sameTime = current.clock_offset_ms === assumed.clockOffsetMs;
  const now = sameTime ? assumedNow : businessNow(ctx.clock, current.clock_offset_ms);

  if (body.idempotencyKey !== undefined && facts.keyTaken) {
    const existing = await findWithdrawByIdempotencyKey(trx, merchantId, body.idempotencyKey);
    if (existing) return { replayed: replayOf(existing, request.requestHash) };
  }
  const payout = { merchantId, amountSatang: request.checked.amountSatang, now };
  const guardCandidates = sameTime
    ? facts.guardCandidates
    : await findGuardCandidates(trx, guardQuery(payout));
  const used = !hasLimits(current)
    ? undefined
    : ((sameTime ? facts.used : undefined) ?? (await usedCapacity(trx, merchantId, now)));
  const refusal = refusalOf(request, current, { ...facts, guardCandidates, used }, { now, availableSatang });
  if (refusal) throw refusal;
  return { merchant: current, now };
}

/** The merchant the admission read found; it no longer exists: the request cannot go on. */
function merchantOf(facts: AdmissionFacts): Merchant {
  if (!facts.merchant) throw new AppError("AUTHENTICATION_ERROR", "Merchant context is not available");
  return facts.merchant;
}

function hasLimits(merchant: Merchant): boolean {
  return merchant.daily_withdraw_limit_satang !== null || merchant.monthly_withdraw_limit_satang !== null;
}

/**
 * Pure: the refusal of a create whose key is not taken, in the order of CONTRACT 7 (its
 * reference taken, the wallet's status, the payout guard, the limits, the balance), or
 * undefined when it is admitted. `used` is the limit capacity at `now` when the merchant has
 * limits.
 */
function refusalOf(
  request: AdmissionRequest,
  merchant: Merchant,
  read: Pick<AdmissionFacts, "referenceTaken" | "guardCandidates" | "used">,
  at: { now: Date; availableSatang: bigint },
): AppError | undefined {
  const { amountSatang, accountName } = request.checked;
  if (read.referenceTaken) return duplicateReference("withdraw", request.body.referenceId);
  if (merchant.wallet_status !== "active") return walletInactive(merchant.wallet_status);
  const block = decideGuard(read.guardCandidates, accountName, at.now);
  if (block) return guardError(block);
  if (read.used) {
    const limits = {
      dailySatang: merchant.daily_withdraw_limit_satang,
      monthlySatang: merchant.monthly_withdraw_limit_satang,
    };
    const exceeded = limitError(limits, read.used, amountSatang);
    if (exceeded) return exceeded;
  }
  if (at.availableSatang < amountSatang) return insufficientBalance(at.availableSatang, amountSatang);
  return undefined;
}

/** What a grouped admission decided for one create of its group. */
export type GroupDecision =
  | { admit: { merchant: Merchant; now: Date } }
  | { refused: AppError }
  /** The group did not read what the create needs: it is admitted alone, after the group. */
  | { alone: true };

/**
 * The decision for one create of a group (withdraws/admission-group.ts), on what the group's
 * read found for it and its wallet as the group's lock read it. What needs more than that read
 * (a taken idempotency key, whose withdraw is then read for the replay; a merchant whose clock
 * moved since it authenticated; limits the read did not sum; a wallet without accounts yet) is
 * left to an admission of its own.
 */
export function decideInGroup(
  request: AdmissionRequest,
  facts: AdmissionFacts,
  assumedNow: Date,
  availableSatang: bigint | undefined,
): GroupDecision {
  if (availableSatang === undefined || !facts.merchant) return { alone: true };
  const current = facts.merchant;
  if (current.clock_offset_ms !== request.assumed.clockOffsetMs) return { alone: true };
  if (request.body.idempotencyKey !== undefined && facts.keyTaken) return { alone: true };
  if (hasLimits(current) && !facts.used) return { alone: true };
  const refusal = refusalOf(request, current, facts, { now: assumedNow, availableSatang });
  return refusal ? { refused: refusal } : { admit: { merchant: current, now: assumedNow } };
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
  const { merchantId, body } = request;
  const { transition, row } = newWithdrawRow(request, current, now);
  const inserted = await admitWithdraw(
    trx,
    transition,
    row,
    {
      key: {
        merchantId,
        destinationType: body.destinationType,
        bankCode: body.customerBankCode,
        accountNumber: request.checked.accountNumber,
      },
      accountName: request.checked.accountName,
      at: now,
      idIfNew: newId(),
    },
    { last },
  );
  return { outcome: "created", withdraw: withdrawView(inserted) };
}

/**
 * The row of an admitted create, and the transition it is admitted by: for review (awaiting the
 * operator's verification, CONTRACT 7) when its amount reaches the merchant's threshold.
 */
export function newWithdrawRow(
  request: AdmissionRequest,
  current: Merchant,
  now: Date,
): { transition: "admit" | "admitForReview"; row: Omit<NewWithdraw, "status" | "destination_id"> } {
  const { merchantId, body, idempotencyKey, requestHash } = request;
  const { amountSatang, accountNumber, accountName } = request.checked;
  const threshold = current.withdraw_verification_threshold_satang;
  const needsVerification = threshold !== null && amountSatang >= threshold;
  const row = withdrawRowOf(body, {
    merchantId,
    integrationId: request.integration.id,
    amountSatang,
    accountNumber,
    accountName,
    idempotencyKey,
    requestHash,
    verificationExpiresAt: needsVerification ? new Date(now.getTime() + WITHDRAW_VERIFICATION_TTL_MS) : null,
    now,
  });
  return { transition: needsVerification ? "admitForReview" : "admit", row };
}
