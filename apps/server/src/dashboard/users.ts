/**
 * Dashboard users: people of a merchant who log in to the dashboard. The operator creates them
 * (POST /admin/v1/merchants/{id}/users, `satang user create`); the password is kept only as an
 * argon2id hash. An email belongs to one user across the whole service, whatever its case, so
 * a login names exactly one merchant.
 */

import { type Db, withTransaction } from "../db/handles.ts";
import type { DashboardRole, DashboardUserRow } from "../db/types.ts";
import type { Page } from "../http/envelope.ts";
import { listPage, type PageQuery } from "../http/list-query.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import { pageOffset } from "../lib/page-offset.ts";
import { getMerchant } from "../merchants/service.ts";
import { hashPassword } from "./passwords.ts";
import { findUserOfMerchant, insertUserIfAbsent, lockOwners, updateUser, usersOfMerchant } from "./store.ts";

export interface UserRecord {
  id: string;
  merchantId: string;
  email: string;
  role: DashboardRole;
  twoFactorEnabled: boolean;
  createdAt: string;
}

/**
 * The form of an email that logins match and uniqueness is decided on. Lowercasing the whole
 * address, local part included, is what merchants expect (nobody has two accounts that differ
 * only in case), and it is done here rather than by SQL `lower()`, whose result for non-ASCII
 * letters depends on the database's locale.
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function userView(
  row: Pick<DashboardUserRow, "id" | "merchant_id" | "email" | "created_at" | "role" | "totp_enabled_at">,
): UserRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    role: row.role,
    twoFactorEnabled: row.totp_enabled_at !== null,
    createdAt: row.created_at.toISOString(),
  };
}

/** An email some dashboard user already has, in any case: 409 STATE_CONFLICT. */
export const emailTaken = () =>
  new AppError("STATE_CONFLICT", "A dashboard user with this email already exists", {
    field: "email",
    reason: "email_taken",
  });

export async function createDashboardUser(
  ctx: { db: Db; clock: Clock },
  merchantId: string,
  input: { email: string; password: string; role?: DashboardRole | undefined },
): Promise<UserRecord> {
  await getMerchant(ctx, merchantId);
  const email = input.email.trim();
  // Hashing takes a noticeable moment, so it happens before the insert rather than inside a
  // transaction; the unique constraint still decides a race between two creates.
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  const row = await withTransaction(ctx.db, async (trx) => {
    const inserted = await insertUserIfAbsent(trx, {
      id: newId(),
      merchant_id: merchantId,
      email,
      email_normalized: normalizeEmail(email),
      password_hash: passwordHash,
      created_at: now,
      updated_at: now,
      role: input.role ?? "owner",
      totp_secret: null,
      totp_pending_secret: null,
      totp_enabled_at: null,
      totp_last_step: null,
    });
    if (!inserted) throw emailTaken();
    return inserted;
  });
  return userView(row);
}

/** One page of the merchant's users, oldest first (CONTRACT 0 and 11: the list envelope). */
export async function listUsers(
  ctx: { db: Db },
  merchantId: string,
  query: PageQuery,
): Promise<Page<UserRecord>> {
  const params = { page: query.page ?? 1, limit: query.limit ?? PAGE_SIZE_DEFAULT };
  const { rows, total } = await usersOfMerchant(ctx.db, merchantId, {
    offset: pageOffset(params.page, params.limit),
    limit: params.limit,
  });
  return listPage(rows.map(userView), total, params);
}

const lastOwner = () =>
  new AppError("STATE_CONFLICT", "A merchant keeps at least one owner: make another user owner first", {
    reason: "last_owner",
  });

/**
 * Changes a user's role (an owner's action). The merchant's owners are locked first, so two
 * owners demoting each other at once cannot leave the merchant without one.
 */
export async function changeUserRole(
  ctx: { db: Db; wallClock: Clock },
  merchantId: string,
  userId: string,
  role: DashboardRole,
): Promise<UserRecord> {
  const missing = notFound("Dashboard user");
  if (!isUuid(userId)) throw missing;
  return withTransaction(ctx.db, async (trx) => {
    const owners = await lockOwners(trx, merchantId);
    const user = await findUserOfMerchant(trx, merchantId, userId);
    if (!user) throw missing;
    if (user.role === "owner" && role !== "owner" && owners.length <= 1) throw lastOwner();
    const updated = await updateUser(trx, userId, { role, updated_at: ctx.wallClock.now() });
    if (!updated) throw missing;
    return userView(updated);
  });
}
