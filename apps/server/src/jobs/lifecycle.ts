/**
 * The lifecycle's background jobs (runner.ts). Each run claims one small batch with
 * `FOR UPDATE SKIP LOCKED` and says how many items it handled, so any number of workers can run
 * every job side by side and none takes an item another one holds.
 */
import {
  PAYMENT_EXPIRY_JOB_INTERVAL_MS,
  PAYOUT_DISPATCH_JOB_INTERVAL_MS,
  PAYOUT_RECONCILE_JOB_INTERVAL_MS,
  PAYOUT_UNDECIDED_ALERT_JOB_INTERVAL_MS,
  SETTLEMENT_JOB_INTERVAL_MS,
  VERIFICATION_EXPIRY_JOB_INTERVAL_MS,
} from "../lib/limits.ts";
import type { LifecycleContext } from "../lifecycle/context.ts";
import { expireDuePayments } from "../lifecycle/payments.ts";
import {
  dispatchPendingPayouts,
  expireDueVerificationsByMerchant,
  reconcilePayouts,
} from "../lifecycle/payouts.ts";
import { settleDueMerchants } from "../lifecycle/settlement.ts";
import { alertUndecided } from "../lifecycle/undecided.ts";
import type { Job } from "./runner.ts";

export const paymentExpiryJob: Job<LifecycleContext> = {
  name: "payment-expiry",
  intervalMs: PAYMENT_EXPIRY_JOB_INTERVAL_MS,
  runOnce: (ctx) => expireDuePayments(ctx),
};

export const settlementJob: Job<LifecycleContext> = {
  name: "settlement",
  intervalMs: SETTLEMENT_JOB_INTERVAL_MS,
  runOnce: (ctx) => settleDueMerchants(ctx),
};

export const payoutDispatchJob: Job<LifecycleContext> = {
  name: "payout-dispatch",
  intervalMs: PAYOUT_DISPATCH_JOB_INTERVAL_MS,
  runOnce: (ctx) => dispatchPendingPayouts(ctx),
};

export const payoutReconcileJob: Job<LifecycleContext> = {
  name: "payout-reconcile",
  intervalMs: PAYOUT_RECONCILE_JOB_INTERVAL_MS,
  runOnce: (ctx) => reconcilePayouts(ctx),
};

export const verificationExpiryJob: Job<LifecycleContext> = {
  name: "withdraw-verification-expiry",
  intervalMs: VERIFICATION_EXPIRY_JOB_INTERVAL_MS,
  runOnce: (ctx) => expireDueVerificationsByMerchant(ctx),
};

/** Payouts undecided past PAYOUT_UNDECIDED_ALERT_S, logged at error once each (CONTRACT 15). */
export const payoutUndecidedAlertJob: Job<LifecycleContext> = {
  name: "payout-undecided-alert",
  intervalMs: PAYOUT_UNDECIDED_ALERT_JOB_INTERVAL_MS,
  runOnce: (ctx, log) => alertUndecided(ctx, log),
};

export const LIFECYCLE_JOBS: readonly Job<LifecycleContext>[] = [
  paymentExpiryJob,
  settlementJob,
  payoutDispatchJob,
  payoutReconcileJob,
  verificationExpiryJob,
  payoutUndecidedAlertJob,
];
