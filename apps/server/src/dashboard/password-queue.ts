/**
 * The bounded queue in front of password checks (argon2id, about 150 ms of CPU each): at most
 * `running` checks run at once in this process and at most `waiting` wait for a turn; a login
 * beyond that is refused at once with 503 SERVICE_UNAVAILABLE and Retry-After, so a flood of
 * logins can never take the CPU the signed API needs. Turns are handed out in arrival order.
 */
import { AppError } from "../lib/errors.ts";

/** Seconds a refused login is told to wait: a full queue drains within about one second. */
export const PASSWORD_QUEUE_RETRY_AFTER_S = 1;

export interface PasswordQueue {
  /** Runs `check` when a turn is free; throws 503 at once when the queue is full. */
  run<T>(check: () => Promise<T>): Promise<T>;
  /** Checks running now. */
  inFlight(): number;
  /** The most checks that ever ran at once in this queue. */
  peakInFlight(): number;
  /** Logins waiting for a turn now. */
  waiting(): number;
}

export function createPasswordQueue(limits: { running: number; waiting: number }): PasswordQueue {
  let running = 0;
  let peak = 0;
  const queue: Array<() => void> = [];

  const start = () => {
    running += 1;
    peak = Math.max(peak, running);
  };
  const finish = () => {
    const next = queue.shift();
    // The turn passes straight to the next waiting login, so `running` never dips and rises.
    if (next) next();
    else running -= 1;
  };
  const turn = (): Promise<void> => {
    if (running < limits.running) {
      start();
      return Promise.resolve();
    }
    if (queue.length >= limits.waiting) {
      return Promise.reject(
        new AppError("SERVICE_UNAVAILABLE", "Too many logins are being checked; retry shortly", {
          reason: "busy",
          retryAfter: PASSWORD_QUEUE_RETRY_AFTER_S,
        }),
      );
    }
    return new Promise((resolve) => queue.push(resolve));
  };

  return {
    async run(check) {
      await turn();
      try {
        return await check();
      } finally {
        finish();
      }
    },
    inFlight: () => running,
    peakInFlight: () => peak,
    waiting: () => queue.length,
  };
}

const queues = new WeakMap<object, PasswordQueue>();

/**
 * The one queue of a process's dependencies: every app built over the same `owner` shares it,
 * and tests read its counts through the same call.
 */
export function passwordQueueOf(owner: object, limits: { running: number; waiting: number }): PasswordQueue {
  let queue = queues.get(owner);
  if (!queue) {
    queue = createPasswordQueue(limits);
    queues.set(owner, queue);
  }
  return queue;
}
