/**
 * The order entries were posted in (CONTRACT 8, 11): `posting_seq` numbers each new ledger entry
 * from one sequence as it is inserted, in the order its statement applies the entries to their
 * accounts (ledger/postings.ts inserts them in line order), so entries of one instant (a
 * settlement run posting many payments at once) read back in the order their `balance_after`
 * follows, as the ledger export lists them (reports/store.ts).
 *
 * Entries written before this migration keep a NULL number (adding the column with the sequence
 * as its default only afterwards rewrites no row of a large table); the export orders them as it
 * did, by id after their time.
 */
export const statements: string[] = [
  `CREATE SEQUENCE ledger_entries_posting_seq AS bigint`,
  `ALTER TABLE ledger_entries ADD COLUMN posting_seq bigint`,
  `ALTER TABLE ledger_entries ALTER COLUMN posting_seq SET DEFAULT nextval('ledger_entries_posting_seq')`,
  `ALTER SEQUENCE ledger_entries_posting_seq OWNED BY ledger_entries.posting_seq`,
];
