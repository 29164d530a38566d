/**
 * Integrations: one API key + secret of a merchant. The secret is generated here, shown once
 * to the operator, and stored only encrypted.
 */

import type { Config } from "../config.ts";
import { type Db, withTransaction } from "../db/handles.ts";
import type { Clock } from "../lib/clock.ts";
import type { SecretBox } from "../lib/crypto.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { isUuid, newId, randomToken } from "../lib/ids.ts";
import { API_KEY_RANDOM_BYTES, API_SECRET_RANDOM_BYTES } from "../lib/limits.ts";
import { pageOffset } from "../lib/page-offset.ts";
import { getMerchant } from "../merchants/service.ts";
import {
  countIntegrationsOfMerchant,
  findIntegration,
  insertIntegration,
  listIntegrationsOfMerchant,
  revokeIntegrationRow,
  updateIntegrationRow,
} from "./store.ts";

/**
 * What the integration services use: the database or a transaction, the clock, the box that
 * seals secrets, and the environment that prefixes API keys.
 */
export interface IntegrationContext {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  config: Pick<Config, "env">;
}

export interface IntegrationInput {
  name?: string | null;
  redirectUrl?: string | null;
  requireSignatureV2?: boolean;
}

interface CreatedIntegration {
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
  ctx: IntegrationContext,
  merchantId: string,
  input: IntegrationInput = {},
): Promise<CreatedIntegration> {
  const environment = ctx.config.env;
  const apiKey = `${environment === "live" ? "sk_live_" : "sk_test_"}${randomToken(API_KEY_RANDOM_BYTES)}`;
  const apiSecret = `sec_${randomToken(API_SECRET_RANDOM_BYTES)}`;
  const row = await withTransaction(ctx.db, async (trx) => {
    await getMerchant({ db: trx }, merchantId);
    return insertIntegration(trx, {
      id: newId(),
      merchant_id: merchantId,
      name: input.name ?? null,
      api_key: apiKey,
      secret_encrypted: ctx.secrets.seal(apiSecret),
      environment,
      redirect_url: input.redirectUrl ?? null,
      require_signature_v2: input.requireSignatureV2 ?? false,
      created_at: ctx.clock.now(),
    });
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
 * Revokes an integration: its key stops authenticating with the next request on this process
 * and within a second on every other (the key memory of http/auth-cache.ts is cleared by the
 * change, here at once and elsewhere through NOTIFY). Revoking twice is
 * harmless and returns the integration as it was revoked the first time.
 */
export async function revokeIntegration(ctx: Pick<IntegrationContext, "db" | "clock">, id: string) {
  if (!isUuid(id)) throw notFound("Integration");
  return withTransaction(ctx.db, async (trx) => {
    const revoked = await revokeIntegrationRow(trx, id, ctx.clock.now());
    if (revoked) return revoked;
    const existing = await findIntegration(trx, id);
    if (!existing) throw notFound("Integration");
    return existing;
  });
}

export const integrationRevoked = () =>
  new AppError("STATE_CONFLICT", "The integration is revoked; create a new one", { reason: "revoked" });

/**
 * Changes an integration's name, redirect URL or signature rule (CONTRACT 3: an integration can
 * be set to require v2). Like a revoke, the change holds for the key's next request on this
 * process and within a second on every other (http/auth-cache.ts). `merchantId`, when given,
 * is the only merchant whose integration may be changed (the dashboard's); another's is 404. A
 * revoked integration is 409 STATE_CONFLICT (reason `revoked`).
 */
export async function updateIntegration(
  ctx: Pick<IntegrationContext, "db">,
  id: string,
  input: IntegrationInput,
  merchantId?: string,
) {
  if (!isUuid(id)) throw notFound("Integration");
  const patch: Parameters<typeof updateIntegrationRow>[2] = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.redirectUrl !== undefined) patch.redirect_url = input.redirectUrl;
  if (input.requireSignatureV2 !== undefined) patch.require_signature_v2 = input.requireSignatureV2;
  return withTransaction(ctx.db, async (trx) => {
    const existing = await findIntegration(trx, id);
    if (!existing || (merchantId !== undefined && existing.merchant_id !== merchantId)) {
      throw notFound("Integration");
    }
    const updated = await updateIntegrationRow(trx, id, patch);
    if (!updated) throw integrationRevoked();
    return updated;
  });
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
  ctx: { db: Db },
  merchantId: string,
  pageNumber: number,
  limit: number,
): Promise<{ records: ReturnType<typeof integrationView>[]; total: number }> {
  await getMerchant(ctx, merchantId);
  const [rows, total] = await Promise.all([
    listIntegrationsOfMerchant(ctx.db, merchantId, { offset: pageOffset(pageNumber, limit), limit }),
    countIntegrationsOfMerchant(ctx.db, merchantId),
  ]);
  return { records: rows.map(integrationView), total };
}
