/**
 * Processes cache merchants and integrations (authentication reads them on every request);
 * a change to either table is announced on the `satang_changes` channel when it commits, so
 * every process forgets what it cached within a moment (db/changes.ts). One notification per
 * statement, carrying the table's name; PostgreSQL folds repeats within a transaction.
 */
export const statements: string[] = [
  `CREATE FUNCTION satang_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('satang_changes', TG_TABLE_NAME);
    RETURN NULL;
  END $$`,
  `CREATE TRIGGER merchants_notify_change AFTER UPDATE OR DELETE OR TRUNCATE ON merchants
    FOR EACH STATEMENT EXECUTE FUNCTION satang_notify_change()`,
  `CREATE TRIGGER integrations_notify_change AFTER UPDATE OR DELETE OR TRUNCATE ON integrations
    FOR EACH STATEMENT EXECUTE FUNCTION satang_notify_change()`,
];
