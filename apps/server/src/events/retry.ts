/**
 * The retry schedule of CONTRACT 12: a delivery whose first attempt failed is retried 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after that first try (WEBHOOK_RETRY_OFFSETS_MS,
 * timed from the end of attempt 1); after attempt 10 it is failed.
 *
 * Jitter spreads the retries of many deliveries that failed together (an endpoint that was down
 * for a minute) so they do not all come back in the same second. It only ever brings a retry
 * forward, by a random share of up to WEBHOOK_RETRY_JITTER_FRACTION (10 %) of its step (the time
 * since the retry before it on the schedule): a merchant can rely on "no attempt later than the
 * published time", and the first retry comes 4.5-5 s after the first try, the last 23.6-24 h.
 *
 * A retry whose time has already passed when the attempt before it ends (the service was stopped
 * for hours, or a slow endpoint's attempts ran long) comes one first step (5 s, jittered) after
 * that attempt: missed retries follow each other at that pace rather than all at once.
 */
import { WEBHOOK_RETRY_OFFSETS_MS } from "../lib/limits.ts";

export interface RetryInput {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** When the first attempt ended (for attempt 1, `finishedAt`). */
  firstTriedAt: Date;
  /** When the failed attempt ended. */
  finishedAt: Date;
  /** A number in [0, 1) drawn for the jitter. */
  random: () => number;
  jitterFraction: number;
}

/** When the next attempt is due after failed attempt `attempt`, or undefined when it was the last. */
export function nextRetryAt(input: RetryInput): Date | undefined {
  const offset = WEBHOOK_RETRY_OFFSETS_MS[input.attempt - 1];
  if (offset === undefined) return undefined;
  const share = Math.min(Math.max(input.random(), 0), 1) * input.jitterFraction;
  const step = offset - (WEBHOOK_RETRY_OFFSETS_MS[input.attempt - 2] ?? 0);
  const firstStep = WEBHOOK_RETRY_OFFSETS_MS[0];
  const scheduled = input.firstTriedAt.getTime() + offset - Math.round(step * share);
  const earliest = input.finishedAt.getTime() + firstStep - Math.round(firstStep * share);
  return new Date(Math.max(scheduled, earliest));
}
