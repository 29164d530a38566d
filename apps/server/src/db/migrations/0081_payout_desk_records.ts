/**
 * The payout desk's outcome records say who recorded them, and a bank reference pays one
 * withdraw only (docs/payout-desk.md).
 *
 * - `recorded_by` is the operator actor of the request that recorded the outcome (admin/actor.ts:
 *   "admin-token" today, a named operator token's name once those exist) and `recorded_via` the
 *   tool it came through (`api`, `cli`, `desk`). Outcomes recorded before this migration could
 *   only have come with the operator token, so they are filled in as "admin-token", with the
 *   tool unknown (null).
 * - A bank reference names one transfer, so it may stand for one paid withdraw only. The desk
 *   refuses a reused one with 409 before writing; the unique index (case-insensitive, as an
 *   operator types references in either case) makes two recordings at once in different batches,
 *   which no lock orders, unable to both commit. If an existing deployment already holds a
 *   reference twice, the migration stops and names it: which of the two payments is wrong is
 *   for the operator to find out from the bank, not for a migration to guess.
 */
export const statements: string[] = [
  `ALTER TABLE payout_batch_items
    ADD COLUMN recorded_by text CHECK (char_length(recorded_by) BETWEEN 1 AND 100),
    ADD COLUMN recorded_via text CHECK (recorded_via IN ('api', 'cli', 'desk'))`,
  `UPDATE payout_batch_items SET recorded_by = 'admin-token' WHERE outcome IS NOT NULL`,
  `ALTER TABLE payout_batch_items
    ADD CONSTRAINT payout_batch_items_recorded_by CHECK ((outcome IS NULL) = (recorded_by IS NULL)),
    ADD CONSTRAINT payout_batch_items_recorded_via CHECK (outcome IS NOT NULL OR recorded_via IS NULL)`,
  `DO $$
  DECLARE
    reused text;
  BEGIN
    SELECT string_agg(reference, ', ') INTO reused FROM (
      SELECT lower(bank_reference) AS reference
        FROM payout_batch_items
       WHERE bank_reference IS NOT NULL
       GROUP BY lower(bank_reference)
      HAVING count(*) > 1
    ) AS duplicates;
    IF reused IS NOT NULL THEN
      RAISE EXCEPTION 'payout desk: these bank references are recorded for more than one withdraw: %. Check them with the bank and correct the records in payout_batch_items before upgrading.', reused;
    END IF;
  END
  $$`,
  `CREATE UNIQUE INDEX payout_batch_items_bank_reference ON payout_batch_items (lower(bank_reference))
    WHERE bank_reference IS NOT NULL`,
];
