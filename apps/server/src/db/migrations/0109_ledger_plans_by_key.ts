/**
 * The ledger's triggers find rows by key: the entry trigger updates one account by its id (and
 * reads its transaction's merchant by id), the balance check sums one transaction's entries.
 * PostgreSQL plans a trigger's statements once per connection, at their first run, and keeps
 * the plan until the table's statistics change: a connection that first posted while the
 * accounts or transactions tables were small kept a plan that reads the whole table, and every
 * later posting on it did so too (a sequential scan of every account of every merchant, for each
 * entry), until autovacuum next analyzed the table. Planned with sequential scans off, they look
 * rows up by their keys whatever the table's size when the plan was made; each statement has an
 * index for its key, so nothing is left without a plan.
 */
export const statements: string[] = [
  `ALTER FUNCTION ledger_apply_entry() SET enable_seqscan = off`,
  `ALTER FUNCTION ledger_check_balanced() SET enable_seqscan = off`,
];
