/**
 * The service's business days are Bangkok calendar dates (Asia/Bangkok, GMT+7, no daylight
 * saving): the daily sweep of what connectors show paid, and the operator's daily report.
 */

/** Thailand's time zone offset. */
export const BANGKOK_OFFSET_MS = 7 * 3_600_000;

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

/** The instant a Bangkok date starts. */
export function bangkokDayStart(date: string): Date {
  return new Date(Date.parse(`${date}T00:00:00Z`) - BANGKOK_OFFSET_MS);
}
