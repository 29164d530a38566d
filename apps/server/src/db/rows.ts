/**
 * Rows read together with their merchant's sandbox clock offset, in the same statement: a
 * merchant's business time is the service clock plus that offset (lib/clock.ts).
 */

/** A row and the clock offset of its merchant. */
export interface WithOffset<T> {
  row: T;
  offsetMs: bigint;
}

/** Splits the `clock_offset_ms` column a query joined from merchants off each row. */
export function withOffsets<T extends { clock_offset_ms: bigint }>(
  rows: T[],
): WithOffset<Omit<T, "clock_offset_ms">>[] {
  return rows.map(({ clock_offset_ms, ...row }) => ({ row, offsetMs: clock_offset_ms }));
}
