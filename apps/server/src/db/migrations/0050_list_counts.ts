/**
 * The exact `total` of a payments or withdraws list without counting the merchant's rows.
 *
 * Counting a merchant's million payments reads a million index entries on every list request.
 * Instead, every statement that inserts, updates or deletes payments or withdraws appends what it
 * changed to `list_count_changes`: one row per (merchant, status, variant) it touched, carrying
 * the difference (+n inserted, -n left, +n entered). Appending takes no lock another request
 * waits on, so concurrent creates of one merchant never queue behind a counter row.
 *
 * A background job (db/list-counts.ts) folds the changes into `list_counts` in one statement
 * (delete the changes, add them to the counts), so the total is always
 * `sum(list_counts.n) + sum(list_count_changes.delta)` for the list's filters, read in one
 * snapshot: exact whether or not the job has run, and cheap once it has.
 *
 * The variant is the second filter a list has beside status: a payment's method (empty while it
 * has none) or a withdraw's destination type. Filters by creation date still count rows.
 *
 * The triggers are per statement, with transition tables, so a bulk insert appends one change
 * per group it touched, not one per row. An UPDATE that leaves status and variant as they were
 * appends nothing.
 */
function countTriggers(table: "payments" | "withdraws", variant: (row: string) => string): string[] {
  const changed = `(o.status, ${variant("o.")}) IS DISTINCT FROM (n.status, ${variant("n.")})`;
  return [
    `CREATE FUNCTION ${table}_list_counts() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO list_count_changes (merchant_id, resource, status, variant, delta)
          SELECT merchant_id, '${table}', status, ${variant("")}, count(*)
          FROM new_rows GROUP BY 1, 3, 4;
      ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO list_count_changes (merchant_id, resource, status, variant, delta)
          SELECT merchant_id, '${table}', status, ${variant("")}, -count(*)
          FROM old_rows GROUP BY 1, 3, 4;
      ELSE
        INSERT INTO list_count_changes (merchant_id, resource, status, variant, delta)
          SELECT merchant_id, '${table}', status, variant, sum(delta)
          FROM (
            SELECT o.merchant_id, o.status, ${variant("o.")} AS variant, -1 AS delta
              FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${changed}
            UNION ALL
            SELECT n.merchant_id, n.status, ${variant("n.")} AS variant, 1 AS delta
              FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${changed}
          ) moved
          GROUP BY merchant_id, status, variant
          HAVING sum(delta) <> 0;
      END IF;
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER ${table}_list_counts_insert AFTER INSERT ON ${table}
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_list_counts()`,
    `CREATE TRIGGER ${table}_list_counts_update AFTER UPDATE ON ${table}
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${table}_list_counts()`,
    `CREATE TRIGGER ${table}_list_counts_delete AFTER DELETE ON ${table}
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${table}_list_counts()`,
    // Whatever the table holds when the counting starts (the triggers above hold the table's
    // lock until this migration commits, so no write slips between the two).
    `INSERT INTO list_counts (merchant_id, resource, status, variant, n)
      SELECT merchant_id, '${table}', status, ${variant("")}, count(*)
      FROM ${table} GROUP BY 1, 3, 4`,
  ];
}

export const statements: string[] = [
  `CREATE TABLE list_counts (
    merchant_id uuid NOT NULL,
    resource text NOT NULL CHECK (resource IN ('payments', 'withdraws')),
    status text NOT NULL,
    variant text NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (merchant_id, resource, status, variant)
  )`,
  `CREATE TABLE list_count_changes (
    id bigserial PRIMARY KEY,
    merchant_id uuid NOT NULL,
    resource text NOT NULL CHECK (resource IN ('payments', 'withdraws')),
    status text NOT NULL,
    variant text NOT NULL,
    delta bigint NOT NULL
  )`,
  `CREATE INDEX list_count_changes_merchant ON list_count_changes (merchant_id, resource)`,
  ...countTriggers("payments", (row) => `coalesce(${row}payment_method, '')`),
  ...countTriggers("withdraws", (row) => `${row}destination_type`),
];
