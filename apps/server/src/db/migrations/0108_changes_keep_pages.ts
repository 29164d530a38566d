/**
 * The kept totals' changes tables (db/kept-totals.ts) are queues: every write appends to one,
 * and the fold job empties it, then vacuums it about once a second. A vacuum that finds the
 * table's last pages empty truncates them, which takes the table's ACCESS EXCLUSIVE lock: every
 * payment create and withdraw write waits behind it (up to about 20 ms, while the vacuum
 * scans back over the empty pages) and then extends the file again at once, and the truncation
 * tells every connection to drop what it cached of the table. Their pages are kept instead
 * (`vacuum_truncate = false`, for the job's vacuum and autovacuum alike): the vacuum still
 * frees the folded rows' space and index entries for the next changes to reuse.
 */
export const statements: string[] = [
  `ALTER TABLE list_count_changes SET (vacuum_truncate = false)`,
  `ALTER TABLE withdraw_day_changes SET (vacuum_truncate = false)`,
];
