/**
 * Background work. Each job is a function that claims a batch of due work (with
 * `FOR UPDATE SKIP LOCKED`, so any number of workers in any number of processes can run it),
 * processes it, and says how many items it handled. The runner calls each job on its interval
 * and again at once while it keeps finding work.
 *
 * A run that fails for an expected database condition (unreachable, a failover under way, a
 * bound hit: db/faults.ts, the conditions requests answer 503 for) is logged as a warning
 * without a stack, and the job runs again on its interval; any other failure is an error.
 */
import { databaseFault } from "../db/faults.ts";

/** A background job over the context `C` it runs with (the process's dependencies satisfy it). */
export interface Job<C = never> {
  name: string;
  /** Pause between runs when the previous run found nothing to do. */
  intervalMs: number;
  /**
   * Claims and processes one batch of due work; returns how many items it handled. `log` is the
   * process's logger, for a job whose work is to raise an alert.
   */
  runOnce(ctx: C, log?: JobLogger): Promise<number>;
  /**
   * For a job whose runs start work that outlives them (webhook sends): waits until that work
   * is finished, so a stop does not close the store under it.
   */
  drain?(ctx: C): Promise<void>;
  /**
   * For a job that learns of new work without polling (finished webhook sends free slots):
   * waits up to `ms` after every run, returning sooner when there is work. Without it the
   * runner runs again at once after a run that handled something, and sleeps `intervalMs`
   * after one that found nothing.
   */
  idle?(ctx: C, ms: number): Promise<void>;
}

export interface JobLogger {
  error(details: object, message: string): void;
  warn?(details: object, message: string): void;
}

/**
 * The code of an error, or of the first error it wraps (`cause`, AggregateError) that has one;
 * null when none has (pg's "Connection terminated unexpectedly" carries no SQLSTATE).
 */
function codeWithin(error: unknown, depth = 0): string | null {
  if (error === null || typeof error !== "object" || depth > 4) return null;
  const own = (error as { code?: unknown }).code;
  if (typeof own === "string") return own;
  for (const inner of error instanceof AggregateError ? error.errors : []) {
    const code = codeWithin(inner, depth + 1);
    if (code !== null) return code;
  }
  return codeWithin((error as { cause?: unknown }).cause, depth + 1);
}

/** Logs a failed run: a warning for an expected database condition, an error otherwise. */
export function logJobFailure(log: JobLogger, job: string, err: unknown): void {
  const fault = databaseFault(err);
  if (fault && log.warn) {
    const error = err instanceof Error ? err.message : String(err);
    log.warn({ job, fault, code: codeWithin(err), error }, "background job waits for the database");
    return;
  }
  log.error({ err, job }, "background job failed");
}

export interface RunningWorkers {
  stop(): Promise<void>;
}

export function startWorkers<C>(ctx: C, jobs: readonly Job<C>[], log: JobLogger): RunningWorkers {
  let stopping = false;
  const loops = jobs.map(async (job) => {
    while (!stopping) {
      let handled = 0;
      try {
        handled = await job.runOnce(ctx, log);
      } catch (err) {
        logJobFailure(log, job.name, err);
      }
      if (stopping) break;
      // A job with `idle` knows when it has work again (its claim took all it could); the
      // others run again at once while they find work.
      if (job.idle) await job.idle(ctx, job.intervalMs);
      else if (handled === 0) await sleep(job.intervalMs, () => stopping);
      // The embedded store can answer without a turn of the event loop: a job working through a
      // backlog still lets the requests waiting for one run between its batches.
      else await new Promise((resolve) => setImmediate(resolve));
    }
  });
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
      await Promise.all(jobs.map((job) => job.drain?.(ctx)));
    },
  };
}

/** Sleeps in short steps so a stop request is noticed quickly. */
async function sleep(ms: number, stopped: () => boolean): Promise<void> {
  const step = 100;
  for (let waited = 0; waited < ms && !stopped(); waited += step) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(step, ms - waited)));
  }
}
