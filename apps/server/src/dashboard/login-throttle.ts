/**
 * The per-address login limit: one client address may attempt LOGIN_PER_ADDRESS_PER_MINUTE
 * logins per minute, counted in a sliding window of the last 60 s, whatever the emails; one
 * more gets 429 RATE_LIMIT_EXCEEDED with Retry-After. It comes before the per-email lockout
 * (lockout.ts) and before any password check, so an address trying many emails is stopped
 * without costing argon2 work. The count is kept in this process's memory (http/address-window.ts).
 */
import { createAddressWindow } from "../http/address-window.ts";
import type { Clock } from "../lib/clock.ts";

export interface LoginThrottle {
  /** Counts one attempt of `address`, or throws 429 without counting it. */
  admit(address: string): void;
}

export function createLoginThrottle(perMinute: number, clock: Clock): LoginThrottle {
  const window = createAddressWindow(perMinute, clock, "Too many logins from this address; retry later");
  return {
    admit(address) {
      const refusal = window.refusal(address);
      if (refusal) throw refusal;
      window.count(address);
    },
  };
}
