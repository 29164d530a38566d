/**
 * Conditions on a fixed set of values from the code (statuses, a payment method) written into
 * the statement as literals rather than sent as parameters.
 *
 * Named prepared statements (db/prepared.ts) are planned once per connection and, after a few
 * runs, PostgreSQL may keep a generic plan: one made without the parameters' values. A generic
 * plan cannot prove that `status IN ($1, $2, $3)` implies a partial index's
 * `WHERE status IN ('a', 'b', 'c')`, so it cannot use the index, and for a merchant with a
 * hundred thousand rows it reads them all (the payout guard did: bench R6). With the values in
 * the text, every plan can use the partial index. For sets fixed in the code only, never for
 * request input (those stay parameters).
 */
import { type RawBuilder, sql } from "kysely";

/** `column IN ('a', 'b', ...)`, the values as literals. */
export function inFixedSet(column: string, values: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} in (${sql.join(values.map((value) => sql.lit(value)))})`;
}

/** `column = 'value'`, the value as a literal. */
export function isFixedValue(column: string, value: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} = ${sql.lit(value)}`;
}

/** `column <> 'value'`, the value as a literal. */
export function isNotFixedValue(column: string, value: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} <> ${sql.lit(value)}`;
}
