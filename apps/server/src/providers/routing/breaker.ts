/**
 * A circuit breaker per connector (CONTRACT 15, docs/providers/routing.md). New payments skip a
 * connector whose recent calls fail or time out, and the connector comes back by itself:
 *
 * - closed: every call goes through; `failuresMax` failures within `windowMs` open it.
 * - open: no call goes through until `cooldownMs` has passed since it opened.
 * - half-open: one call (the probe) goes through; its success closes the breaker, its failure
 *   opens it again for another cool-down. Other calls are refused while the probe is out.
 *
 * `observe` takes any call's outcome, so calls made elsewhere (the reconciler's inquiries) count
 * as well as the router's instructs. Time comes from the injected clock.
 */
import type { Clock } from "../../lib/clock.ts";
import {
  CONNECTOR_BREAKER_COOLDOWN_MS,
  CONNECTOR_BREAKER_FAILURES_MAX,
  CONNECTOR_BREAKER_WINDOW_MS,
} from "../../lib/limits.ts";

export type BreakerState = "closed" | "half_open" | "open";

/** The gauge `satang_connector_breaker_state`: 0 closed, 1 half-open, 2 open. */
export const BREAKER_STATE_GAUGE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

export interface BreakerOptions {
  clock: Clock;
  /** Told when the breaker opens (`true`) or closes (`false`): shared.ts records it for the other processes. */
  onChange?: (open: boolean) => void;
  failuresMax?: number;
  windowMs?: number;
  cooldownMs?: number;
}

export class CircuitBreaker {
  private readonly clock: Clock;
  private readonly onChange: ((open: boolean) => void) | undefined;
  readonly failuresMax: number;
  readonly windowMs: number;
  readonly cooldownMs: number;
  /** When each failure counted while closed happened (ms), oldest first; never more than failuresMax. */
  private failures: number[] = [];
  private openedAtMs: number | null = null;
  /** When the half-open probe was let through, or null when none is out. */
  private probeAtMs: number | null = null;

  constructor(options: BreakerOptions) {
    this.clock = options.clock;
    this.onChange = options.onChange;
    this.failuresMax = options.failuresMax ?? CONNECTOR_BREAKER_FAILURES_MAX;
    this.windowMs = options.windowMs ?? CONNECTOR_BREAKER_WINDOW_MS;
    this.cooldownMs = options.cooldownMs ?? CONNECTOR_BREAKER_COOLDOWN_MS;
    if (!(this.failuresMax >= 1 && this.windowMs > 0 && this.cooldownMs > 0)) {
      throw new Error("a breaker needs at least one failure, a window and a cool-down");
    }
  }

  state(): BreakerState {
    if (this.openedAtMs === null) return "closed";
    return this.clock.now().getTime() - this.openedAtMs >= this.cooldownMs ? "half_open" : "open";
  }

  /**
   * Whether a call may go to the connector now. Half-open lets exactly one probe through; a probe
   * whose outcome never arrives is given up after another cool-down, so the breaker cannot stick.
   */
  tryAcquire(): boolean {
    const state = this.state();
    if (state === "closed") return true;
    if (state === "open") return false;
    const now = this.clock.now().getTime();
    if (this.probeAtMs !== null && now - this.probeAtMs < this.cooldownMs) return false;
    this.probeAtMs = now;
    return true;
  }

  /** Records one call's outcome: a timeout or an `unavailable` answer is `false`. */
  observe(ok: boolean): void {
    const now = this.clock.now().getTime();
    const state = this.state();
    if (state === "half_open") {
      if (ok) this.close();
      else this.open(now);
      return;
    }
    // While open, only the probe decides: outcomes of calls started before it opened are stale.
    if (state === "open" || ok) return;
    this.failures = this.failures.filter((at) => now - at < this.windowMs);
    this.failures.push(now);
    if (this.failures.length >= this.failuresMax) this.open(now);
  }

  private open(now: number): void {
    this.openedAtMs = now;
    this.probeAtMs = null;
    this.failures = [];
    this.onChange?.(true);
  }

  private close(): void {
    this.openedAtMs = null;
    this.probeAtMs = null;
    this.failures = [];
    this.onChange?.(false);
  }
}
