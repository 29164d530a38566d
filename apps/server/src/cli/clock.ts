/**
 * The merchant's sandbox test clock from the command line (`satang clock`), and what `satang
 * trigger` uses to put the clock back where it found it. The clock is read and moved through
 * the public sandbox routes with the merchant's API key, like the merchant's own code would.
 */
import type { SandboxClock, Satang } from "@satang/sdk";
import { CLOCK_ADVANCE_SECONDS_MAX } from "../lib/limits.ts";

const UNITS: Array<[name: string, seconds: number]> = [
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
  ["second", 1],
];

/** "5 minutes 1 second": a whole number of seconds in words, largest units first. */
export function durationText(totalSeconds: number): string {
  let rest = totalSeconds;
  const parts: string[] = [];
  for (const [name, size] of UNITS) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${name}${count === 1 ? "" : "s"}`);
  }
  return parts.length === 0 ? "0 seconds" : parts.join(" ");
}

/** Where the clock stands relative to real time, in words. */
export function offsetText(offsetSeconds: number): string {
  return offsetSeconds === 0 ? "at real time" : `${durationText(offsetSeconds)} ahead of real time`;
}

export function clockLine(clock: SandboxClock): string {
  return `Test clock: ${clock.now} (${offsetText(clock.offsetSeconds)})`;
}

/**
 * Brings the merchant's clock back to `offsetSeconds` ahead of real time: a reset, then, when the
 * clock ran ahead before, forward again in steps the API accepts. Moving forward does the work
 * that falls due, but none can: the clock ends earlier than where it was moved from.
 */
export async function restoreClock(satang: Satang, offsetSeconds: number): Promise<SandboxClock> {
  let clock = await satang.sandbox.resetClock();
  let rest = offsetSeconds;
  while (rest > 0) {
    const step = Math.min(rest, CLOCK_ADVANCE_SECONDS_MAX);
    clock = await satang.sandbox.advanceClock(step);
    rest -= step;
  }
  return clock;
}
