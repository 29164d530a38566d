/**
 * The one clock. Every business timestamp comes from `Clock.now()`; tests inject a manual
 * clock, and the sandbox test clock of a merchant is this clock plus that merchant's offset.
 * No `now()` in SQL for business rules.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

/** A clock that only moves when told to: for tests. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | number = Date.UTC(2026, 0, 15, 12, 0, 0)) {
    this.current = typeof start === "number" ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(at: Date | number): void {
    this.current = typeof at === "number" ? at : at.getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/** A merchant's business time: the clock plus the merchant's sandbox test-clock offset. */
export function businessNow(clock: Clock, offsetMs: bigint | number): Date {
  return new Date(clock.now().getTime() + Number(offsetMs));
}

/** The business time of a merchant whose clock runs `offsetMs` ahead of `now`. */
export function atOffset(now: Date, offsetMs: bigint): Date {
  return new Date(now.getTime() + Number(offsetMs));
}

export function addMinutes(at: Date, minutes: number): Date {
  return new Date(at.getTime() + minutes * 60_000);
}
