/**
 * Business time in the jobs' due scans: each merchant's business now is `now` plus its sandbox
 * test-clock offset (`merchants.clock_offset_ms`, 0 unless a test clock was advanced), so a row
 * is due when its time is at or before that, read through the joined `merchants` row.
 *
 * That condition alone names a column of another table, so PostgreSQL cannot bound the scan of
 * the due index (payments by `expires_at`, payouts by `next_check_at`, ...) with it: a claim
 * read every open row in index order and joined each to its merchant before it could drop it,
 * which with tens of thousands of open payments took the expiry job 50 to 400 ms every second.
 * `dueBy` adds the same comparison against the latest business now of any merchant (the
 * largest offset, one lookup of merchants_clock_offset): every row it keeps, the first
 * condition keeps too, and the scan stops where nothing can be due.
 */
import { type RawBuilder, sql } from "kysely";

/** The business now of the joined `merchants` row. */
export const businessNowSql = (now: Date): RawBuilder<Date> =>
  sql`(${now}::timestamptz + merchants.clock_offset_ms * interval '1 millisecond')`;

/** The latest business now of any merchant: `now` plus the largest test-clock offset. */
const latestBusinessNowSql = (now: Date): RawBuilder<Date> =>
  sql`(${now}::timestamptz + coalesce((SELECT max(clock_offset_ms) FROM merchants), 0) * interval '1 millisecond')`;

/**
 * `column <= business now - earlierByMs` for the joined merchant, with the index-bounding
 * comparison against the latest business now beside it.
 */
export function dueBy(column: string, now: Date, earlierByMs = 0): RawBuilder<boolean> {
  const ref = sql.ref(column);
  const earlier = earlierByMs === 0 ? sql`` : sql` - ${earlierByMs} * interval '1 millisecond'`;
  return sql<boolean>`(${ref} <= ${latestBusinessNowSql(now)}${earlier} AND ${ref} <= ${businessNowSql(now)}${earlier})`;
}

/**
 * `column + the joined merchant's settlement delay <= its business now`, bounded the same way:
 * no row is due later than the latest business now less the shortest delay of any merchant.
 */
export function dueAfterSettlementDelay(column: string, now: Date): RawBuilder<boolean> {
  const ref = sql.ref(column);
  const shortestDelay = sql`coalesce((SELECT min(settlement_delay_hours) FROM merchants), 0) * interval '1 hour'`;
  return sql<boolean>`(${ref} <= ${latestBusinessNowSql(now)} - ${shortestDelay}
    AND ${ref} + merchants.settlement_delay_hours * interval '1 hour' <= ${businessNowSql(now)})`;
}

/** A table whose rows the jobs claim, each row naming its merchant. */
type ClaimedTable = "payments" | "withdraws" | "refunds" | "payouts";

/**
 * The row's merchant (its clock offset and settlement delay), read by key for each row and
 * named `merchants` as a join would name it: a LATERAL subquery with LIMIT 1 is not flattened
 * into a join, so the plan starts from the claimed table's own index.
 */
export function merchantOfRow(table: ClaimedTable) {
  return sql<{
    clock_offset_ms: bigint;
    settlement_delay_hours: number;
    wallet_status: string;
  }>`(SELECT m.clock_offset_ms, m.settlement_delay_hours, m.wallet_status FROM merchants m
    WHERE m.id = ${sql.ref(`${table}.merchant_id`)} LIMIT 1)`.as("merchants");
}
