/**
 * Merchants: the businesses using the service, with their wallet settings and limits.
 */
import { type Config, liveProviderNames } from "../config.ts";
import { type Db, withTransaction } from "../db/handles.ts";
import type { Merchant } from "../db/types.ts";
import { normalizeAccountNumber } from "../lib/account-number.ts";
import { isBankCode } from "../lib/bank-codes.ts";
import type { Clock } from "../lib/clock.ts";
import { fieldError, notFound } from "../lib/errors.ts";
import { isUuid, newId } from "../lib/ids.ts";
import {
  CUSTOMER_NAME_LENGTH_MAX,
  MERCHANT_NAME_LENGTH_MAX,
  SETTLEMENT_DELAY_HOURS_MAX,
} from "../lib/limits.ts";
import { formatAmount } from "../lib/money.ts";
import { normalizePromptpayId, PROMPTPAY_ID_MESSAGE } from "./promptpay-id.ts";
import { findMerchant, insertMerchant, updateMerchantRow } from "./store.ts";

/**
 * What the merchant services use: the database or a transaction (bootstrap creates the demo
 * merchant inside its own), the clock, and the environment, whose default settlement delay
 * differs.
 */
export interface MerchantContext {
  db: Db;
  clock: Clock;
  config: Pick<Config, "env" | "providers">;
}

interface CollectionAccount {
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
  /** The live connector the merchant's payments go to (docs/providers/routing.md); null unpins. */
  provider?: string | null;
}

function checkName(value: string, field: string, max: number): string {
  const trimmed = value.trim();
  if (trimmed === "") throw fieldError("VALIDATION_ERROR", field, `${field} must not be empty`);
  if ([...trimmed].length > max) {
    throw fieldError("VALIDATION_ERROR", field, `${field} must be at most ${max} characters`);
  }
  return trimmed;
}

function checkPositive(value: bigint | null | undefined, field: string): void {
  if (value !== undefined && value !== null && value <= 0n) {
    throw fieldError("INVALID_AMOUNT", field, `${field} must be greater than zero`);
  }
}

/**
 * The merchant rules, checked here even though the admin API's schemas check them first: the
 * CLI, the sandbox bootstrap and tests reach this service without a schema, and a merchant with
 * a malformed collection account would only fail later, at a customer's payment.
 * Returns the input with names trimmed and account numbers and PromptPay ids reduced to digits.
 */
function normalizeMerchantInput<T extends Partial<MerchantInput>>(input: T): T {
  const out: T = { ...input };
  if (input.name !== undefined) out.name = checkName(input.name, "name", MERCHANT_NAME_LENGTH_MAX);
  checkPositive(input.dailyWithdrawLimitSatang, "dailyWithdrawLimit");
  checkPositive(input.monthlyWithdrawLimitSatang, "monthlyWithdrawLimit");
  checkPositive(input.withdrawVerificationThresholdSatang, "withdrawVerificationThreshold");
  if (input.settlementDelayHours !== undefined) {
    const hours = input.settlementDelayHours;
    if (!Number.isInteger(hours) || hours < 0 || hours > SETTLEMENT_DELAY_HOURS_MAX) {
      throw fieldError(
        "VALIDATION_ERROR",
        "settlementDelayHours",
        `settlementDelayHours must be a whole number from 0 to ${SETTLEMENT_DELAY_HOURS_MAX}`,
      );
    }
  }
  if (input.collectionAccount) {
    const account = input.collectionAccount;
    if (!isBankCode(account.bankCode)) {
      throw fieldError(
        "INVALID_BANK_CODE",
        "collectionAccount.bankCode",
        "collectionAccount.bankCode is not the code of a bank operating in Thailand",
      );
    }
    const accountNumber = normalizeAccountNumber(account.accountNumber);
    if (accountNumber === null) {
      throw fieldError(
        "VALIDATION_ERROR",
        "collectionAccount.accountNumber",
        "collectionAccount.accountNumber must be 10 to 15 digits",
      );
    }
    out.collectionAccount = {
      bankCode: account.bankCode,
      accountNumber,
      accountName: checkName(account.accountName, "collectionAccount.accountName", CUSTOMER_NAME_LENGTH_MAX),
    };
  }
  if (input.promptpayId !== undefined && input.promptpayId !== null) {
    const promptpayId = normalizePromptpayId(input.promptpayId);
    if (promptpayId === null) {
      throw fieldError("VALIDATION_ERROR", "promptpayId", `promptpayId ${PROMPTPAY_ID_MESSAGE}`);
    }
    out.promptpayId = promptpayId;
  }
  if (input.walletStatus !== undefined && !["active", "frozen", "closed"].includes(input.walletStatus)) {
    throw fieldError("VALIDATION_ERROR", "walletStatus", "walletStatus must be active, frozen or closed");
  }
  if (input.status !== undefined && !["active", "disabled"].includes(input.status)) {
    throw fieldError("VALIDATION_ERROR", "status", "status must be active or disabled");
  }
  return out;
}

export async function createMerchant(ctx: MerchantContext, raw: MerchantInput): Promise<Merchant> {
  const input = normalizeMerchantInput(raw);
  const now = ctx.clock.now();
  // A transaction of its own even for one statement: what commits with the action (its audit
  // entry) is written in it.
  return withTransaction(ctx.db, (trx) =>
    insertMerchant(trx, {
      id: newId(),
      name: input.name,
      status: input.status ?? "active",
      daily_withdraw_limit_satang: input.dailyWithdrawLimitSatang ?? null,
      monthly_withdraw_limit_satang: input.monthlyWithdrawLimitSatang ?? null,
      settlement_delay_hours: input.settlementDelayHours ?? (ctx.config.env === "live" ? 24 : 0),
      collection_bank_code: input.collectionAccount?.bankCode ?? null,
      collection_account_number: input.collectionAccount?.accountNumber ?? null,
      collection_account_name: input.collectionAccount?.accountName ?? null,
      promptpay_id: input.promptpayId ?? null,
      promptpay_reuse: input.promptpayReuse ?? true,
      wallet_status: input.walletStatus ?? "active",
      withdraw_verification_threshold_satang: input.withdrawVerificationThresholdSatang ?? null,
      created_at: now,
      updated_at: now,
    }),
  );
}

export async function getMerchant(ctx: { db: Db }, id: string): Promise<Merchant> {
  // A malformed id cannot name a merchant; PostgreSQL would refuse it as a uuid with an error.
  const merchant = isUuid(id) ? await findMerchant(ctx.db, id) : undefined;
  if (!merchant) throw notFound("Merchant");
  return merchant;
}

/**
 * A pin names one live connector of SATANG_PROVIDER (CONTRACT 15): the merchant's new payments
 * go to it only, never failing over. The sandbox's bank is no connector to pin to.
 */
function checkPin(ctx: Partial<Pick<MerchantContext, "config">>, provider: string | null): string | null {
  if (provider === null) return null;
  const live = ctx.config ? liveProviderNames(ctx.config) : [];
  if (!live.includes(provider as (typeof live)[number])) {
    throw fieldError(
      "VALIDATION_ERROR",
      "provider",
      live.length === 0
        ? "provider: this deployment has no live connector to pin a merchant to"
        : `provider must be one of the connectors of SATANG_PROVIDER (${live.join(", ")}), or null`,
    );
  }
  return provider;
}

export async function updateMerchant(
  ctx: Pick<MerchantContext, "db" | "clock"> & Partial<Pick<MerchantContext, "config">>,
  id: string,
  raw: Partial<MerchantInput>,
): Promise<Merchant> {
  const input = normalizeMerchantInput(raw);
  if (!isUuid(id)) throw notFound("Merchant");
  const changes: Parameters<typeof updateMerchantRow>[2] = { updated_at: ctx.clock.now() };
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
  if (input.provider !== undefined) changes.provider = checkPin(ctx, input.provider);
  if (input.withdrawVerificationThresholdSatang !== undefined)
    changes.withdraw_verification_threshold_satang = input.withdrawVerificationThresholdSatang;
  const merchant = await withTransaction(ctx.db, (trx) => updateMerchantRow(trx, id, changes));
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
    provider: merchant.provider,
    createdAt: merchant.created_at.toISOString(),
    updatedAt: merchant.updated_at.toISOString(),
  };
}
