/**
 * The capacity a merchant's withdraws use per UTC day, kept by the database, so the daily and
 * monthly limit check of a create reads at most a month of day rows instead of summing every
 * withdraw of the month (withdraws/limits.ts).
 *
 * The same shape as the list counts (0050_list_counts): statement-level triggers on `withdraws`
 * append what a statement changed to `withdraw_day_changes` (merchant, UTC day of creation,
 * satang: +amount for a withdraw that enters the counted statuses, -amount for one that leaves
 * them), taking no lock a create waits for; the `kept-totals-fold` job folds the changes into
 * `withdraw_day_totals` in one statement. The used capacity of a window is the sum of both
 * tables over its days, exact whether or not the fold has run.
 *
 * Counted statuses: awaiting_verification, pending, processing and paid (LIMIT_COUNTED_STATUSES
 * in withdraws/statuses.ts; test/withdraws/day-totals.test.ts holds the two to one set).
 */
const COUNTED = `('awaiting_verification', 'pending', 'processing', 'paid')`;

/** The satang a row contributes: its amount when its status counts, else nothing. */
function used(row: string): string {
  return `CASE WHEN ${row}status IN ${COUNTED} THEN ${row}amount_satang ELSE 0 END`;
}

/** The UTC day a row was created on. */
function dayOf(row: string): string {
  return `(${row}created_at AT TIME ZONE 'UTC')::date`;
}

export const statements: string[] = [
  `CREATE TABLE withdraw_day_totals (
    merchant_id uuid NOT NULL,
    day date NOT NULL,
    amount_satang bigint NOT NULL,
    PRIMARY KEY (merchant_id, day)
  )`,
  `CREATE TABLE withdraw_day_changes (
    id bigserial PRIMARY KEY,
    merchant_id uuid NOT NULL,
    day date NOT NULL,
    amount_satang bigint NOT NULL
  )`,
  `CREATE INDEX withdraw_day_changes_merchant_day ON withdraw_day_changes (merchant_id, day)`,
  `CREATE FUNCTION withdraws_day_totals() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO withdraw_day_changes (merchant_id, day, amount_satang)
        SELECT merchant_id, ${dayOf("")}, sum(${used("")}) FROM new_rows
        GROUP BY 1, 2 HAVING sum(${used("")}) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
      INSERT INTO withdraw_day_changes (merchant_id, day, amount_satang)
        SELECT merchant_id, ${dayOf("")}, -sum(${used("")}) FROM old_rows
        GROUP BY 1, 2 HAVING sum(${used("")}) <> 0;
    ELSE
      INSERT INTO withdraw_day_changes (merchant_id, day, amount_satang)
        SELECT merchant_id, day, sum(delta) FROM (
          SELECT o.merchant_id, ${dayOf("o.")} AS day, -(${used("o.")}) AS delta
            FROM old_rows o JOIN new_rows n ON n.id = o.id
          UNION ALL
          SELECT n.merchant_id, ${dayOf("n.")} AS day, ${used("n.")} AS delta
            FROM old_rows o JOIN new_rows n ON n.id = o.id
        ) moved
        GROUP BY merchant_id, day
        HAVING sum(delta) <> 0;
    END IF;
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER withdraws_day_totals_insert AFTER INSERT ON withdraws
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION withdraws_day_totals()`,
  `CREATE TRIGGER withdraws_day_totals_update AFTER UPDATE ON withdraws
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION withdraws_day_totals()`,
  `CREATE TRIGGER withdraws_day_totals_delete AFTER DELETE ON withdraws
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION withdraws_day_totals()`,
  // What the table holds when the keeping starts (the triggers hold the table's lock until
  // this migration commits, so no write slips between the two).
  `INSERT INTO withdraw_day_totals (merchant_id, day, amount_satang)
    SELECT merchant_id, ${dayOf("")}, sum(amount_satang) FROM withdraws
    WHERE status IN ${COUNTED} GROUP BY 1, 2`,
];
