/**
 * The row offset of a list page: (page - 1) * limit, capped where the product stops being an
 * exact integer. Any page number from 1 up is accepted (CONTRACT 11: a page beyond the last is
 * 200 with `data: []` and the true totals); a page so far out that its offset passes the cap
 * starts past every row all the same, so it is empty too.
 */
export function pageOffset(page: number, limit: number): number {
  return Math.min((page - 1) * limit, Number.MAX_SAFE_INTEGER);
}
