/**
 * SCB speaks Bangkok time: `channelDateTime` is "YYYY-MM-DDThh:mm:ss.sss+07:00", inquiry dates
 * are Bangkok calendar dates, and QR 30 confirmations carry GMT+7 times.
 */
import { BANGKOK_OFFSET_MS } from "./limits.ts";

/** "2026-01-15T19:00:00.000+07:00" for 12:00 UTC. */
export function channelDateTime(at: Date): string {
  const local = new Date(at.getTime() + BANGKOK_OFFSET_MS).toISOString();
  return `${local.slice(0, 23)}+07:00`;
}

/** The Bangkok calendar date of an instant: "2026-01-15". */
export function bangkokDate(at: Date): string {
  return new Date(at.getTime() + BANGKOK_OFFSET_MS).toISOString().slice(0, 10);
}

/** Every Bangkok date from `from` to `to` (both included), oldest first. */
export function bangkokDatesBetween(from: Date, to: Date): string[] {
  const dates: string[] = [];
  const last = bangkokDate(to);
  for (let at = from.getTime(); ; at += 86_400_000) {
    const date = bangkokDate(new Date(at));
    if (date > last) break;
    dates.push(date);
    if (date === last) break;
  }
  return dates;
}

/** The date `days` after a "YYYY-MM-DD" date. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Reads a time SCB printed. ISO 8601 with an offset is taken as written; without one it is
 * Bangkok time (QR 30 times are "in GMT+7"). Null when unreadable.
 */
export function parseScbTime(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(text)) return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}+07:00`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? null : new Date(ms);
}
