/**
 * Every background job the service runs. `satang serve` runs them in-process; `satang worker`
 * runs only them; `satang serve --no-workers` runs none.
 */
import type { DeliveryDispatcher } from "../events/delivery.ts";
import type { CollectionsContext } from "../lifecycle/collections.ts";
import { CONNECTOR_JOBS, type ConnectorJobsContext } from "../providers/registry.ts";
import { collectionsReconcileJob, collectionsSweepJob } from "./collections.ts";
import { keptTotalsFoldJob } from "./kept-totals.ts";
import { LIFECYCLE_JOBS } from "./lifecycle.ts";
import type { Job } from "./runner.ts";
import { webhookDeliveryJob } from "./webhooks.ts";

/** What the jobs run with: the process's dependencies satisfy it. */
type JobsContext = CollectionsContext & ConnectorJobsContext & { dispatcher: DeliveryDispatcher };

export const JOBS: readonly Job<JobsContext>[] = [
  webhookDeliveryJob,
  ...LIFECYCLE_JOBS,
  collectionsReconcileJob,
  collectionsSweepJob,
  keptTotalsFoldJob,
  ...CONNECTOR_JOBS,
];
