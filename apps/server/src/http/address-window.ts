/**
 * A sliding window of attempts per client address: at most `perMinute` counted in the last 60 s
 * of the wall clock. The dashboard's login limit counts every login (dashboard/login-throttle.ts),
 * the operator API counts failed tokens only (admin/auth.ts). Kept in this process's memory: with
 * several processes each counts on its own, which still bounds what each one answers.
 */
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";

const WINDOW_MS = 60_000;

export interface AddressWindow {
  /** The 429 an address over its budget gets (with when it may try again), or undefined. */
  refusal(address: string): AppError<"RATE_LIMIT_EXCEEDED"> | undefined;
  /** Counts one attempt of `address`. */
  count(address: string): void;
}

export function createAddressWindow(perMinute: number, clock: Clock, message: string): AddressWindow {
  const attempts = new Map<string, number[]>();
  let lastSweep = 0;

  const sweep = (now: number) => {
    // Addresses whose attempts all left the window are forgotten, at most once a window.
    if (now - lastSweep < WINDOW_MS) return;
    lastSweep = now;
    for (const [address, times] of attempts) {
      if ((times.at(-1) ?? 0) <= now - WINDOW_MS) attempts.delete(address);
    }
  };

  /** The address's attempts still inside the window, oldest first. */
  const recent = (address: string, now: number): number[] => {
    sweep(now);
    const times = (attempts.get(address) ?? []).filter((at) => at > now - WINDOW_MS);
    if (times.length > 0) attempts.set(address, times);
    else attempts.delete(address);
    return times;
  };

  return {
    refusal(address) {
      const now = clock.now().getTime();
      const times = recent(address, now);
      if (times.length < perMinute) return undefined;
      const resetAt = new Date((times[times.length - perMinute] ?? now) + WINDOW_MS);
      const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000));
      return new AppError("RATE_LIMIT_EXCEEDED", message, {
        limit: perMinute,
        remaining: 0,
        resetAt: resetAt.toISOString(),
        retryAfter,
      });
    },
    count(address) {
      const now = clock.now().getTime();
      const times = recent(address, now);
      times.push(now);
      attempts.set(address, times);
    },
  };
}
