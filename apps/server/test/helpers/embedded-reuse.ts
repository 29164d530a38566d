/**
 * Embedded test databases, reused within a process. Opening one from the run's migrated snapshot
 * costs about a second of CPU (PGlite starts PostgreSQL in WebAssembly), and the suite opens
 * hundreds. When a test's store closes, its database is put back as the snapshot had it (the
 * session discarded, every table emptied, the rows the migrations wrote and the sequences
 * restored) and the next store of the process takes it. A database whose schema a test changed,
 * or that a test closed, is closed instead and never reused.
 */
import { readFile } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { EMBEDDED_PARSERS, EMBEDDED_START_PARAMS } from "../../src/db/connect.ts";

/** Idle databases kept per process: enough for the files that open a few stores at once. */
const IDLE_MAX = 3;

export interface ReusableDatabase {
  lite: PGlite;
  /** What the schema looked like when the database was opened (see SCHEMA_FINGERPRINT). */
  fingerprint: string;
  tables: string[];
  /** The rows the snapshot holds, per table, as JSON, with the columns they fill. */
  seeds: { table: string; columns: string[]; rows: string }[];
  sequences: { name: string; lastValue: string | null }[];
}

// Everything in the public schema a test could add, drop or change: relations, columns,
// constraints, triggers, functions and indexes.
const SCHEMA_FINGERPRINT = `
select md5(coalesce(string_agg(item, ',' order by item), '')) as fingerprint from (
  select 'r:' || c.relname || ':' || c.relkind::text from pg_class c
    join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
  union all select 'a:' || c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod)
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped
  union all select 'c:' || conname || ':' || pg_get_constraintdef(c.oid) from pg_constraint c
    join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public'
  union all select 't:' || tgname || ':' || tgenabled::text from pg_trigger where not tgisinternal
  union all select 'f:' || p.proname || ':' || md5(p.prosrc) from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'
) items(item)`;

const idle: ReusableDatabase[] = [];
let snapshotBytes: Promise<Buffer> | undefined;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function fingerprintOf(lite: PGlite): Promise<string> {
  const result = await lite.query<{ fingerprint: string }>(SCHEMA_FINGERPRINT);
  return result.rows[0]?.fingerprint ?? "";
}

async function open(snapshotPath: string): Promise<ReusableDatabase> {
  snapshotBytes ??= readFile(snapshotPath);
  const lite = await PGlite.create({
    loadDataDir: new Blob([await snapshotBytes]),
    parsers: EMBEDDED_PARSERS,
    startParams: [...EMBEDDED_START_PARAMS],
  });
  const tables = (
    await lite.query<{ name: string }>(
      "select tablename as name from pg_tables where schemaname = 'public' order by tablename",
    )
  ).rows.map((row) => row.name);
  const seeds: ReusableDatabase["seeds"] = [];
  for (const table of tables) {
    const rows = (
      await lite.query<{ rows: string | null }>(`select json_agg(t)::text as rows from ${quote(table)} t`)
    ).rows[0]?.rows;
    if (!rows) continue;
    const columns = (
      await lite.query<{ name: string }>(
        `select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0
           and not attisdropped and attgenerated = '' order by attnum`,
        [`public.${quote(table)}`],
      )
    ).rows.map((row) => row.name);
    seeds.push({ table, columns, rows });
  }
  const sequences = (
    await lite.query<{ name: string; lastValue: string | null }>(
      `select quote_ident(sequencename) as name, last_value::text as "lastValue"
         from pg_sequences where schemaname = 'public'`,
    )
  ).rows;
  return { lite, fingerprint: await fingerprintOf(lite), tables, seeds, sequences };
}

/** An embedded database as the snapshot has it: an idle one of this process, or a new one. */
export async function takeDatabase(snapshotPath: string): Promise<ReusableDatabase> {
  return idle.pop() ?? (await open(snapshotPath));
}

/** Resets `database` to the snapshot's contents and keeps it for the next store, or closes it. */
export async function giveBack(database: ReusableDatabase): Promise<void> {
  const { lite } = database;
  if (lite.closed) return;
  try {
    await lite.exec("rollback");
    await lite.exec("discard all");
    if (idle.length >= IDLE_MAX || (await fingerprintOf(lite)) !== database.fingerprint) {
      await lite.close();
      return;
    }
    await lite.transaction(async (tx) => {
      // Triggers stay quiet while the snapshot's contents come back: the audit log refuses a
      // TRUNCATE, and the kept totals are restored with their tables rather than recounted.
      await tx.exec("set local session_replication_role = replica");
      await tx.exec(`truncate ${database.tables.map(quote).join(", ")} restart identity cascade`);
      for (const seed of database.seeds) {
        const columns = seed.columns.map(quote).join(", ");
        await tx.query(
          `insert into ${quote(seed.table)} (${columns}) overriding system value
             select ${columns} from json_populate_recordset(null::${quote(seed.table)}, $1::json)`,
          [seed.rows],
        );
      }
      for (const { name, lastValue } of database.sequences) {
        if (lastValue !== null) await tx.query(`select setval('${name}', $1::bigint, true)`, [lastValue]);
      }
    });
    idle.push(database);
  } catch {
    // A database that cannot be reset is not reused.
    if (!lite.closed) await lite.close().catch(() => {});
  }
}
