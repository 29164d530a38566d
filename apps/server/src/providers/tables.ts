/**
 * The tables every connector owns, gathered for the database's type (db/types.ts imports this,
 * type only). Each connector types its own tables in its folder (`providers/<name>/tables.ts`),
 * next to the code that writes them.
 */
import type { OpnTables } from "./opn/tables.ts";
import type { ScbTables } from "./scb/tables.ts";

export interface ConnectorTables extends ScbTables, OpnTables {}
