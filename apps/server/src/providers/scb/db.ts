/**
 * The database as this connector sees it: the core's tables and its own (ScbTables,
 * tables.ts). Its tables are created by its migrations in db/migrations/; only this folder types
 * them, so the core's `Database` never names them.
 */
import type { Kysely } from "kysely";
import type { Db } from "../../db/handles.ts";
import type { Database } from "../../db/types.ts";
import type { ScbTables } from "./tables.ts";

export type ScbDatabase = Database & ScbTables;

/** `db` (or a transaction on it) typed with this connector's tables too. */
export function scbTables(db: Db): Kysely<ScbDatabase> {
  return db as unknown as Kysely<ScbDatabase>;
}
