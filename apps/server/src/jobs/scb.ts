/**
 * The SCB jobs.
 *
 * - `scb-reconcile` (lifecycle/scb-collection.ts): confirmations SCB could not be asked about,
 *   and live PromptPay payments whose confirmation may have been lost. It polls the database
 *   every second; each payment is asked about every SCB_RECONCILE_INTERVAL_S (its own schedule).
 *   Uncertain transfers are asked about by the payout reconciler, on the schedule SCB's provider
 *   gives it. Without SCB it does nothing.
 * - `scb-daily-sweep` (lifecycle/scb-sweep.ts): once a Bangkok date has ended (and an hour
 *   more), asks SCB about every reference issued in the week before its end on that date, one
 *   batch per run, every 30 seconds: the sweep's share of SCB's inquiry stays bounded.
 * - `scb-exchange-retention` (providers/scb/exchanges.ts): deletes recorded exchanges older than
 *   SCB_EXCHANGE_RETENTION_DAYS, a batch per run and again at once while it finds some, then
 *   looks again an hour later. It runs whatever the provider, so exchanges recorded before SCB
 *   was switched off are trimmed too.
 */
import { PROVIDER_EXCHANGE_RETENTION_JOB_INTERVAL_MS } from "../lib/limits.ts";
import type { LifecycleContext } from "../lifecycle/context.ts";
import { reconcileScb } from "../lifecycle/scb-collection.ts";
import { sweepScbDate } from "../lifecycle/scb-sweep.ts";
import { type ExchangeRetentionContext, pruneScbExchanges } from "../providers/scb/exchanges.ts";
import type { Job } from "./runner.ts";

/** How often the reconciler looks for due work (the database only; SCB has its own schedule). */
const SCB_RECONCILE_JOB_INTERVAL_MS = 1_000;

export const scbReconcileJob: Job<LifecycleContext> = {
  name: "scb-reconcile",
  intervalMs: SCB_RECONCILE_JOB_INTERVAL_MS,
  runOnce: (ctx) => reconcileScb(ctx),
};

/** How often the sweep looks for a date to sweep (its work is a batch per run while it finds some). */
const SCB_SWEEP_JOB_INTERVAL_MS = 30_000;

export const scbSweepJob: Job<LifecycleContext> = {
  name: "scb-daily-sweep",
  intervalMs: SCB_SWEEP_JOB_INTERVAL_MS,
  // One batch per interval (answering 0 keeps the runner from running it again at once).
  runOnce: async (ctx) => {
    await sweepScbDate(ctx);
    return 0;
  },
};

export const scbExchangeRetentionJob: Job<ExchangeRetentionContext> = {
  name: "scb-exchange-retention",
  intervalMs: PROVIDER_EXCHANGE_RETENTION_JOB_INTERVAL_MS,
  runOnce: (ctx) => pruneScbExchanges(ctx),
};
