/**
 * SQL of the dashboard: its users, sessions and failed logins (0007), and the event timeline of
 * one payment or withdraw. Lists of payments, withdraws and events are not here: the dashboard
 * calls the same services as the public API for those.
 */
import { sql } from "kysely";
import type { Db } from "../db/handles.ts";
import type { DashboardSessionRow, DashboardUserRow, EventRow } from "../db/types.ts";

/** Class id of this module's advisory locks (two-key form, as payments/store.ts explains). */
const DASHBOARD_LOCK_CLASS = 0x4453_4842;

// Users

/** The new user, or undefined when the email is taken (the unique constraint decides). */
export async function insertUserIfAbsent(
  db: Db,
  row: DashboardUserRow,
): Promise<DashboardUserRow | undefined> {
  return db
    .insertInto("dashboard_users")
    .values(row)
    .onConflict((oc) => oc.column("email_normalized").doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findUserByEmail(
  db: Db,
  emailNormalized: string,
): Promise<DashboardUserRow | undefined> {
  return db
    .selectFrom("dashboard_users")
    .selectAll()
    .where("email_normalized", "=", emailNormalized)
    .executeTakeFirst();
}

export async function findUserOfMerchant(
  db: Db,
  merchantId: string,
  id: string,
): Promise<DashboardUserRow | undefined> {
  return db
    .selectFrom("dashboard_users")
    .selectAll()
    .where("id", "=", id)
    .where("merchant_id", "=", merchantId)
    .executeTakeFirst();
}

export async function findUserById(db: Db, id: string): Promise<DashboardUserRow | undefined> {
  return db.selectFrom("dashboard_users").selectAll().where("id", "=", id).executeTakeFirst();
}

/**
 * One page of a merchant's users, oldest first (ties by id, so pages never repeat or skip one),
 * and how many the merchant has.
 */
export async function usersOfMerchant(
  db: Db,
  merchantId: string,
  window: { offset: number; limit: number },
): Promise<{ rows: DashboardUserRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom("dashboard_users")
      .selectAll()
      .where("merchant_id", "=", merchantId)
      .orderBy("created_at", "asc")
      .orderBy("id", "asc")
      .limit(window.limit)
      .offset(window.offset)
      .execute(),
    db
      .selectFrom("dashboard_users")
      .select((eb) => eb.fn.countAll<bigint>().as("n"))
      .where("merchant_id", "=", merchantId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Locks a merchant's owners (FOR UPDATE), so two role changes cannot both remove the last one. */
export async function lockOwners(db: Db, merchantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("dashboard_users")
    .select("id")
    .where("merchant_id", "=", merchantId)
    .where("role", "=", "owner")
    .orderBy("id")
    .forUpdate()
    .execute();
  return rows.map((row) => row.id);
}

export async function updateUser(
  db: Db,
  id: string,
  changes: Partial<
    Pick<DashboardUserRow, "role" | "totp_secret" | "totp_pending_secret" | "totp_enabled_at" | "updated_at">
  > & { totp_last_step?: bigint | null },
): Promise<DashboardUserRow | undefined> {
  return db
    .updateTable("dashboard_users")
    .set(changes)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** Records the step of an accepted code unless one at or after it was accepted (replay). */
export async function claimTotpStep(db: Db, id: string, step: bigint): Promise<boolean> {
  const result = await db
    .updateTable("dashboard_users")
    .set({ totp_last_step: step })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("totp_last_step", "is", null), eb("totp_last_step", "<", step)]))
    .executeTakeFirst();
  return (result.numUpdatedRows ?? 0n) > 0n;
}

// Failed logins

/**
 * Serializes the lockout check of one email across processes, so concurrent attempts cannot
 * all read the same count and all go on to guess.
 */
export async function lockLoginEmail(db: Db, emailNormalized: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${DASHBOARD_LOCK_CLASS}::int4, hashtext(${emailNormalized}))`.execute(
    db,
  );
}

/** When each counted failure of an email happened, oldest first. */
export async function recentFailures(db: Db, emailNormalized: string, since: Date): Promise<Date[]> {
  const rows = await db
    .selectFrom("dashboard_login_failures")
    .select("failed_at")
    .where("email_normalized", "=", emailNormalized)
    .where("failed_at", ">", since)
    .orderBy("failed_at", "asc")
    .execute();
  return rows.map((row) => row.failed_at);
}

export async function insertFailure(
  db: Db,
  row: { id: string; emailNormalized: string; at: Date },
): Promise<void> {
  await db
    .insertInto("dashboard_login_failures")
    .values({ id: row.id, email_normalized: row.emailNormalized, failed_at: row.at })
    .execute();
}

export async function deleteFailure(db: Db, id: string): Promise<void> {
  await db.deleteFrom("dashboard_login_failures").where("id", "=", id).execute();
}

/** Forgets every counted failure of one email (an operator's reset lets its user in again). */
export async function deleteFailuresOf(db: Db, emailNormalized: string): Promise<void> {
  await db.deleteFrom("dashboard_login_failures").where("email_normalized", "=", emailNormalized).execute();
}

/** Forgets failures that no longer count, of every email. */
export async function deleteFailuresBefore(db: Db, before: Date): Promise<void> {
  await db.deleteFrom("dashboard_login_failures").where("failed_at", "<=", before).execute();
}

// Sessions

export async function insertSession(db: Db, row: DashboardSessionRow): Promise<DashboardSessionRow> {
  return db.insertInto("dashboard_sessions").values(row).returningAll().executeTakeFirstOrThrow();
}

type SessionUser = Pick<
  DashboardUserRow,
  "id" | "merchant_id" | "email" | "created_at" | "role" | "totp_enabled_at"
>;

interface ActiveSession {
  session: DashboardSessionRow;
  user: SessionUser;
}

/**
 * The live session of a token hash with its user. The merchant is read separately
 * (merchants/store.ts), so this module never has to list the merchants table's columns.
 */
export async function findActiveSession(
  db: Db,
  tokenSha256: string,
  now: Date,
): Promise<ActiveSession | undefined> {
  const row = await db
    .selectFrom("dashboard_sessions as s")
    .innerJoin("dashboard_users as u", "u.id", "s.user_id")
    .selectAll("s")
    .select([
      "u.email as user_email",
      "u.created_at as user_created_at",
      "u.role as user_role",
      "u.totp_enabled_at as user_totp_enabled_at",
    ])
    .where("s.token_sha256", "=", tokenSha256)
    .where("s.revoked_at", "is", null)
    .where("s.expires_at", ">", now)
    .executeTakeFirst();
  if (!row) return undefined;
  const { user_email, user_created_at, user_role, user_totp_enabled_at, ...session } = row;
  return {
    session,
    user: {
      id: session.user_id,
      merchant_id: session.merchant_id,
      email: user_email,
      created_at: user_created_at,
      role: user_role,
      totp_enabled_at: user_totp_enabled_at,
    },
  };
}

export async function revokeSession(db: Db, id: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable("dashboard_sessions")
    .set({ revoked_at: at })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return (result.numUpdatedRows ?? 0n) > 0n;
}

/** Ends every open session of a user (an operator's two-factor reset); how many it ended. */
export async function revokeSessionsOfUser(db: Db, userId: string, at: Date): Promise<number> {
  const result = await db
    .updateTable("dashboard_sessions")
    .set({ revoked_at: at })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0n);
}

/** Sessions past their expiry can never be used again; their rows are only clutter. */
export async function deleteSessionsExpiredBy(db: Db, at: Date): Promise<void> {
  await db.deleteFrom("dashboard_sessions").where("expires_at", "<=", at).execute();
}

// Timelines

/** The events of one payment or withdraw of a merchant, oldest first, ties broken by id. */
export async function eventsOfObject(
  db: Db,
  merchantId: string,
  objectType: EventRow["object_type"],
  objectId: string,
  limit: number,
): Promise<EventRow[]> {
  return db
    .selectFrom("events")
    .selectAll()
    .where("object_id", "=", objectId)
    .where("object_type", "=", objectType)
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .limit(limit)
    .execute();
}
