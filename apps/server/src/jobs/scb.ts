/**
 * The SCB reconciler (lifecycle/scb-collection.ts): confirmations SCB could not be asked about,
 * and live PromptPay payments whose confirmation may have been lost. It polls the database
 * every second; each payment is asked about every SCB_RECONCILE_INTERVAL_S (its own schedule).
 * Uncertain transfers are asked about by the payout reconciler, on the schedule SCB's provider
 * gives it. Without SCB it does nothing.
 */
import type { LifecycleContext } from "../lifecycle/context.ts";
import { reconcileScb } from "../lifecycle/scb-collection.ts";
import type { Job } from "./runner.ts";

/** How often the reconciler looks for due work (the database only; SCB has its own schedule). */
const SCB_RECONCILE_JOB_INTERVAL_MS = 1_000;

export const scbReconcileJob: Job<LifecycleContext> = {
  name: "scb-reconcile",
  intervalMs: SCB_RECONCILE_JOB_INTERVAL_MS,
  runOnce: (ctx) => reconcileScb(ctx),
};
