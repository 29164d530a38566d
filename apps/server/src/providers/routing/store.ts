/** The breakers processes share (connector_breakers, migration 0123). */
import type { Db } from "../../db/handles.ts";

/** Records that this process's breaker of `connector` opened (`open`) or closed, at `at`. */
export async function recordBreaker(db: Db, connector: string, open: boolean, at: Date): Promise<void> {
  await db
    .insertInto("connector_breakers")
    .values({ connector, open, changed_at: at })
    .onConflict((oc) => oc.column("connector").doUpdateSet({ open, changed_at: at }))
    .execute();
}

/** The connectors some process recorded open at or after `since`, with when. */
export async function openBreakersSince(
  db: Db,
  since: Date,
): Promise<{ connector: string; changedAt: Date }[]> {
  const rows = await db
    .selectFrom("connector_breakers")
    .select(["connector", "changed_at"])
    .where("open", "=", true)
    .where("changed_at", ">=", since)
    .execute();
  return rows.map((row) => ({ connector: row.connector, changedAt: row.changed_at }));
}
