/**
 * Dashboard users: people of a merchant who log in to the dashboard. The operator creates them
 * (POST /admin/v1/merchants/{id}/users, `satang user create`); the password is kept only as an
 * argon2id hash. An email belongs to one user across the whole service, whatever its case, so
 * a login names exactly one merchant.
 */

import type { Db } from "../db/handles.ts";
import type { DashboardUserRow } from "../db/types.ts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { newId } from "../lib/ids.ts";
import { getMerchant } from "../merchants/service.ts";
import { hashPassword } from "./passwords.ts";
import { insertUserIfAbsent } from "./store.ts";

export interface UserRecord {
  id: string;
  merchantId: string;
  email: string;
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
  row: Pick<DashboardUserRow, "id" | "merchant_id" | "email" | "created_at">,
): UserRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    email: row.email,
    createdAt: row.created_at.toISOString(),
  };
}

export async function createDashboardUser(
  ctx: { db: Db; clock: Clock },
  merchantId: string,
  input: { email: string; password: string },
): Promise<UserRecord> {
  await getMerchant(ctx, merchantId);
  const email = input.email.trim();
  // Hashing takes a noticeable moment, so it happens before the insert rather than inside a
  // transaction; the unique constraint still decides a race between two creates.
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  const row = await insertUserIfAbsent(ctx.db, {
    id: newId(),
    merchant_id: merchantId,
    email,
    email_normalized: normalizeEmail(email),
    password_hash: passwordHash,
    created_at: now,
    updated_at: now,
  });
  if (!row) {
    throw new AppError("STATE_CONFLICT", "A dashboard user with this email already exists", {
      field: "email",
      reason: "email_taken",
    });
  }
  return userView(row);
}
