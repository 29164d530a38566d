/** SQL of named operator tokens (migration 0090). */
import { sql } from "kysely";
import type { Db } from "../db/handles.ts";
import type { OperatorTokenRow } from "../db/types.ts";

/** Advisory lock class of operator-token names ("OPTK"); the second key is 0, one lock for all. */
const OPERATOR_TOKEN_LOCK_CLASS = 0x4f50_544b;

/**
 * The new token, or undefined when its name is taken: by the same name in any case (compared
 * with `lower`), checked under one transaction-scoped lock so two creates of "Somchai" and
 * "somchai" cannot both pass; the unique constraint still guards the exact name. Run inside a
 * transaction.
 */
export async function insertOperatorToken(
  db: Db,
  row: OperatorTokenRow,
): Promise<OperatorTokenRow | undefined> {
  await sql`select pg_advisory_xact_lock(${OPERATOR_TOKEN_LOCK_CLASS}::int4, 0)`.execute(db);
  const taken = await db
    .selectFrom("operator_tokens")
    .select("id")
    .where(sql<boolean>`lower(name) = lower(${row.name})`)
    .executeTakeFirst();
  if (taken) return undefined;
  return db
    .insertInto("operator_tokens")
    .values(row)
    .onConflict((oc) => oc.column("name").doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The unrevoked token whose hash this is. */
export async function findActiveOperatorToken(
  db: Db,
  tokenSha256: string,
): Promise<OperatorTokenRow | undefined> {
  return db
    .selectFrom("operator_tokens")
    .selectAll()
    .where("token_sha256", "=", tokenSha256)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
}

export async function selectOperatorTokens(
  db: Db,
  window: { offset: number; limit: number },
): Promise<{ rows: OperatorTokenRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom("operator_tokens")
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    db
      .selectFrom("operator_tokens")
      .select((eb) => eb.fn.countAll<bigint>().as("n"))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Revokes the token (once: a second revoke keeps the first time); undefined when unknown. */
export async function revokeOperatorTokenRow(
  db: Db,
  id: string,
  at: Date,
): Promise<OperatorTokenRow | undefined> {
  const revoked = await db
    .updateTable("operator_tokens")
    .set({ revoked_at: at })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .returningAll()
    .executeTakeFirst();
  return revoked ?? db.selectFrom("operator_tokens").selectAll().where("id", "=", id).executeTakeFirst();
}
