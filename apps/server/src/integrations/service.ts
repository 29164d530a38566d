/**
 * Integrations: one API key + secret of a merchant. The secret is generated here, shown once
 * to the operator, and stored only encrypted.
 */
import type { Deps } from "../deps.ts";
import { notFound } from "../lib/errors.ts";
import { newId, randomToken } from "../lib/ids.ts";
import { API_KEY_RANDOM_BYTES, API_SECRET_RANDOM_BYTES } from "../lib/limits.ts";
import { getMerchant } from "../merchants/service.ts";
import { findIntegration, insertIntegration, revokeIntegrationRow } from "./store.ts";

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
  createdAt: string;
}

export async function createIntegration(
  deps: Deps,
  merchantId: string,
  input: IntegrationInput = {},
): Promise<CreatedIntegration> {
  await getMerchant(deps, merchantId);
  const environment = deps.config.env;
  const apiKey = `${environment === "live" ? "sk_live_" : "sk_test_"}${randomToken(API_KEY_RANDOM_BYTES)}`;
  const apiSecret = `sec_${randomToken(API_SECRET_RANDOM_BYTES)}`;
  const row = await insertIntegration(deps.db, {
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
    createdAt: row.created_at.toISOString(),
  };
}

export async function revokeIntegration(deps: Deps, id: string) {
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
