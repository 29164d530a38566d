/**
 * SCB speaks Bangkok time: `channelDateTime` is "YYYY-MM-DDThh:mm:ss.sss+07:00", inquiry dates
 * are Bangkok calendar dates, and QR 30 confirmations carry GMT+7 times.
 */
import { BANGKOK_OFFSET_MS } from "../../lib/bangkok-time.ts";

/** "2026-01-15T19:00:00.000+07:00" for 12:00 UTC. */
export function channelDateTime(at: Date): string {
  const local = new Date(at.getTime() + BANGKOK_OFFSET_MS).toISOString();
  return `${local.slice(0, 23)}+07:00`;
}

export { addDays, bangkokDate, bangkokDatesBetween } from "../../lib/bangkok-time.ts";

/**
 * Reads a time SCB printed, in every form its pages and answers show: ISO 8601 extended
 * ("2026-01-15T19:00:00", with a space instead of the T, with fractions of a second, with an
 * offset "Z", "+07:00" or "+0700") and basic ("20260115T190000", "20260115190000"). With an
 * offset it is taken as written; without one it is Bangkok time (QR 30 times are "in GMT+7").
 * Null when unreadable.
 */
export function parseScbTime(text: string): Date | null {
  const trimmed = text.trim();
  const extended =
    /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(
      trimmed,
    );
  const basic =
    /^(\d{4})(\d{2})(\d{2})T?(\d{2})(\d{2})(\d{2})?(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/i.exec(trimmed);
  const parts = extended ?? basic;
  if (!parts) return null;
  const [, year, month, day, hour, minute, second = "00", fraction = "", zone] = parts;
  const offset =
    zone === undefined
      ? "+07:00"
      : zone.toUpperCase() === "Z"
        ? "Z"
        : zone.replace(/^([+-]\d{2}):?(\d{2})$/, "$1:$2");
  const millis = fraction === "" ? "" : `.${fraction.padEnd(3, "0").slice(0, 3)}`;
  const iso = `${year}-${month}-${day}T${hour}:${minute}:${second}${millis}${offset}`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls impossible fields over (a 31st of February); refuse them instead.
  const local = new Date(ms + (offset === "Z" ? 0 : offsetMs(offset))).toISOString();
  if (local.slice(0, 19) !== `${year}-${month}-${day}T${hour}:${minute}:${second}`) return null;
  return new Date(ms);
}

function offsetMs(offset: string): number {
  const sign = offset.startsWith("-") ? -1 : 1;
  return sign * (Number(offset.slice(1, 3)) * 3_600_000 + Number(offset.slice(4, 6)) * 60_000);
}
