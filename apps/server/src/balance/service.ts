/**
 * The merchant's balance (interface.md "Get balance", CONTRACT 8), read from the ledger:
 * `walletBalance` is the wallet_available account, which is already the wallet minus holds
 * (a withdraw's hold moves its amount from available to held), so it is exactly what can be
 * withdrawn now. `settlementBalance` is the settlement_pending account: succeeded payments not
 * yet settled, across all integrations of the merchant (the ledger is per merchant).
 * Both are JSON numbers of satang, as interface.md says, exact at any size (lib/money.ts
 * `satangJson`).
 */
import type { Db } from "../db/handles.ts";
import type { Merchant } from "../db/types.ts";
import { merchantBalances } from "../ledger/accounts.ts";
import { satangJson } from "../lib/money.ts";
import type { BalanceRecord } from "./schemas.ts";

export async function getBalance(
  ctx: { db: Db },
  merchant: Pick<Merchant, "id" | "wallet_status">,
): Promise<BalanceRecord> {
  const balances = await merchantBalances(ctx.db, merchant.id);
  return {
    walletBalance: satangJson(balances.walletAvailableSatang),
    settlementBalance: satangJson(balances.settlementPendingSatang),
    currency: "THB",
    status: merchant.wallet_status,
  };
}
