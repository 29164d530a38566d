/**
 * Withdraw helpers for tests: request bodies whose names never trip the payout guard by
 * accident, and merchants with their own limits and a funded wallet.
 */
import { randomBytes } from "node:crypto";
import type { MerchantInput } from "../../src/merchants/service.ts";
import type { Credentials, TestService } from "./harness.ts";
import { fundWallet } from "./ledger.ts";

let counter = 0;

/**
 * An account holder name unlike any other this process hands out: 12 random hex characters
 * differ from another draw in far more than the one character the 90% similarity rule allows.
 */
export function payeeName(): string {
  return `Payee ${randomBytes(6).toString("hex")}`;
}

export function referenceId(prefix = "wd"): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${randomBytes(3).toString("hex")}`;
}

export interface WithdrawBody {
  amount?: unknown;
  currency?: unknown;
  referenceId?: unknown;
  destinationType?: unknown;
  customerBankAccountName?: unknown;
  customerBankAccountNumber?: unknown;
  customerBankCode?: unknown;
  description?: unknown;
  metadata?: unknown;
  idempotencyKey?: unknown;
  [field: string]: unknown;
}

export function withdrawBody(overrides: WithdrawBody = {}): WithdrawBody {
  return {
    amount: "1000.00",
    currency: "THB",
    referenceId: referenceId(),
    destinationType: "bank_account",
    customerBankAccountName: payeeName(),
    customerBankAccountNumber: "123-456-7890",
    customerBankCode: "004",
    ...overrides,
  };
}

/** A new merchant with its own integration and `fundSatang` in its available wallet. */
export async function fundedMerchant(
  svc: TestService,
  input: Partial<MerchantInput> = {},
  fundSatang = 1_000_000_00n,
): Promise<Credentials> {
  const credentials = await svc.newMerchant(input);
  if (fundSatang > 0n) await fundWallet(svc.deps, credentials.merchantId, fundSatang);
  return credentials;
}
