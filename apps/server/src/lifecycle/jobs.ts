/**
 * The lifecycle's background jobs (jobs/runner.ts). Each run claims one small batch with
 * `FOR UPDATE SKIP LOCKED` and says how many items it handled, so any number of workers can run
 * every job side by side and none takes an item another one holds.
 */
import type { Job } from "../jobs/runner.ts";
import {
  PAYMENT_EXPIRY_JOB_INTERVAL_MS,
  PAYOUT_DISPATCH_JOB_INTERVAL_MS,
  PAYOUT_RECONCILE_JOB_INTERVAL_MS,
  SETTLEMENT_JOB_INTERVAL_MS,
  VERIFICATION_EXPIRY_JOB_INTERVAL_MS,
} from "../lib/limits.ts";
import { expireDuePayments } from "./payments.ts";
import { dispatchPendingWithdraws, expireDueVerifications, reconcilePayouts } from "./payouts.ts";
import { settleDuePayments } from "./settlement.ts";

export const paymentExpiryJob: Job = {
  name: "payment-expiry",
  intervalMs: PAYMENT_EXPIRY_JOB_INTERVAL_MS,
  runOnce: (deps) => expireDuePayments(deps),
};

export const settlementJob: Job = {
  name: "settlement",
  intervalMs: SETTLEMENT_JOB_INTERVAL_MS,
  runOnce: async (deps) => (await settleDuePayments(deps)).length,
};

export const payoutDispatchJob: Job = {
  name: "payout-dispatch",
  intervalMs: PAYOUT_DISPATCH_JOB_INTERVAL_MS,
  runOnce: (deps) => dispatchPendingWithdraws(deps),
};

export const payoutReconcileJob: Job = {
  name: "payout-reconcile",
  intervalMs: PAYOUT_RECONCILE_JOB_INTERVAL_MS,
  runOnce: (deps) => reconcilePayouts(deps),
};

export const verificationExpiryJob: Job = {
  name: "withdraw-verification-expiry",
  intervalMs: VERIFICATION_EXPIRY_JOB_INTERVAL_MS,
  runOnce: (deps) => expireDueVerifications(deps),
};

export const LIFECYCLE_JOBS: readonly Job[] = [
  paymentExpiryJob,
  settlementJob,
  payoutDispatchJob,
  payoutReconcileJob,
  verificationExpiryJob,
];
