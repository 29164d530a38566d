/**
 * A sliding window of attempts per client address: at most `perMinute` counted in the last 60 s
 * of the wall clock. The dashboard's login limit counts every login (dashboard/login-throttle.ts);
 * the operator API counts failed tokens only, through a gate that also bounds the checks in
 * flight (`createFailureGate`, admin/auth.ts). Kept in this process's memory: with several
 * processes each counts on its own, which still bounds what each one answers.
 */
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";

const WINDOW_MS = 60_000;

export interface AddressWindow {
  /** The 429 an address over its budget gets (with when it may try again), or undefined. */
  refusal(address: string): AppError<"RATE_LIMIT_EXCEEDED"> | undefined;
  /** Counts one attempt of `address`. */
  count(address: string): void;
  /** The attempts of `address` inside the window now. */
  attempts(address: string): number;
}

/** One address's attempts inside the window, oldest first, from `head` on. */
interface Attempts {
  times: number[];
  head: number;
}

/** The 429 of a window of `perMinute` whose oldest counted attempt is `oldest`. */
function refusalAfter(perMinute: number, oldest: number, now: number, message: string) {
  const resetAt = new Date(oldest + WINDOW_MS);
  const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000));
  return new AppError("RATE_LIMIT_EXCEEDED", message, {
    limit: perMinute,
    remaining: 0,
    resetAt: resetAt.toISOString(),
    retryAfter,
  });
}

/** The 429 an address that filled a window of `perMinute` just now gets (the OpenAPI example). */
export function fullWindowRefusal(
  perMinute: number,
  now: Date,
  message: string,
): AppError<"RATE_LIMIT_EXCEEDED"> {
  return refusalAfter(perMinute, now.getTime(), now.getTime(), message);
}

export function createAddressWindow(perMinute: number, clock: Clock, message: string): AddressWindow {
  const attempts = new Map<string, Attempts>();
  let lastSweep = 0;

  const sweep = (now: number) => {
    // Addresses whose attempts all left the window are forgotten, at most once a window.
    if (now - lastSweep < WINDOW_MS) return;
    lastSweep = now;
    for (const [address, { times }] of attempts) {
      if ((times.at(-1) ?? 0) <= now - WINDOW_MS) attempts.delete(address);
    }
  };

  /**
   * The address's attempts, those that left the window dropped from the front: each attempt is
   * stored and dropped once, so counting costs the same at a limit of 20 as of 1,000,000.
   */
  const recent = (address: string, now: number): Attempts | undefined => {
    sweep(now);
    const held = attempts.get(address);
    if (!held) return undefined;
    const { times } = held;
    while (held.head < times.length && times[held.head]! <= now - WINDOW_MS) held.head++;
    if (held.head === times.length) {
      attempts.delete(address);
      return undefined;
    }
    if (held.head >= 1024 && held.head * 2 >= times.length) {
      times.splice(0, held.head);
      held.head = 0;
    }
    return held;
  };
  const countOf = (held: Attempts | undefined) => (held ? held.times.length - held.head : 0);

  return {
    refusal(address) {
      const now = clock.now().getTime();
      const held = recent(address, now);
      if (!held || countOf(held) < perMinute) return undefined;
      return refusalAfter(perMinute, held.times[held.times.length - perMinute] ?? now, now, message);
    },
    count(address) {
      const now = clock.now().getTime();
      const held = recent(address, now);
      // Kept in order although the wall clock may step back: an attempt is never older than the
      // one counted before it, so the front is always the oldest.
      if (held) held.times.push(Math.max(now, held.times.at(-1)!));
      else attempts.set(address, { times: [now], head: 0 });
    },
    attempts(address) {
      return countOf(recent(address, clock.now().getTime()));
    },
  };
}

/** Checks of a credential whose failures are limited per address (`createFailureGate`). */
export interface FailureGate {
  /**
   * Runs `accepts` for a request of `address` and answers what it answered, counting a false as
   * a failure; throws the window's 429 when the address's failures fill it.
   */
  run(address: string, accepts: () => Promise<boolean>): Promise<boolean>;
}

/**
 * At most `perMinute` failed checks per address in a sliding minute, however many arrive at
 * once: a check runs only while the address's failures in the window and its checks in flight
 * together stay under the limit. One more waits for a check of the address in flight to end
 * (a lookup bounded by the store's own waits), then is refused if the failures filled the
 * window, or runs. Without the wait, a burst of wrong tokens sent together would all be checked
 * before the first of them was counted.
 */
export function createFailureGate(perMinute: number, clock: Clock, message: string): FailureGate {
  const window = createAddressWindow(perMinute, clock, message);
  const inFlight = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();

  const wake = (address: string) => {
    const waiters = waiting.get(address);
    waiting.delete(address);
    for (const resume of waiters ?? []) resume();
  };
  const turn = async (address: string) => {
    for (;;) {
      const refusal = window.refusal(address);
      if (refusal) throw refusal;
      // Under the limit with nothing refused, a check that must wait has one in flight to wait for.
      if (window.attempts(address) + (inFlight.get(address) ?? 0) < perMinute) break;
      await new Promise<void>((resume) => {
        const waiters = waiting.get(address);
        if (waiters) waiters.push(resume);
        else waiting.set(address, [resume]);
      });
    }
    inFlight.set(address, (inFlight.get(address) ?? 0) + 1);
  };

  return {
    async run(address, accepts) {
      await turn(address);
      try {
        let accepted: boolean;
        try {
          accepted = await accepts();
        } catch (error) {
          // A check the store could not answer counts as a failure: uncounted, a wrong token
          // would cost nothing while the store is down, and a token compared in memory (the
          // configured ADMIN_TOKEN) would still be told apart from it by its answer.
          window.count(address);
          throw error;
        }
        if (!accepted) window.count(address);
        return accepted;
      } finally {
        const left = (inFlight.get(address) ?? 1) - 1;
        if (left > 0) inFlight.set(address, left);
        else inFlight.delete(address);
        wake(address);
      }
    },
  };
}
