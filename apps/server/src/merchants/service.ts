/**
 * Merchants: the businesses using the service, with their wallet settings and limits.
 */
import type { Merchant } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import { notFound } from "../lib/errors.ts";
import { newId } from "../lib/ids.ts";
import { formatAmount } from "../lib/money.ts";
import { type Db, findMerchant, insertMerchant, updateMerchantRow } from "./store.ts";

export interface CollectionAccount {
  bankCode: string;
  accountNumber: string;
  accountName: string;
}

export interface MerchantInput {
  name: string;
  dailyWithdrawLimitSatang?: bigint | null;
  monthlyWithdrawLimitSatang?: bigint | null;
  settlementDelayHours?: number;
  collectionAccount?: CollectionAccount | null;
  promptpayId?: string | null;
  promptpayReuse?: boolean;
  walletStatus?: Merchant["wallet_status"];
  withdrawVerificationThresholdSatang?: bigint | null;
  status?: Merchant["status"];
}

export async function createMerchant(deps: Deps, input: MerchantInput, db: Db = deps.db): Promise<Merchant> {
  const now = deps.clock.now();
  return insertMerchant(db, {
    id: newId(),
    name: input.name,
    status: input.status ?? "active",
    daily_withdraw_limit_satang: input.dailyWithdrawLimitSatang ?? null,
    monthly_withdraw_limit_satang: input.monthlyWithdrawLimitSatang ?? null,
    settlement_delay_hours: input.settlementDelayHours ?? (deps.config.env === "live" ? 24 : 0),
    collection_bank_code: input.collectionAccount?.bankCode ?? null,
    collection_account_number: input.collectionAccount?.accountNumber ?? null,
    collection_account_name: input.collectionAccount?.accountName ?? null,
    promptpay_id: input.promptpayId ?? null,
    promptpay_reuse: input.promptpayReuse ?? true,
    wallet_status: input.walletStatus ?? "active",
    withdraw_verification_threshold_satang: input.withdrawVerificationThresholdSatang ?? null,
    created_at: now,
    updated_at: now,
  });
}

export async function getMerchant(deps: Deps, id: string, db: Db = deps.db): Promise<Merchant> {
  const merchant = await findMerchant(db, id);
  if (!merchant) throw notFound("Merchant");
  return merchant;
}

export async function updateMerchant(
  deps: Deps,
  id: string,
  input: Partial<MerchantInput>,
): Promise<Merchant> {
  const changes: Parameters<typeof updateMerchantRow>[2] = { updated_at: deps.clock.now() };
  if (input.name !== undefined) changes.name = input.name;
  if (input.status !== undefined) changes.status = input.status;
  if (input.dailyWithdrawLimitSatang !== undefined)
    changes.daily_withdraw_limit_satang = input.dailyWithdrawLimitSatang;
  if (input.monthlyWithdrawLimitSatang !== undefined)
    changes.monthly_withdraw_limit_satang = input.monthlyWithdrawLimitSatang;
  if (input.settlementDelayHours !== undefined) changes.settlement_delay_hours = input.settlementDelayHours;
  if (input.collectionAccount !== undefined) {
    changes.collection_bank_code = input.collectionAccount?.bankCode ?? null;
    changes.collection_account_number = input.collectionAccount?.accountNumber ?? null;
    changes.collection_account_name = input.collectionAccount?.accountName ?? null;
  }
  if (input.promptpayId !== undefined) changes.promptpay_id = input.promptpayId;
  if (input.promptpayReuse !== undefined) changes.promptpay_reuse = input.promptpayReuse;
  if (input.walletStatus !== undefined) changes.wallet_status = input.walletStatus;
  if (input.withdrawVerificationThresholdSatang !== undefined)
    changes.withdraw_verification_threshold_satang = input.withdrawVerificationThresholdSatang;
  const merchant = await updateMerchantRow(deps.db, id, changes);
  if (!merchant) throw notFound("Merchant");
  return merchant;
}

const optionalAmount = (value: bigint | null): string | null => (value === null ? null : formatAmount(value));

/** The operator's view of a merchant. */
export function merchantView(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    status: merchant.status,
    settlementDelayHours: merchant.settlement_delay_hours,
    collectionAccount:
      merchant.collection_bank_code && merchant.collection_account_number && merchant.collection_account_name
        ? {
            bankCode: merchant.collection_bank_code,
            accountNumber: merchant.collection_account_number,
            accountName: merchant.collection_account_name,
          }
        : null,
    promptpayId: merchant.promptpay_id,
    promptpayReuse: merchant.promptpay_reuse,
    walletStatus: merchant.wallet_status,
    dailyWithdrawLimit: optionalAmount(merchant.daily_withdraw_limit_satang),
    monthlyWithdrawLimit: optionalAmount(merchant.monthly_withdraw_limit_satang),
    withdrawVerificationThreshold: optionalAmount(merchant.withdraw_verification_threshold_satang),
    createdAt: merchant.created_at.toISOString(),
    updatedAt: merchant.updated_at.toISOString(),
  };
}
