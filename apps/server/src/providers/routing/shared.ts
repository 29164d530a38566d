/**
 * Breakers shared between processes (docs/providers/routing.md, "Several processes"). Each
 * process keeps its own breakers (breaker.ts); when one opens or closes, the process records it
 * (connector_breakers), and every process reads what the others recorded at most once every
 * SHARED_BREAKER_REFRESH_MS, in the background: a create never waits for it.
 *
 * A connector some process recorded open within SHARED_BREAKER_HOLD_MS is skipped by the routers
 * of the other processes while their own breaker of it is closed. The process that opened it
 * probes it (its breaker goes half-open after the cool-down) and records the outcome: closed
 * when the connector answers again, open again (renewed) when it does not. So the API processes
 * of a deployment whose worker alone asks the reconciling questions skip a connector the worker
 * found down, and take it back once the worker finds it up, or once the hold runs out. A record
 * made before this process started does not count: a restarted process does not take its own
 * breaker's last state for another's (its breakers start closed), and one renewed since does.
 */
import type { Db } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import { SHARED_BREAKER_HOLD_MS, SHARED_BREAKER_REFRESH_MS } from "../../lib/limits.ts";
import { openBreakersSince, recordBreaker } from "./store.ts";

/** What a router asks of the shared breakers. */
export interface SharedBreakerView {
  /** Whether another process recorded `connector` open within the hold (the last read). */
  isOpen(connector: string): boolean;
  /** Records this process's breaker of `connector` opening or closing. */
  record(connector: string, open: boolean): void;
}

export interface SharedBreakersOptions {
  db: Db;
  clock: Clock;
  /** Where a failed read or write is told; it never fails a create. */
  onError?: (error: unknown) => void;
  holdMs?: number;
  refreshMs?: number;
}

export class SharedBreakers implements SharedBreakerView {
  /** The connectors recorded open as last read, each with when it was recorded. */
  private open = new Map<string, number>();
  /**
   * When this process began: a record from before it (its own, written before a restart, or
   * another process's not renewed since) does not count; this process's breakers start closed.
   */
  private readonly startedAtMs: number;
  /** What this process recorded itself: its own breaker decides those, not the row it wrote. */
  private readonly own = new Map<string, boolean>();
  private readAtMs = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;
  private readonly holdMs: number;
  private readonly refreshMs: number;

  constructor(private readonly options: SharedBreakersOptions) {
    this.holdMs = options.holdMs ?? SHARED_BREAKER_HOLD_MS;
    this.refreshMs = options.refreshMs ?? SHARED_BREAKER_REFRESH_MS;
    this.startedAtMs = options.clock.now().getTime();
  }

  isOpen(connector: string): boolean {
    this.refreshSoon();
    if (this.own.get(connector) === true) return false;
    const recordedAtMs = this.open.get(connector);
    // Within the hold as of now, not only as of the last read (which may be minutes old).
    return recordedAtMs !== undefined && this.options.clock.now().getTime() - recordedAtMs < this.holdMs;
  }

  record(connector: string, open: boolean): void {
    this.own.set(connector, open);
    if (!open) this.open.delete(connector);
    recordBreaker(this.options.db, connector, open, this.options.clock.now()).catch((error) =>
      this.options.onError?.(error),
    );
  }

  /** Reads the recorded breakers now (tests, and the first read of a process). */
  async refresh(): Promise<void> {
    const now = this.options.clock.now();
    this.readAtMs = now.getTime();
    const since = Math.max(now.getTime() - this.holdMs, this.startedAtMs);
    const open = await openBreakersSince(this.options.db, new Date(since));
    this.open = new Map(open.map(({ connector, changedAt }) => [connector, changedAt.getTime()]));
    // A row this process wrote open and another closed since: this process no longer owns it.
    for (const [connector, ownOpen] of this.own)
      if (ownOpen && !this.open.has(connector)) this.own.delete(connector);
  }

  private refreshSoon(): void {
    if (this.reading || this.options.clock.now().getTime() - this.readAtMs < this.refreshMs) return;
    this.reading = this.refresh()
      .catch((error) => this.options.onError?.(error))
      .finally(() => {
        this.reading = null;
      });
  }
}
