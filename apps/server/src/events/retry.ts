/**
 * The retry schedule of CONTRACT 12 (Standard Webhooks'): after a failed attempt n, the next
 * one waits WEBHOOK_RETRY_DELAYS_MS[n - 1]; after attempt 10 the delivery is failed.
 *
 * Jitter spreads the retries of many deliveries that failed together (an endpoint that was down
 * for a minute) so they do not all come back in the same second. It only ever shortens a wait,
 * by a random share of up to WEBHOOK_RETRY_JITTER_FRACTION (10 %): a merchant can rely on "the
 * next attempt comes no later than the published delay", and 5 s becomes 4.5-5 s.
 */
import { WEBHOOK_RETRY_DELAYS_MS } from "../lib/limits.ts";

/** The wait after failed attempt `attempt` (from 1), or undefined when it was the last. */
export function retryDelayMs(
  attempt: number,
  random: () => number,
  jitterFraction: number,
): number | undefined {
  const nominal = WEBHOOK_RETRY_DELAYS_MS[attempt - 1];
  if (nominal === undefined) return undefined;
  const share = Math.min(Math.max(random(), 0), 1);
  return Math.round(nominal * (1 - jitterFraction * share));
}
