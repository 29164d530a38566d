/**
 * The webhook delivery worker (a background job, jobs/index.ts).
 *
 * Each run claims due deliveries (events/store.ts `claimDueDeliveries`: SKIP LOCKED plus a
 * lease, so any number of workers in any number of processes share the queue), starts sending
 * each one, and returns without waiting for the sends. The sends run in the background,
 * bounded by `maxInFlight` per process and `perEndpointInFlight` per endpoint, so one slow or
 * hanging endpoint occupies a few slots for at most one timeout and never holds up a batch:
 * the next run claims more as soon as slots free up.
 *
 * At least once: a delivery row commits with its event (the outbox), and it leaves `pending`
 * only when an attempt is recorded. A process that dies between the commit and the send, or
 * halfway through a send, leaves the row pending (its lease runs out), and the next worker
 * sends it.
 *
 * Times: `webhook-timestamp`, retry times and leases come from the wall clock
 * (`deps.wallClock`), never the business clock, so a sandbox test clock moves neither.
 */
import type { Deps } from "../deps.ts";
import type { Job } from "../jobs/runner.ts";
import { newId } from "../lib/ids.ts";
import { WEBHOOK_LEASE_MARGIN_MS, WEBHOOK_POLL_INTERVAL_MS } from "../lib/limits.ts";
import { retryDelayMs } from "./retry.ts";
import { postWebhook } from "./sender.ts";
import { type WebhookSettings, webhookSettings } from "./settings.ts";
import { webhookHeaders } from "./signing.ts";
import { type ClaimedDelivery, cancelClaimedDelivery, claimDueDeliveries, recordAttempt } from "./store.ts";
import { eventBody } from "./view.ts";

/** Errors of background sends kept for the next run to report; older ones are dropped. */
const REPORTED_FAILURES_MAX = 10;

export class DeliveryDispatcher {
  private readonly running = new Set<Promise<void>>();
  private readonly failures: unknown[] = [];

  constructor(private readonly deps: Deps) {}

  get inFlight(): number {
    return this.running.size;
  }

  /**
   * Claims what fits in the free slots and starts sending it. Returns how many were claimed.
   * A failure to record a background send (the database went away) surfaces here, on the next
   * run, so the job runner logs it; the delivery itself is retried when its lease runs out.
   */
  async dispatch(): Promise<number> {
    if (this.failures.length > 0) {
      const failures = this.failures.splice(0);
      throw new AggregateError(failures, "webhook delivery could not record an attempt");
    }
    const settings = webhookSettings(this.deps);
    const capacity = settings.maxInFlight - this.running.size;
    if (capacity <= 0) return 0;
    const now = this.deps.wallClock.now();
    const claimed = await claimDueDeliveries(this.deps.db, {
      now,
      leaseId: newId(),
      leasedUntil: new Date(now.getTime() + settings.timeoutMs + WEBHOOK_LEASE_MARGIN_MS),
      capacity,
      perEndpoint: settings.perEndpointInFlight,
    });
    for (const delivery of claimed) {
      const task: Promise<void> = this.deliver(delivery, settings)
        .catch((error: unknown) => {
          this.failures.push(error);
          if (this.failures.length > REPORTED_FAILURES_MAX) this.failures.shift();
        })
        .finally(() => this.running.delete(task));
      this.running.add(task);
    }
    return claimed.length;
  }

  /** Waits until every send started so far is recorded. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private secretsFor(delivery: ClaimedDelivery, at: Date): string[] {
    const secrets = [this.deps.secrets.open(delivery.secretEncrypted)];
    if (
      delivery.previousSecretEncrypted !== null &&
      delivery.previousSecretExpiresAt !== null &&
      delivery.previousSecretExpiresAt > at
    ) {
      secrets.push(this.deps.secrets.open(delivery.previousSecretEncrypted));
    }
    return secrets;
  }

  private async deliver(delivery: ClaimedDelivery, settings: WebhookSettings): Promise<void> {
    const { deps } = this;
    if (delivery.endpointDeleted) {
      await cancelClaimedDelivery(deps.db, delivery.id, delivery.leaseId, deps.wallClock.now());
      return;
    }
    const startedAt = deps.wallClock.now();
    const body = eventBody({
      id: delivery.eventId,
      type: delivery.eventType,
      created_at: delivery.eventCreatedAt,
      data: delivery.eventData,
    });
    const headers = webhookHeaders(this.secretsFor(delivery, startedAt), delivery.eventId, startedAt, body);
    const outcome = await postWebhook({
      url: delivery.url,
      body,
      headers,
      policy: settings,
      resolve: settings.resolve,
      timeoutMs: settings.timeoutMs,
    });
    const finishedAt = deps.wallClock.now();
    const delay = outcome.succeeded
      ? undefined
      : retryDelayMs(delivery.attemptNumber, settings.random, settings.jitterFraction);
    await recordAttempt(deps.db, {
      deliveryId: delivery.id,
      leaseId: delivery.leaseId,
      attemptId: newId(),
      attemptNumber: delivery.attemptNumber,
      succeeded: outcome.succeeded,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      startedAt,
      finishedAt,
      nextRetryAt: delay === undefined ? null : new Date(finishedAt.getTime() + delay),
    });
  }
}

/** One dispatcher per Deps: the slots it counts are this process's in-flight sends. */
const dispatchers = new WeakMap<Deps, DeliveryDispatcher>();

export function dispatcherFor(deps: Deps): DeliveryDispatcher {
  let dispatcher = dispatchers.get(deps);
  if (!dispatcher) {
    dispatcher = new DeliveryDispatcher(deps);
    dispatchers.set(deps, dispatcher);
  }
  return dispatcher;
}

/**
 * Claims the deliveries due now, sends them, and waits until each is recorded: one run of the
 * worker, finished. Tests and one-off tools use it; the job itself does not wait.
 */
export async function deliverDueWebhooks(deps: Deps): Promise<number> {
  const dispatcher = dispatcherFor(deps);
  const claimed = await dispatcher.dispatch();
  await dispatcher.drain();
  return claimed;
}

export const webhookDeliveryJob: Job = {
  name: "webhook-delivery",
  intervalMs: WEBHOOK_POLL_INTERVAL_MS,
  runOnce: (deps) => dispatcherFor(deps).dispatch(),
  drain: (deps) => dispatcherFor(deps).drain(),
};
