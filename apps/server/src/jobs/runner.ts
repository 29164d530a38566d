/**
 * Background work. Each job is a function that claims a batch of due work (with
 * `FOR UPDATE SKIP LOCKED`, so any number of workers in any number of processes can run it),
 * processes it, and says how many items it handled. The runner calls each job on its interval
 * and again at once while it keeps finding work.
 */
import type { Deps } from "../deps.ts";

export interface Job {
  name: string;
  /** Pause between runs when the previous run found nothing to do. */
  intervalMs: number;
  /** Claims and processes one batch of due work; returns how many items it handled. */
  runOnce(deps: Deps): Promise<number>;
  /**
   * For a job whose runs start work that outlives them (webhook sends): waits until that work
   * is finished, so a stop does not close the store under it.
   */
  drain?(deps: Deps): Promise<void>;
}

export interface JobLogger {
  error(details: object, message: string): void;
}

export interface RunningWorkers {
  stop(): Promise<void>;
}

export function startWorkers(deps: Deps, jobs: readonly Job[], log: JobLogger): RunningWorkers {
  let stopping = false;
  const loops = jobs.map(async (job) => {
    while (!stopping) {
      let handled = 0;
      try {
        handled = await job.runOnce(deps);
      } catch (err) {
        log.error({ err, job: job.name }, "background job failed");
      }
      if (stopping) break;
      if (handled === 0) await sleep(job.intervalMs, () => stopping);
    }
  });
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
      await Promise.all(jobs.map((job) => job.drain?.(deps)));
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
