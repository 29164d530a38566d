/**
 * Every background job the service runs. `satang serve` runs them in-process; `satang worker`
 * runs only them; `satang serve --no-workers` runs none.
 */
import type { DeliveryDispatcher } from "../events/delivery.ts";
import type { LifecycleContext } from "../lifecycle/context.ts";
import type { ExchangeRetentionContext } from "../providers/scb/exchanges.ts";
import { keptTotalsFoldJob } from "./kept-totals.ts";
import { LIFECYCLE_JOBS } from "./lifecycle.ts";
import type { Job } from "./runner.ts";
import { scbExchangeRetentionJob, scbReconcileJob, scbSweepJob } from "./scb.ts";
import { webhookDeliveryJob } from "./webhooks.ts";

/** What the jobs run with: the process's dependencies satisfy it. */
type JobsContext = LifecycleContext & ExchangeRetentionContext & { dispatcher: DeliveryDispatcher };

export const JOBS: readonly Job<JobsContext>[] = [
  webhookDeliveryJob,
  ...LIFECYCLE_JOBS,
  scbReconcileJob,
  scbSweepJob,
  keptTotalsFoldJob,
  scbExchangeRetentionJob,
];
