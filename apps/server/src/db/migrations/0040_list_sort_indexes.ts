/**
 * An index for every sort field of the payments and withdraws lists, so a page of a merchant
 * with a million rows is read from an index in order, never by sorting the merchant's rows.
 *
 * A list orders by the sort column, then `id`, in the same direction (db/pages.ts); text
 * columns compare by bytes (`COLLATE "C"`), so their indexes are declared in that collation.
 * Columns that cannot be empty are indexed once, read forwards or backwards. Columns that can
 * be empty (confirmed, captured and paid times) sort empty values last in both directions; one
 * index (`DESC NULLS LAST`) serves the default descending order, an ascending page of those
 * sorts the merchant's rows. Sorting by creation time uses the indexes that already exist
 * (`payments_merchant_created`, `withdraws_merchant_created`), as does a status filter with the
 * default order (`payments_merchant_status_created`, `withdraws_merchant_status_created`).
 */
export const statements: string[] = [
  `CREATE INDEX payments_merchant_amount ON payments (merchant_id, amount_satang, id)`,
  `CREATE INDEX payments_merchant_status_sort ON payments (merchant_id, status COLLATE "C", id)`,
  `CREATE INDEX payments_merchant_reference_sort ON payments (merchant_id, reference_id COLLATE "C", id)`,
  `CREATE INDEX payments_merchant_confirmed ON payments (merchant_id, confirmed_at DESC NULLS LAST, id DESC)`,
  `CREATE INDEX payments_merchant_captured ON payments (merchant_id, captured_at DESC NULLS LAST, id DESC)`,
  `CREATE INDEX withdraws_merchant_amount ON withdraws (merchant_id, amount_satang, id)`,
  `CREATE INDEX withdraws_merchant_status_sort ON withdraws (merchant_id, status COLLATE "C", id)`,
  `CREATE INDEX withdraws_merchant_reference_sort ON withdraws (merchant_id, reference_id COLLATE "C", id)`,
  `CREATE INDEX withdraws_merchant_paid ON withdraws (merchant_id, paid_at DESC NULLS LAST, id DESC)`,
];
