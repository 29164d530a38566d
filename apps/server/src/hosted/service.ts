/**
 * What the hosted payment page knows about a payment, and the two things its script does: read
 * the live status, and (sandbox only) act as the customer paying.
 *
 * The page needs only the payment id, as `paymentAppUrl` is `{PUBLIC_BASE_URL}/pay/{id}`
 * (CONTRACT 6): whoever holds the link sees what the customer sees, like Stripe's hosted pages,
 * and the status route answers no more than the page itself shows. In sandbox the link's holder
 * may also press the button that pays (CONTRACT 9); in live that route does not exist. The page
 * also accepts the payment's client secret (CONTRACT 6), in the link's fragment (`#cs=...`,
 * which browsers do not send to the server), and its script then sends it in the
 * `X-Client-Secret` header: a secret that is sent is checked, in constant time, and a wrong one
 * is refused.
 */
import type { Db } from "../db/handles.ts";
import type { PaymentMethod, PaymentRow, PaymentStatus } from "../db/types.ts";
import { type Bank, findBank } from "../lib/bank-codes.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { safeEqual } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { formatAmount } from "../lib/money.ts";
import type { LifecycleContext } from "../lifecycle/context.ts";
import { simulatePayment } from "../lifecycle/payments.ts";
import { qrPng } from "../payments/qr.ts";
import { findHostedPayment } from "./store.ts";

/**
 * What the customer is shown, coarser than the payment status: the customer only cares
 * whether to pay, wait, or stop.
 */
const PAGE_STATES = ["open", "processing", "succeeded", "expired", "canceled", "failed"] as const;
export type PageState = (typeof PAGE_STATES)[number];

const FINAL_PAGE_STATES: readonly PageState[] = ["succeeded", "expired", "canceled", "failed"];

function isFinalPageState(state: PageState): boolean {
  return FINAL_PAGE_STATES.includes(state);
}

/**
 * The state to show for a status at business time `now`. An open payment whose `expiresAt`
 * has passed shows as expired even before the expiry worker has marked it: the customer must
 * not be invited to pay a payment that can no longer succeed in time.
 */
function pageStateOf(status: PaymentStatus, expiresAt: Date | null, now: Date): PageState {
  switch (status) {
    case "requires_payment_method":
    case "requires_confirmation":
    case "requires_action":
      return expiresAt !== null && expiresAt.getTime() <= now.getTime() ? "expired" : "open";
    case "processing":
    case "requires_capture":
      return "processing";
    case "succeeded":
      return "succeeded";
    case "expired":
      return "expired";
    case "canceled":
      return "canceled";
    case "payment_failed":
      return "failed";
  }
}

interface BankTransferDetails {
  /** Undefined for a code missing from lib/bank-codes.ts: the page then shows the code. */
  bank: Bank | undefined;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  reference: string;
}

export interface HostedPayment {
  id: string;
  merchantId: string;
  merchantName: string;
  amountSatang: bigint;
  /** The merchant's reference for the payment (`referenceId`), shown to the customer. */
  referenceId: string;
  /** The merchant's description of what is paid for: merchant input, escaped wherever shown. */
  description: string | null;
  /** When the payment succeeded (its `capturedAt`), for the receipt; null until it has. */
  paidAt: Date | null;
  status: PaymentStatus;
  state: PageState;
  paymentMethod: PaymentMethod | null;
  expiresAt: Date | null;
  /**
   * The real (wall-clock) time at which the countdown reaches zero: `expiresAt` less the
   * merchant's sandbox test-clock offset. "Pay before" shows this, so it agrees with the
   * countdown even when the merchant's clock runs ahead (CONTRACT 10).
   */
  payBefore: Date | null;
  /** The merchant's business time when this was read: the page counts down from it. */
  now: Date;
  /** How far the merchant's sandbox test clock runs ahead of real time, in whole seconds. */
  clockOffsetSeconds: number;
  clientSecret: string;
  hasQr: boolean;
  /**
   * The QR image the payment's connector made, shown instead of our own QR while the
   * payment is open; null when the QR is drawn from the payload (or there is none).
   */
  qrImageUrl: string | null;
  bankTransfer: BankTransferDetails | null;
}

/**
 * The body of the status route: this payment's state and what its receipt needs beyond the
 * page (the paid time); no other payment's data, no merchant data, no keys.
 */
interface HostedStatus {
  id: string;
  status: PaymentStatus;
  state: PageState;
  final: boolean;
  amount: string;
  currency: "THB";
  expiresAt: string | null;
  /** The real time the countdown reaches zero ("Pay before"); moves when the merchant's test clock does. */
  payBefore: string | null;
  /** When the payment succeeded: the receipt's paid time. Null until it has. */
  paidAt: string | null;
  now: string;
}

/** What the page reads with: the database and the business clock (the countdown). */
interface HostedContext {
  db: Db;
  clock: Clock;
}

const paymentNotFound = () => new AppError("RESOURCE_NOT_FOUND", "Payment not found");
const wrongSecret = () => new AppError("INVALID_CREDENTIALS", "X-Client-Secret is missing or does not match");

function bankTransferOf(row: PaymentRow): BankTransferDetails | null {
  if (
    row.payment_method !== "bank_transfer" ||
    row.bank_transfer_reference === null ||
    row.transfer_bank_code === null ||
    row.transfer_account_number === null ||
    row.transfer_account_name === null
  ) {
    return null;
  }
  return {
    bank: findBank(row.transfer_bank_code),
    bankCode: row.transfer_bank_code,
    accountNumber: row.transfer_account_number,
    accountName: row.transfer_account_name,
    reference: row.bank_transfer_reference,
  };
}

export async function loadHostedPayment(ctx: HostedContext, id: string): Promise<HostedPayment> {
  // A malformed id cannot name a payment: the same 404 as a missing one.
  if (!isUuid(id)) throw paymentNotFound();
  const found = await findHostedPayment(ctx.db, id);
  if (!found) throw paymentNotFound();
  const { payment, merchantName, clockOffsetMs } = found;
  const now = businessNow(ctx.clock, clockOffsetMs);
  const state = pageStateOf(payment.status, payment.expires_at, now);
  return {
    id: payment.id,
    merchantId: payment.merchant_id,
    merchantName,
    amountSatang: payment.amount_satang,
    referenceId: payment.reference_id,
    description: payment.description,
    paidAt: payment.status === "succeeded" ? payment.captured_at : null,
    status: payment.status,
    state,
    paymentMethod: payment.payment_method,
    expiresAt: payment.expires_at,
    payBefore:
      payment.expires_at === null ? null : new Date(payment.expires_at.getTime() - Number(clockOffsetMs)),
    now,
    clockOffsetSeconds: Number(clockOffsetMs / 1000n),
    clientSecret: payment.client_secret,
    hasQr: payment.qr_payload !== null && state === "open",
    qrImageUrl: payment.qr_image_url !== null && state === "open" ? payment.qr_image_url : null,
    bankTransfer: bankTransferOf(payment),
  };
}

/**
 * Loads the payment and checks the caller's client secret when one was sent (undefined: none),
 * in time independent of its content.
 */
async function authorized(
  ctx: HostedContext,
  id: string,
  clientSecret: string | undefined,
): Promise<HostedPayment> {
  const payment = await loadHostedPayment(ctx, id);
  if (clientSecret !== undefined && !safeEqual(clientSecret, payment.clientSecret)) throw wrongSecret();
  return payment;
}

function statusOf(payment: HostedPayment): HostedStatus {
  return {
    id: payment.id,
    status: payment.status,
    state: payment.state,
    final: isFinalPageState(payment.state),
    amount: formatAmount(payment.amountSatang),
    currency: "THB",
    expiresAt: payment.expiresAt === null ? null : payment.expiresAt.toISOString(),
    payBefore: payment.payBefore === null ? null : payment.payBefore.toISOString(),
    paidAt: payment.paidAt === null ? null : payment.paidAt.toISOString(),
    now: payment.now.toISOString(),
  };
}

export async function getHostedStatus(
  ctx: HostedContext,
  id: string,
  clientSecret: string | undefined,
): Promise<HostedStatus> {
  return statusOf(await authorized(ctx, id, clientSecret));
}

/**
 * The sandbox button: the customer "pays" through the same lifecycle call as the merchant's
 * sandbox simulate route, so the page, the ledger and the events see one and the same success.
 * The caller (the route) exists only in sandbox.
 */
export async function simulateHostedPayment(
  ctx: LifecycleContext,
  id: string,
  clientSecret: string | undefined,
): Promise<HostedStatus> {
  const payment = await authorized(ctx, id, clientSecret);
  await simulatePayment(ctx, payment.merchantId, payment.id, "succeeded");
  return statusOf(await loadHostedPayment(ctx, id));
}

/**
 * The QR image of a payment that can still be paid. A final payment has no QR any more, so a
 * customer holding an old link cannot pay a canceled or expired payment.
 */
export async function hostedQrPng(ctx: { db: Db; clock: Clock }, id: string): Promise<Buffer> {
  if (!isUuid(id)) throw paymentNotFound();
  const found = await findHostedPayment(ctx.db, id);
  if (!found) throw paymentNotFound();
  const { payment, clockOffsetMs } = found;
  // Past its expiresAt an open payment is not offered, as the page stops offering it at the
  // deadline, before the expiry job has marked it.
  const state = pageStateOf(payment.status, payment.expires_at, businessNow(ctx.clock, clockOffsetMs));
  if (payment.qr_payload === null || isFinalPageState(state)) {
    throw new AppError("RESOURCE_NOT_FOUND", "QR code not found");
  }
  return qrPng(payment.qr_payload);
}
