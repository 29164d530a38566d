/**
 * Refund rules (CONTRACT 16): create, retrieve, list, cancel. Everything is scoped to the
 * authenticated merchant; every timestamp is the merchant's business time.
 *
 * Create checks, in one transaction that first locks the payment's row (so the refunds of one
 * payment are decided one after another, in every process on the database): idempotent replay
 * (same key and body -> the original refund, 200, nothing else checked; same key, other body ->
 * 422), duplicate referenceId (409), the payment succeeded (409 STATE_CONFLICT), the wallet is
 * active (403 WALLET_INACTIVE: a frozen wallet pays nothing out, refunds included), the amount
 * fits what is left to refund (400 INVALID_INPUT with `refundable` and `amount`), and the
 * wallet covers the part that is not taken from the payment's own settlement (400
 * INSUFFICIENT_BALANCE, checked under the wallet lock). Then the refund, its hold and the
 * payment's refunded sum (a conditional UPDATE that the database's CHECK backs up) are written
 * in that same transaction.
 */
import { type Db, type Trx, withTransaction } from "../db/handles.ts";
import { boundLockWait, inTurn, type Turn } from "../db/key-queue.ts";
import type { Integration, Merchant, NewRefund, RefundRow } from "../db/types.ts";
import type { PendingReplay } from "../http/auth.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, parseListQuery } from "../http/list-query.ts";
import { lockWallet } from "../ledger/accounts.ts";
import { post, refundHold } from "../ledger/postings.ts";
import { normalizeAccountNumber } from "../lib/account-number.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { AppError, fieldError } from "../lib/errors.ts";
import { requestHashOf, settleAgainst } from "../lib/idempotency.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { describeSatang, formatAmount, parseAmount } from "../lib/money.ts";
import type {
  CreateRefundBody,
  ListPaymentRefundsQuery,
  ListRefundsQuery,
  RefundRecord,
  RefundSortField,
} from "./schemas.ts";
import { settlementPartOf } from "./settlement-part.ts";
import {
  addRefunded,
  findRefund,
  findRefundsByKeys,
  insertRefund,
  isMerchantPayment,
  isRefundKeyConflict,
  type LockedPayment,
  listRefundRows,
  lockPaymentForRefund,
} from "./store.ts";
import { ADMITTED_REFUND_STATUS, moveRefund } from "./transitions.ts";
import { refundView } from "./view.ts";

export interface RefundContext {
  db: Db;
  clock: Clock;
}

export const refundNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Refund not found");
export const refundPaymentNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Payment not found");

/** 409 for a refund of a payment that has not succeeded. */
export function paymentNotRefundable(status: string): AppError {
  return new AppError("STATE_CONFLICT", `Payment is ${status}: only a succeeded payment can be refunded`, {
    status,
    reason: "payment_not_succeeded",
  });
}

/** 400 for a refund larger than what its payment has left to refund. */
export function overRefundable(refundableSatang: bigint, amountSatang: bigint): AppError {
  return new AppError(
    "INVALID_INPUT",
    `The payment has ${describeSatang(refundableSatang)} left to refund; ${describeSatang(amountSatang)} was asked for`,
    { refundable: formatAmount(refundableSatang), amount: formatAmount(amountSatang) },
  );
}

/** 400 for a refund whose wallet part the available wallet cannot cover. */
export function refundInsufficientBalance(availableSatang: bigint, neededSatang: bigint): AppError {
  return new AppError(
    "INSUFFICIENT_BALANCE",
    `Insufficient wallet balance for the refund: ${describeSatang(availableSatang)} available, ${describeSatang(neededSatang)} needed from the wallet`,
    { available: formatAmount(availableSatang), amount: formatAmount(neededSatang) },
  );
}

export function refundWalletInactive(status: "frozen" | "closed"): AppError {
  return new AppError("WALLET_INACTIVE", `The merchant's wallet is ${status}`, { walletStatus: status });
}

/**
 * Why a refund cannot be canceled, answered as interface.md answers "a cancel of a
 * non-cancellable payment or withdraw": 400 VALIDATION_ERROR on `status`. A processing refund is
 * with the bank; an ended one (succeeded, failed, canceled) has nothing to cancel.
 */
export function refundNotCancelable(status: string): AppError {
  return fieldError(
    "VALIDATION_ERROR",
    "status",
    status === "processing"
      ? "Refund cannot be canceled while processing: the transfer is already with the bank"
      : `Refund cannot be canceled: its status is ${status}`,
  );
}

interface CheckedRefund {
  paymentId: string;
  amountSatang: bigint;
  destination: { bankCode: string; accountNumber: string; accountName: string } | undefined;
  idempotencyKey: string;
  requestHash: string;
}

/** Rules on the body that its schema cannot express; the schema has run already. */
function checkBody(paymentId: string, body: CreateRefundBody): CheckedRefund {
  const amountSatang = parseAmount(body.amount);
  if (amountSatang === null) throw fieldError("INVALID_AMOUNT", "amount", "amount is not a valid amount");
  let destination: CheckedRefund["destination"];
  if (body.destination) {
    const accountNumber = normalizeAccountNumber(body.destination.accountNumber);
    if (accountNumber === null) {
      throw fieldError(
        "VALIDATION_ERROR",
        "destination.accountNumber",
        "accountNumber must have 10 to 15 digits",
      );
    }
    destination = { ...body.destination, accountNumber, accountName: body.destination.accountName.trim() };
  }
  return {
    paymentId,
    amountSatang,
    destination,
    idempotencyKey: body.idempotencyKey ?? newId(),
    // The payment is part of what the key stands for: the same key for another payment is another body.
    requestHash: requestHashOf({ paymentId, ...body }),
  };
}

export interface CreateRefundResult {
  outcome: "created" | "replayed";
  refund: RefundRecord;
}

export async function createRefund(
  ctx: RefundContext,
  merchant: Pick<Merchant, "id">,
  /** The API key that asked; null for the merchant's dashboard. */
  integration: Pick<Integration, "id"> | null,
  paymentId: string,
  body: CreateRefundBody,
  replay?: PendingReplay,
): Promise<CreateRefundResult> {
  if (!isUuid(paymentId)) throw refundPaymentNotFound();
  const checked = checkBody(paymentId.toLowerCase(), body);
  const admit = (turn: Turn | undefined) =>
    withTransaction(ctx.db, async (trx) => {
      await boundLockWait(trx, turn);
      if (replay) await replay.recordIn(trx);
      return admitRefund(trx, ctx, {
        merchantId: merchant.id,
        integrationId: integration?.id ?? null,
        body,
        checked,
      });
    });
  // A merchant's refunds take their turns in this process, two at a time, before they take a
  // connection (db/key-queue.ts): a burst against a payment or wallet held elsewhere waits here,
  // holding nothing, and leaves the pool to the other merchants (CONTRACT 14).
  return inTurn(ctx.db, `refunds:${merchant.id}`, async (turn) => {
    try {
      return await admit(turn);
    } catch (error) {
      // Another payment's refund took this reference or key between our read and our insert:
      // the transaction is gone; run once more, and the lookups answer (the replay, 409 or 422).
      if (!isRefundKeyConflict(error)) throw error;
      return admit(undefined);
    }
  });
}

interface Admission {
  merchantId: string;
  integrationId: string | null;
  body: CreateRefundBody;
  checked: CheckedRefund;
}

async function admitRefund(trx: Trx, ctx: RefundContext, request: Admission): Promise<CreateRefundResult> {
  const { merchantId, body, checked } = request;
  const payment = await lockPaymentForRefund(trx, merchantId, checked.paymentId);
  if (!payment) throw refundPaymentNotFound();
  const existing = await findRefundsByKeys(trx, merchantId, {
    idempotencyKey: checked.idempotencyKey,
    referenceId: body.referenceId,
  });
  const replayed = settleAgainst("refund", existing, { ...checked, referenceId: body.referenceId });
  if (replayed) return { outcome: "replayed", refund: refundView(replayed) };
  if (payment.status !== "succeeded") throw paymentNotRefundable(payment.status);
  if (payment.wallet_status === "frozen" || payment.wallet_status === "closed") {
    throw refundWalletInactive(payment.wallet_status);
  }
  const refundable = payment.amount_satang - payment.refunded_satang;
  if (checked.amountSatang > refundable) throw overRefundable(refundable, checked.amountSatang);
  const settlementPart = settlementPartOf(payment, checked.amountSatang);
  const walletPart = checked.amountSatang - settlementPart;
  if (walletPart > 0n) {
    const wallet = await lockWallet(trx, merchantId);
    if (wallet.availableSatang < walletPart)
      throw refundInsufficientBalance(wallet.availableSatang, walletPart);
  }
  const at = businessNow(ctx.clock, payment.clock_offset_ms);
  const row = await insertAdmitted(trx, request, payment, { settlementPart, at });
  return { outcome: "created", refund: refundView(row) };
}

async function insertAdmitted(
  trx: Trx,
  request: Admission,
  payment: LockedPayment,
  decided: { settlementPart: bigint; at: Date },
): Promise<RefundRow> {
  const { checked } = request;
  const added = await addRefunded(trx, {
    paymentId: payment.id,
    amountSatang: checked.amountSatang,
    settlementPartSatang: decided.settlementPart,
  });
  // Unreachable under the payment's lock; the conditional update is the rule's second check.
  if (!added) throw overRefundable(payment.amount_satang - payment.refunded_satang, checked.amountSatang);
  const row = await insertRefund(trx, refundRowOf(request, payment, decided));
  await post(
    trx,
    refundHold({
      merchantId: row.merchant_id,
      refundId: row.id,
      amountSatang: row.amount_satang,
      settlementPartSatang: decided.settlementPart,
      at: decided.at,
    }),
  );
  return row;
}

function refundRowOf(
  request: Admission,
  payment: LockedPayment,
  decided: { settlementPart: bigint; at: Date },
): NewRefund {
  const { checked, body } = request;
  const to = checked.destination;
  return {
    id: newId(),
    merchant_id: request.merchantId,
    payment_id: payment.id,
    integration_id: request.integrationId,
    amount_satang: checked.amountSatang,
    settlement_part_satang: decided.settlementPart,
    currency: "THB",
    status: ADMITTED_REFUND_STATUS,
    reference_id: body.referenceId,
    reason: body.reason ?? null,
    metadata: body.metadata === undefined ? null : JSON.stringify(body.metadata),
    failure_reason: null,
    // Without a destination the money goes back to the account the customer paid from.
    bank_code: to?.bankCode ?? payment.customer_bank_code,
    bank_account_number: to?.accountNumber ?? payment.customer_bank_account_number,
    bank_account_name: to?.accountName ?? payment.customer_bank_account_name,
    idempotency_key: checked.idempotencyKey,
    request_hash: checked.requestHash,
    created_at: decided.at,
    updated_at: decided.at,
    succeeded_at: null,
    failed_at: null,
    canceled_at: null,
  };
}

export async function getRefund(
  ctx: Pick<RefundContext, "db">,
  merchant: Pick<Merchant, "id">,
  id: string,
): Promise<RefundRecord> {
  if (!isUuid(id)) throw refundNotFound();
  const row = await findRefund(ctx.db, merchant.id, id.toLowerCase());
  if (!row) throw refundNotFound();
  return refundView(row);
}

export async function listRefunds(
  ctx: Pick<RefundContext, "db">,
  merchant: Pick<Merchant, "id">,
  query: ListRefundsQuery,
): Promise<Page<RefundRecord>> {
  const params = parseListQuery<RefundSortField>(query, "createdAt");
  if (query.paymentId !== undefined && !isUuid(query.paymentId)) {
    // No refund names a malformed payment id: an empty page, as for an unknown one.
    return listPage([], 0, params);
  }
  const { rows, total } = await listRefundRows(
    ctx.db,
    merchant.id,
    { paymentId: query.paymentId?.toLowerCase(), status: query.status },
    params,
  );
  return listPage(rows.map(refundView), total, params);
}

/** The refunds of one payment; 404 when the payment is not the merchant's. */
export async function listPaymentRefunds(
  ctx: Pick<RefundContext, "db">,
  merchant: Pick<Merchant, "id">,
  paymentId: string,
  query: ListPaymentRefundsQuery,
): Promise<Page<RefundRecord>> {
  // The parameters are checked first, as on every list: a bad date is 400 whatever the payment.
  parseListQuery<RefundSortField>(query, "createdAt");
  if (!isUuid(paymentId)) throw refundPaymentNotFound();
  const id = paymentId.toLowerCase();
  if (!(await isMerchantPayment(ctx.db, merchant.id, id))) throw refundPaymentNotFound();
  return listRefunds(ctx, merchant, { ...query, paymentId: id });
}

/** pending -> canceled, the hold released; anything else 400 on `status` (a processing one is with the bank). */
export async function cancelRefund(
  ctx: RefundContext,
  merchant: Pick<Merchant, "id" | "clock_offset_ms">,
  id: string,
): Promise<RefundRecord> {
  if (!isUuid(id)) throw refundNotFound();
  const refundId = id.toLowerCase();
  const row = await withTransaction(ctx.db, async (trx) => {
    const at = businessNow(ctx.clock, merchant.clock_offset_ms);
    const canceled = await moveRefund(trx, "cancel", { id: refundId, merchantId: merchant.id }, at);
    if (canceled) return canceled;
    const current = await findRefund(trx, merchant.id, refundId);
    if (!current) throw refundNotFound();
    throw refundNotCancelable(current.status);
  });
  return refundView(row);
}
