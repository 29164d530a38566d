/**
 * Integrations: one API key + secret of a merchant. The secret is generated here, shown once
 * to the operator, and stored only encrypted.
 */
import type { Deps } from "../deps.ts";
import { notFound } from "../lib/errors.ts";
import { isUuid, newId, randomToken } from "../lib/ids.ts";
import { API_KEY_RANDOM_BYTES, API_SECRET_RANDOM_BYTES } from "../lib/limits.ts";
import { getMerchant } from "../merchants/service.ts";
import type { Db } from "../merchants/store.ts";
import {
  countIntegrationsOfMerchant,
  findIntegration,
  insertIntegration,
  listIntegrationsOfMerchant,
  revokeIntegrationRow,
} from "./store.ts";

export interface IntegrationInput {
  name?: string | null;
  redirectUrl?: string | null;
  requireSignatureV2?: boolean;
}

export interface CreatedIntegration {
  id: string;
  merchantId: string;
  name: string | null;
  apiKey: string;
  apiSecret: string;
  environment: "sandbox" | "live";
  redirectUrl: string | null;
  requireSignatureV2: boolean;
  revokedAt: string | null;
  createdAt: string;
}

export async function createIntegration(
  deps: Deps,
  merchantId: string,
  input: IntegrationInput = {},
  db: Db = deps.db,
): Promise<CreatedIntegration> {
  await getMerchant(deps, merchantId, db);
  const environment = deps.config.env;
  const apiKey = `${environment === "live" ? "sk_live_" : "sk_test_"}${randomToken(API_KEY_RANDOM_BYTES)}`;
  const apiSecret = `sec_${randomToken(API_SECRET_RANDOM_BYTES)}`;
  const row = await insertIntegration(db, {
    id: newId(),
    merchant_id: merchantId,
    name: input.name ?? null,
    api_key: apiKey,
    secret_encrypted: deps.secrets.seal(apiSecret),
    environment,
    redirect_url: input.redirectUrl ?? null,
    require_signature_v2: input.requireSignatureV2 ?? false,
    created_at: deps.clock.now(),
  });
  return {
    id: row.id,
    merchantId: row.merchant_id,
    name: row.name,
    apiKey,
    apiSecret,
    environment: row.environment,
    redirectUrl: row.redirect_url,
    requireSignatureV2: row.require_signature_v2,
    revokedAt: null,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Revokes an integration: its key stops authenticating with the next request, since
 * authentication reads the integration from the database every time. Revoking twice is
 * harmless and returns the integration as it was revoked the first time.
 */
export async function revokeIntegration(deps: Deps, id: string) {
  if (!isUuid(id)) throw notFound("Integration");
  const revoked = await revokeIntegrationRow(deps.db, id, deps.clock.now());
  if (revoked) return revoked;
  const existing = await findIntegration(deps.db, id);
  if (!existing) throw notFound("Integration");
  return existing;
}

export function integrationView(row: {
  id: string;
  merchant_id: string;
  name: string | null;
  environment: string;
  redirect_url: string | null;
  require_signature_v2: boolean;
  revoked_at: Date | null;
  created_at: Date;
  api_key: string;
}) {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    name: row.name,
    apiKey: row.api_key,
    environment: row.environment,
    redirectUrl: row.redirect_url,
    requireSignatureV2: row.require_signature_v2,
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
    createdAt: row.created_at.toISOString(),
  };
}

/** The integrations of a merchant, oldest first, revoked ones included; never their secrets. */
export async function listIntegrations(
  deps: Deps,
  merchantId: string,
  pageNumber: number,
  limit: number,
): Promise<{ records: ReturnType<typeof integrationView>[]; total: number }> {
  await getMerchant(deps, merchantId);
  const [rows, total] = await Promise.all([
    listIntegrationsOfMerchant(deps.db, merchantId, { offset: (pageNumber - 1) * limit, limit }),
    countIntegrationsOfMerchant(deps.db, merchantId),
  ]);
  return { records: rows.map(integrationView), total };
}
