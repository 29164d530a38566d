/**
 * The per-address login limit: one client address may attempt LOGIN_PER_ADDRESS_PER_MINUTE
 * logins per minute, counted in a sliding window of the last 60 s, whatever the emails; one
 * more gets 429 RATE_LIMIT_EXCEEDED with Retry-After. It comes before the per-email lockout
 * (lockout.ts) and before any password check, so an address trying many emails is stopped
 * without costing argon2 work. The count is kept in this process's memory: with several
 * processes each counts on its own, which still bounds the work each one does.
 */
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";

const WINDOW_MS = 60_000;

export interface LoginThrottle {
  /** Counts one attempt of `address`, or throws 429 without counting it. */
  admit(address: string): void;
}

export function createLoginThrottle(perMinute: number, clock: Clock): LoginThrottle {
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

  return {
    admit(address) {
      const now = clock.now().getTime();
      sweep(now);
      const times = (attempts.get(address) ?? []).filter((at) => at > now - WINDOW_MS);
      if (times.length >= perMinute) {
        attempts.set(address, times);
        const resetAt = new Date((times[times.length - perMinute] ?? now) + WINDOW_MS);
        const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000));
        throw new AppError("RATE_LIMIT_EXCEEDED", "Too many logins from this address; retry later", {
          limit: perMinute,
          remaining: 0,
          resetAt: resetAt.toISOString(),
          retryAfter,
        });
      }
      times.push(now);
      attempts.set(address, times);
    },
  };
}
