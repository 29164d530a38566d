/**
 * What the scenarios need in the bench database, made before they run: funded merchants with
 * an integration each (through the services), and bulk rows copied from one real row by SQL
 * (generate_series), so a seed of a million rows takes seconds, not hours.
 */
import { loadConfig } from "../../apps/server/src/config.ts";
import { openStore, type Store } from "../../apps/server/src/db/connect.ts";
import { buildDeps, type Deps } from "../../apps/server/src/deps.ts";
import { createIntegration } from "../../apps/server/src/integrations/service.ts";
import { adjustWallet } from "../../apps/server/src/ledger/adjustments.ts";
import { SecretBox } from "../../apps/server/src/lib/crypto.ts";
import { createMerchant } from "../../apps/server/src/merchants/service.ts";
import { query } from "./database.ts";
import type { Credentials } from "./requests.ts";

/** The key every bench process encrypts integration secrets with. */
export const BENCH_SECRET_KEY = Buffer.alloc(32, 3);

export interface Bench {
  store: Store;
  deps: Deps;
  url: string;
}

export async function openBench(url: string): Promise<Bench> {
  const store = await openStore({ databaseUrl: url, poolSize: 8 });
  const config = loadConfig({ RATE_LIMIT_PER_MINUTE: "10000000", ADMIN_TOKEN: "bench-admin-token-000000" });
  const deps = buildDeps({
    config,
    db: store.db,
    storeKind: store.kind,
    secrets: new SecretBox(BENCH_SECRET_KEY),
  });
  return { store, deps, url };
}

export interface Wallet extends Credentials {
  merchantId: string;
}

/** A funded merchant with an integration; with withdraw limits when `limited` (so they are read). */
async function wallet(deps: Deps, index: number, limited: boolean): Promise<Wallet> {
  const merchant = await createMerchant(deps, {
    name: `Bench Wallet ${index}`,
    promptpayId: "0812345678",
    collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Bench Wallet" },
    ...(limited ? { dailyWithdrawLimitSatang: 10n ** 15n, monthlyWithdrawLimitSatang: 10n ** 16n } : {}),
  });
  await adjustWallet(deps, merchant.id, { amountSatang: 10_000_000_000n, reason: "bench funding" });
  const { apiKey, apiSecret } = await createIntegration(deps, merchant.id);
  return { merchantId: merchant.id, apiKey, apiSecret };
}

/** `count` funded wallets, made 8 at a time. */
export async function wallets(bench: Bench, count: number, limited = false): Promise<Wallet[]> {
  const made: Wallet[] = [];
  for (let i = 0; i < count; i += 8) {
    const batch = Array.from({ length: Math.min(8, count - i) }, (_, j) =>
      wallet(bench.deps, i + j, limited),
    );
    made.push(...(await Promise.all(batch)));
  }
  return made;
}

/**
 * Copies the row `templateId` of `table` `count` times; `overrides` gives SQL expressions (over
 * the series value `g`, 1..count) for the columns that must differ.
 */
export async function seedCopies(
  url: string,
  table: "payments" | "withdraws",
  templateId: string,
  count: number,
  overrides: Record<string, string>,
): Promise<void> {
  const columns = (
    await query<{ column_name: string }>(
      url,
      "SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
      [table],
    )
  ).map((row) => row.column_name);
  const values = columns.map((column) => overrides[column] ?? `t.${column}`);
  await query(
    url,
    `INSERT INTO ${table} (${columns.join(", ")})
     SELECT ${values.join(", ")} FROM ${table} t, generate_series(1, ${Math.trunc(count)}) g WHERE t.id = $1`,
    [templateId],
  );
  await query(url, `ANALYZE ${table}`);
}

/** Payments spread over the last year, a third each expired, failed and awaiting the customer. */
export function seedPayments(url: string, templateId: string, count: number): Promise<void> {
  const at = `now() - g * interval '${Math.max(1, Math.floor((365 * 86_400) / count))} seconds'`;
  return seedCopies(url, "payments", templateId, count, {
    id: "gen_random_uuid()",
    reference_id: "'seed-' || g",
    idempotency_key: "'seed-' || g",
    client_secret: "md5(g::text)",
    status: "(ARRAY['expired', 'payment_failed', 'requires_action'])[g % 3 + 1]",
    collection_reference: "NULL",
    bank_transfer_reference: "NULL",
    // Copies of one customer and amount: none holds the PromptPay reuse slot (migration 0095).
    reuse_slot: "NULL",
    created_at: at,
    updated_at: at,
  });
}

/** Paid withdraws spread over this UTC month up to an hour ago: all read by the limit sums. */
export function seedWithdraws(url: string, templateId: string, count: number): Promise<void> {
  const monthStart = "date_trunc('month', now(), 'UTC')";
  const at = `${monthStart} + (now() - interval '1 hour' - ${monthStart}) * (g::float8 / ${count + 1})`;
  return seedCopies(url, "withdraws", templateId, count, {
    id: "gen_random_uuid()",
    reference_id: "'seed-' || g",
    idempotency_key: "'seed-' || g",
    status: "'paid'",
    verification_expires_at: "NULL",
    paid_at: at,
    created_at: at,
    updated_at: at,
  });
}
