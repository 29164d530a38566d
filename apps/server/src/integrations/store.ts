import { sql } from "kysely";
import type { Db } from "../db/handles.ts";
import { recordUseGrouped } from "../db/replay-records.ts";
import type { Integration, Merchant } from "../db/types.ts";
import type { ApiKeys } from "../http/auth.ts";

export async function insertIntegration(
  db: Db,
  row: Omit<Integration, "revoked_at" | "require_signature_v2"> & { require_signature_v2: boolean },
): Promise<Integration> {
  return db
    .insertInto("integrations")
    .values({ ...row, revoked_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findIntegration(db: Db, id: string): Promise<Integration | undefined> {
  return db.selectFrom("integrations").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function revokeIntegrationRow(db: Db, id: string, at: Date): Promise<Integration | undefined> {
  return db
    .updateTable("integrations")
    .set({ revoked_at: at })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .returningAll()
    .executeTakeFirst();
}

export async function listIntegrationsOfMerchant(
  db: Db,
  merchantId: string,
  window: { offset: number; limit: number },
): Promise<Integration[]> {
  return db
    .selectFrom("integrations")
    .selectAll()
    .where("merchant_id", "=", merchantId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .offset(window.offset)
    .limit(window.limit)
    .execute();
}

export async function countIntegrationsOfMerchant(db: Db, merchantId: string): Promise<number> {
  const row = await db
    .selectFrom("integrations")
    .select((eb) => eb.fn.countAll<bigint>().as("n"))
    .where("merchant_id", "=", merchantId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

interface IntegrationWithMerchant {
  integration: Integration;
  merchant: Merchant | undefined;
}

/** One round trip for authentication: the integration of a key (revoked or not) and its merchant. */
async function findByApiKey(db: Db, apiKey: string): Promise<IntegrationWithMerchant | undefined> {
  // One round trip per authenticated request: the integration and its merchant together. The
  // merchant's columns come back under an `m_` prefix and are unpacked below.
  const row = await db
    .selectFrom("integrations as i")
    .leftJoin("merchants as m", "m.id", "i.merchant_id")
    .selectAll("i")
    .select(MERCHANT_COLUMNS.map((column) => sql.ref(`m.${column}`).as(`m_${column}`)))
    .where("i.api_key", "=", apiKey)
    .executeTakeFirst();
  if (!row) return undefined;
  const record = row as unknown as Record<string, unknown>;
  const integration = {} as Record<string, unknown>;
  const merchant = {} as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (key.startsWith("m_")) merchant[key.slice(2)] = value;
    else integration[key] = value;
  }
  return {
    integration: integration as unknown as Integration,
    merchant: merchant.id ? (merchant as unknown as Merchant) : undefined,
  };
}

/** Every column of the merchants table, for the joined authentication lookup. */
const MERCHANT_COLUMNS = [
  "id",
  "name",
  "status",
  "daily_withdraw_limit_satang",
  "monthly_withdraw_limit_satang",
  "settlement_delay_hours",
  "collection_bank_code",
  "collection_account_number",
  "collection_account_name",
  "promptpay_id",
  "promptpay_reuse",
  "wallet_status",
  "withdraw_verification_threshold_satang",
  "clock_offset_ms",
  "provider",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof Merchant)[];

/** Fails to compile when a merchants column is missing from the list above. */
type MissingMerchantColumn = Exclude<keyof Merchant, (typeof MERCHANT_COLUMNS)[number]>;
const merchantColumnsComplete: [MissingMerchantColumn] extends [never] ? true : MissingMerchantColumn = true;
void merchantColumnsComplete;

async function deleteExpiredSignatureUses(db: Db, now: Date): Promise<void> {
  await db.deleteFrom("signature_uses").where("expires_at", "<", now).execute();
}

/** The API keys of this database, as HMAC authentication (http/auth.ts) looks them up. */
export function apiKeysOf(db: Db): ApiKeys {
  return {
    findByApiKey: (apiKey) => findByApiKey(db, apiKey),
    recordUse: (use, trx) => recordUseGrouped(trx ?? db, use),
    deleteExpiredUses: (now) => deleteExpiredSignatureUses(db, now),
  };
}
