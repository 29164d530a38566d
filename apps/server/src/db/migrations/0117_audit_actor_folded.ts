/**
 * The audit log's `actor` filter compares names without case, as operator-token names are
 * compared (admin/operator-token-store.ts: `Somchai` and `somchai` are one name): the index is on
 * the folded name.
 */
export const statements: string[] = [
  `CREATE INDEX audit_log_actor_folded ON audit_log (lower(actor_name))`,
  `DROP INDEX audit_log_actor`,
];
