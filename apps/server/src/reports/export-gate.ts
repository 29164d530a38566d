/**
 * The bounds on CSV exports in one process (CONTRACT 11 and 14: one merchant's exports must not
 * take the CPU, the database or the event loop from other merchants).
 *
 * - Admission: at most EXPORTS_PER_MERCHANT_MAX exports of one merchant stream at once (the next
 *   one is refused at once with 429 RATE_LIMIT_EXCEEDED), and at most EXPORTS_OPEN_MAX of all
 *   merchants together (the next one gets 503 SERVICE_UNAVAILABLE, reason `busy`). Both carry
 *   Retry-After. An export holds its place from its first read until its stream closes (the
 *   last byte was taken, the client went away, or a read failed).
 * - Turns: each batch read (one query, then its rows turned into CSV text) waits for one of
 *   EXPORT_READS_RUNNING_MAX turns, handed out in arrival order, so open exports take turns
 *   batch by batch and never hold more than that many database connections (on the embedded
 *   store: never more than that many places in the one connection's queue) or that much CPU.
 *   Between two batches an export gives the event loop back (`setImmediate`), so the requests
 *   of other merchants that arrived meanwhile run before it reads again.
 *
 * A stalled client costs no CPU and no connection: its export waits, with one batch in memory,
 * until the client takes it.
 */
import { setImmediate as nextTurnOfEventLoop } from "node:timers/promises";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import {
  EXPORT_READS_RUNNING_MAX,
  EXPORT_RETRY_AFTER_S,
  EXPORTS_OPEN_MAX,
  EXPORTS_PER_MERCHANT_MAX,
} from "../lib/limits.ts";

export interface ExportGateLimits {
  perMerchant: number;
  open: number;
  readsRunning: number;
}

export const EXPORT_GATE_LIMITS: ExportGateLimits = {
  perMerchant: EXPORTS_PER_MERCHANT_MAX,
  open: EXPORTS_OPEN_MAX,
  readsRunning: EXPORT_READS_RUNNING_MAX,
};

/** One admitted export: its reads take turns; `close` gives its place back (idempotent). */
export interface ExportSlot {
  read<T>(work: () => Promise<T>): Promise<T>;
  close(): void;
}

export interface ExportGate {
  /** Admits an export of `merchantId`, or throws 429 / 503 at once. */
  open(merchantId: string, clock: Clock): ExportSlot;
  /** Exports streaming now: all of them, or one merchant's. */
  openCount(merchantId?: string): number;
  /**
   * The most exports open and batch reads running at once since the last call (then the count
   * starts again from now's), for tests and the reliability probe.
   */
  takePeaks(): { open: number; reads: number };
}

/** The 429 of a merchant already streaming its most exports at once. */
export function exportsPerMerchantExceeded(now: Date): AppError<"RATE_LIMIT_EXCEEDED"> {
  return new AppError(
    "RATE_LIMIT_EXCEEDED",
    `At most ${EXPORTS_PER_MERCHANT_MAX} exports of one merchant may stream at once; retry in ${EXPORT_RETRY_AFTER_S} s`,
    {
      limit: EXPORTS_PER_MERCHANT_MAX,
      remaining: 0,
      resetAt: new Date(now.getTime() + EXPORT_RETRY_AFTER_S * 1000).toISOString(),
      retryAfter: EXPORT_RETRY_AFTER_S,
    },
  );
}

/** The 503 of a process already streaming its most exports at once. */
export function exportsBusy(): AppError<"SERVICE_UNAVAILABLE"> {
  return new AppError("SERVICE_UNAVAILABLE", "Too many exports are streaming; retry shortly", {
    reason: "busy",
    retryAfter: EXPORT_RETRY_AFTER_S,
  });
}

/** A FIFO semaphore of `max` turns. */
function createTurns(max: number) {
  let running = 0;
  let peak = 0;
  const waiting: Array<() => void> = [];
  const take = (): Promise<void> => {
    if (running < max) {
      running += 1;
      peak = Math.max(peak, running);
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const give = () => {
    const next = waiting.shift();
    // The turn passes straight to the next reader, so `running` never dips and rises.
    if (next) next();
    else running -= 1;
  };
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      await take();
      try {
        return await work();
      } finally {
        give();
      }
    },
    running: () => running,
    takePeak: () => {
      const seen = peak;
      peak = running;
      return seen;
    },
  };
}

export function createExportGate(limits: ExportGateLimits = EXPORT_GATE_LIMITS): ExportGate {
  const perMerchant = new Map<string, number>();
  let open = 0;
  let peakOpen = 0;
  const turns = createTurns(limits.readsRunning);

  const admit = (merchantId: string, clock: Clock) => {
    const mine = perMerchant.get(merchantId) ?? 0;
    if (mine >= limits.perMerchant) throw exportsPerMerchantExceeded(clock.now());
    if (open >= limits.open) throw exportsBusy();
    perMerchant.set(merchantId, mine + 1);
    open += 1;
    peakOpen = Math.max(peakOpen, open);
  };
  const leave = (merchantId: string) => {
    const mine = (perMerchant.get(merchantId) ?? 1) - 1;
    if (mine > 0) perMerchant.set(merchantId, mine);
    else perMerchant.delete(merchantId);
    open -= 1;
  };

  return {
    open(merchantId, clock) {
      admit(merchantId, clock);
      let closed = false;
      return {
        read: async (work) => {
          await nextTurnOfEventLoop();
          return turns.run(work);
        },
        close: () => {
          if (closed) return;
          closed = true;
          leave(merchantId);
        },
      };
    },
    openCount: (merchantId) => (merchantId === undefined ? open : (perMerchant.get(merchantId) ?? 0)),
    takePeaks: () => {
      const seen = { open: peakOpen, reads: turns.takePeak() };
      peakOpen = open;
      return seen;
    },
  };
}

const gates = new WeakMap<object, ExportGate>();

/**
 * The one gate of a process's dependencies: the API's and the dashboard's export routes, built
 * over the same `owner`, share it, and tests read its counts through the same call.
 */
export function exportGateOf(owner: object): ExportGate {
  let gate = gates.get(owner);
  if (!gate) {
    gate = createExportGate();
    gates.set(owner, gate);
  }
  return gate;
}
