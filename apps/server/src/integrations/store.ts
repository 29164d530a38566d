import { sql } from "kysely";
import type { Db } from "../db/handles.ts";
import { recordUseGrouped } from "../db/replay-records.ts";
import { poolQueueBound, StatementGroup } from "../db/statement-group.ts";
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

/** Changes an unrevoked integration; undefined when it is unknown or revoked. */
export async function updateIntegrationRow(
  db: Db,
  id: string,
  patch: Partial<Pick<Integration, "name" | "redirect_url" | "require_signature_v2">>,
): Promise<Integration | undefined> {
  return db
    .updateTable("integrations")
    .set(patch)
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

/** Integrations with their merchants' columns under an `m_` prefix, by API key. */
function keyLookup(db: Db) {
  return db
    .selectFrom("integrations as i")
    .leftJoin("merchants as m", "m.id", "i.merchant_id")
    .selectAll("i")
    .select(MERCHANT_COLUMNS.map((column) => sql.ref(`m.${column}`).as(`m_${column}`)));
}

/** A lookup's row as the integration and its merchant. */
function unpack(row: object): IntegrationWithMerchant {
  const integration = {} as Record<string, unknown>;
  const merchant = {} as Record<string, unknown>;
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith("m_")) merchant[key.slice(2)] = value;
    else integration[key] = value;
  }
  return {
    integration: integration as unknown as Integration,
    merchant: merchant.id ? (merchant as unknown as Merchant) : undefined,
  };
}

/** One round trip for authentication: the integration of a key (revoked or not) and its merchant. */
async function findByApiKey(db: Db, apiKey: string): Promise<IntegrationWithMerchant | undefined> {
  const row = await keyLookup(db).where("i.api_key", "=", apiKey).executeTakeFirst();
  return row ? unpack(row) : undefined;
}

/** Several keys' lookups in one statement: each key's integration and merchant, in order. */
async function findByApiKeys(
  db: Db,
  apiKeys: readonly string[],
): Promise<(IntegrationWithMerchant | undefined)[]> {
  const rows = await keyLookup(db)
    .where(sql<boolean>`i.api_key = ANY(${[...apiKeys]}::text[])`)
    .execute();
  const found = new Map(rows.map((row) => [row.api_key, unpack(row)]));
  return apiKeys.map((apiKey) => found.get(apiKey));
}

/** The most keys in one grouped lookup, and grouped lookups in flight at once, per store. */
export const KEY_LOOKUP_GROUP_ITEMS_MAX = 64;
export const KEY_LOOKUP_GROUPS_IN_FLIGHT_MAX = 2;

const lookupGroups = new WeakMap<Db, StatementGroup<string, IntegrationWithMerchant | undefined>>();

/**
 * `findByApiKey`, sent together with the other lookups of this process that arrive at the same
 * time (db/statement-group.ts): requests of keys not in the authentication cache yet (after a
 * start, or for merchants that call seldom) share one statement. Each key answers as alone.
 */
function findByApiKeyGrouped(db: Db, apiKey: string): Promise<IntegrationWithMerchant | undefined> {
  let group = lookupGroups.get(db);
  if (!group) {
    group = new StatementGroup({
      runGroup: (keys) => findByApiKeys(db, keys),
      runOne: (key) => findByApiKey(db, key),
      maxItems: KEY_LOOKUP_GROUP_ITEMS_MAX,
      maxInFlight: KEY_LOOKUP_GROUPS_IN_FLIGHT_MAX,
      ...poolQueueBound(db),
    });
    lookupGroups.set(db, group);
  }
  return group.submit(apiKey);
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
    findByApiKey: (apiKey) => findByApiKeyGrouped(db, apiKey),
    recordUse: (use, trx) => recordUseGrouped(trx ?? db, use),
    deleteExpiredUses: (now) => deleteExpiredSignatureUses(db, now),
  };
}
