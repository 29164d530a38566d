/**
 * Every background job the service runs. `satang serve` runs them in-process; `satang worker`
 * runs only them; `satang serve --no-workers` runs none.
 */
import { webhookDeliveryJob } from "../events/delivery.ts";
import { LIFECYCLE_JOBS } from "../lifecycle/jobs.ts";
import type { Job } from "./runner.ts";

export const JOBS: Job[] = [webhookDeliveryJob, ...LIFECYCLE_JOBS];
