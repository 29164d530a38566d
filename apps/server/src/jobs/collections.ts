/**
 * The collections jobs, for every connector of the deployment that collects (lifecycle/
 * collections.ts). Without one they do nothing.
 *
 * - `collections-reconcile`: notices whose provider could not be asked, and live payments whose
 *   notice may have been lost. It polls the database every second; each payment is asked about
 *   on its own schedule (the reconcile interval of providers/registry.ts, backing off).
 *   Uncertain transfers are asked about by the payout reconciler, on the schedule each
 *   connector's `Provider` gives it.
 * - `collections-sweep` (lifecycle/collections-sweep.ts): once a Bangkok date has ended (and an
 *   hour more), asks the connectors that sweep about every reference issued in the week before
 *   its end on that date, one batch per run, every 30 seconds: the sweep's share of a provider's
 *   inquiry stays bounded.
 */
import type { CollectionsContext } from "../lifecycle/collections.ts";
import { reconcileCollectionsOnce } from "../lifecycle/collections.ts";
import { sweepCollections } from "../lifecycle/collections-sweep.ts";
import type { Job } from "./runner.ts";

/** How often the reconciler looks for due work (the database only; each payment has its own schedule). */
const COLLECTIONS_RECONCILE_JOB_INTERVAL_MS = 1_000;

export const collectionsReconcileJob: Job<CollectionsContext> = {
  name: "collections-reconcile",
  intervalMs: COLLECTIONS_RECONCILE_JOB_INTERVAL_MS,
  runOnce: (ctx) => reconcileCollectionsOnce(ctx),
};

/** How often the sweep looks for a date to sweep (its work is a batch per run while it finds some). */
const COLLECTIONS_SWEEP_JOB_INTERVAL_MS = 30_000;

export const collectionsSweepJob: Job<CollectionsContext> = {
  name: "collections-sweep",
  intervalMs: COLLECTIONS_SWEEP_JOB_INTERVAL_MS,
  // One batch per interval (answering 0 keeps the runner from running it again at once).
  runOnce: async (ctx) => {
    await sweepCollections(ctx);
    return 0;
  },
};
