/**
 * The webhook delivery worker (a background job, jobs/index.ts).
 *
 * Each run claims due deliveries (events/store.ts `claimDueDeliveries`: SKIP LOCKED plus a
 * lease, so any number of workers in any number of processes share the queue), starts sending
 * each one, and returns without waiting for the sends. The sends run in the background,
 * bounded by `maxInFlight` per process and by each endpoint's adaptive limit
 * (events/concurrency.ts), so one slow or hanging endpoint occupies a few slots for at most one
 * timeout and never holds up a batch. A finished send wakes the job at once (`idle`), so a
 * backlog drains as fast as the receivers answer, not at the pace of the poll.
 *
 * Leases are short (WEBHOOK_LEASE_MS) and renewed every WEBHOOK_LEASE_RENEW_MS while a send is
 * in flight, so the deliveries of a process that dies are taken over by another worker within
 * seconds, and a send that takes its full timeout keeps its lease meanwhile.
 *
 * At least once: a delivery row commits with its event (the outbox), and it leaves `pending`
 * only when an attempt is recorded. A process that dies between the commit and the send, or
 * halfway through a send, leaves the row pending (its lease runs out), and the next worker
 * sends it. A worker stalled longer than a lease (its heartbeat could not run) may see another
 * worker send the same delivery meanwhile; the receiver dedupes by `webhook-id`.
 *
 * Times: `webhook-timestamp`, retry times and leases come from the wall clock
 * (`wallClock`), never the business clock, so a sandbox test clock moves neither.
 *
 * A process has one dispatcher, built by the composition root (deps.ts): the slots it counts,
 * the per-endpoint limits it learns and the connections it keeps are that process's.
 */
import type { Db } from "../db/handles.ts";
import type { Clock } from "../lib/clock.ts";
import type { SecretBox } from "../lib/crypto.ts";
import { newId } from "../lib/ids.ts";
import { loadSignalOf } from "./attempt-errors.ts";
import { AdaptiveConcurrency } from "./concurrency.ts";
import { ConnectionPools } from "./connections.ts";
import { AttemptRecorder } from "./recorder.ts";
import { nextRetryAt } from "./retry.ts";
import { postWebhook } from "./sender.ts";
import type { WebhookSettings } from "./settings.ts";
import { webhookHeaders } from "./signing.ts";
import { type ClaimedDelivery, cancelClaimedDelivery, claimDueDeliveries, renewLeases } from "./store.ts";
import { eventBody } from "./view.ts";

/** Errors of background sends kept for the next run to report; older ones are dropped. */
const REPORTED_FAILURES_MAX = 10;

/** What a dispatcher sends with: the database, real time, the sealed secrets, the settings. */
interface DispatcherContext {
  db: Db;
  wallClock: Clock;
  secrets: SecretBox;
  webhooks: WebhookSettings;
}

export class DeliveryDispatcher {
  private readonly running = new Map<Promise<void>, ClaimedDelivery>();
  private readonly failures: unknown[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly limits: AdaptiveConcurrency;
  private readonly connections = new ConnectionPools();
  private readonly recorder: AttemptRecorder;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Sends in flight right after the last claim, and how many of them finished since. */
  private inFlightAfterClaim = 0;
  private finishedSinceClaim = 0;

  constructor(private readonly deps: DispatcherContext) {
    this.limits = new AdaptiveConcurrency(deps.webhooks.perEndpoint);
    this.recorder = new AttemptRecorder(deps.db);
  }

  get inFlight(): number {
    return this.running.size;
  }

  /** The current concurrency limit of an endpoint in this process. */
  limitOf(endpointId: string): number {
    return this.limits.limitOf(endpointId);
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
    const settings = this.deps.webhooks;
    const capacity = settings.maxInFlight - this.running.size;
    if (capacity <= 0) return 0;
    const now = this.deps.wallClock.now();
    const claimed = await claimDueDeliveries(this.deps.db, {
      now,
      leaseId: newId(),
      leasedUntil: new Date(now.getTime() + settings.leaseMs),
      capacity,
      perEndpoint: settings.perEndpoint.initial,
      endpointLimits: this.limits.adjusted(),
    });
    for (const delivery of claimed) {
      const task: Promise<void> = this.deliver(delivery, settings)
        .catch((error: unknown) => this.reportFailure(error))
        .finally(() => this.finished(task));
      this.running.set(task, delivery);
    }
    this.inFlightAfterClaim = this.running.size;
    this.finishedSinceClaim = 0;
    if (claimed.length > 0) this.startHeartbeat();
    return claimed.length;
  }

  /**
   * Waits up to `ms` before the next run: less when half the sends in flight have finished
   * (slots are free, and the backlog they came from may have more) or `wake` is called.
   */
  idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  /** Ends every `idle` wait now. */
  wake(): void {
    for (const done of [...this.waiters]) done();
  }

  /** Waits until every send started so far is recorded. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.keys()]);
  }

  /** Drains, then closes the kept-alive connections (at shutdown). */
  async close(): Promise<void> {
    await this.drain();
    this.connections.close();
  }

  /**
   * A send is recorded: its slot is free. The next claim waits until half of what was in flight
   * after the last one has finished (or all of it), so a busy worker claims in batches rather
   * than one row per finished send.
   */
  private finished(task: Promise<void>): void {
    this.running.delete(task);
    this.finishedSinceClaim += 1;
    if (this.running.size === 0) this.stopHeartbeat();
    if (this.running.size === 0 || this.finishedSinceClaim * 2 >= this.inFlightAfterClaim) this.wake();
  }

  private reportFailure(error: unknown): void {
    this.failures.push(error);
    if (this.failures.length > REPORTED_FAILURES_MAX) this.failures.shift();
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(() => {
      const held = [...this.running.values()].map(({ id, leaseId }) => ({ id, leaseId }));
      const until = new Date(this.deps.wallClock.now().getTime() + this.deps.webhooks.leaseMs);
      renewLeases(this.deps.db, held, until).catch((error: unknown) => this.reportFailure(error));
    }, this.deps.webhooks.leaseRenewMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
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
    const secrets = this.secretsFor(delivery, startedAt);
    const headers = webhookHeaders(secrets, delivery.eventId, startedAt, body);
    const ticket = this.limits.started(delivery.endpointId);
    const outcome = await postWebhook({
      url: delivery.url,
      body,
      headers,
      policy: settings,
      resolve: settings.resolve,
      timeoutMs: settings.timeoutMs,
      connections: this.connections,
      redact: secrets.flatMap(secretSpellings),
    });
    this.limits.finished(delivery.endpointId, ticket, loadSignalOf(outcome, settings.perEndpoint.fastMs));
    const finishedAt = deps.wallClock.now();
    const retryAt = outcome.succeeded
      ? undefined
      : nextRetryAt({
          attempt: delivery.attemptNumber,
          firstTriedAt: delivery.firstTriedAt ?? finishedAt,
          finishedAt,
          random: settings.random,
          jitterFraction: settings.jitterFraction,
        });
    await this.recorder.record({
      deliveryId: delivery.id,
      leaseId: delivery.leaseId,
      attemptId: newId(),
      attemptNumber: delivery.attemptNumber,
      succeeded: outcome.succeeded,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      error: outcome.error,
      errorCode: outcome.errorCode,
      responseExcerpt: outcome.responseExcerpt,
      startedAt,
      finishedAt,
      nextRetryAt: retryAt ?? null,
    });
  }
}

/**
 * The ways a receiver may write an endpoint's secret back in its answer, each blanked out of the
 * stored excerpt: as given, its key alone, the key's bytes in hex (either case) and base64url, and
 * each of those URL-encoded.
 */
function secretSpellings(secret: string): string[] {
  const key = secret.replace(/^whsec_/, "");
  const bytes = Buffer.from(key, "base64");
  const hex = bytes.toString("hex");
  const plain = [secret, key, hex, hex.toUpperCase(), bytes.toString("base64url")];
  return [...new Set([...plain, ...plain.map(encodeURIComponent)])];
}

/**
 * Claims the deliveries due now, sends them, and waits until each is recorded: one run of the
 * worker, finished. Tests and one-off tools use it; the job itself does not wait.
 */
export async function deliverDueWebhooks(ctx: { dispatcher: DeliveryDispatcher }): Promise<number> {
  const { dispatcher } = ctx;
  const claimed = await dispatcher.dispatch();
  await dispatcher.drain();
  return claimed;
}
