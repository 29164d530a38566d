/**
 * Operator wallet adjustments (CONTRACT 2): a signed amount credited to or debited from a
 * merchant's available wallet, with a reason. Taken under the same wallet lock as withdraw
 * admission, so a debit and a withdraw racing for the same money are decided one after the
 * other and the wallet never goes below zero.
 */
import { type Db, withTransaction } from "../db/handles.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { describeSatang, formatAmount } from "../lib/money.ts";
import { findMerchant } from "../merchants/store.ts";
import { lockWallet } from "./accounts.ts";
import { type PostedTransaction, postOperatorAdjustment } from "./postings.ts";

interface AdjustmentInput {
  amountSatang: bigint;
  reason: string;
}

/** The ledger entry an adjustment produced, as the operator API shows it. */
interface AdjustmentRecord {
  id: string;
  merchantId: string;
  amount: string;
  reason: string;
  balanceAfter: string;
  createdAt: string;
}

function adjustmentView(posted: PostedTransaction, reason: string): AdjustmentRecord {
  const wallet = posted.entries.find((entry) => entry.account === "wallet_available");
  if (!wallet) throw new Error("an operator adjustment without a wallet line");
  return {
    id: posted.id,
    merchantId: posted.merchantId,
    amount: formatAmount(wallet.amountSatang),
    reason,
    balanceAfter: formatAmount(wallet.balanceAfterSatang),
    createdAt: posted.createdAt.toISOString(),
  };
}

export async function adjustWallet(
  ctx: { db: Db; clock: Clock },
  merchantId: string,
  input: AdjustmentInput,
): Promise<AdjustmentRecord> {
  if (!isUuid(merchantId)) throw notFound("Merchant");
  if (input.amountSatang === 0n) throw new Error("a wallet adjustment needs a non-zero amount");
  const posted = await withTransaction(ctx.db, async (trx) => {
    // Only `trx` is used in here: on the embedded store a second connection would wait for
    // the one this transaction holds.
    const merchant = await findMerchant(trx, merchantId);
    if (!merchant) throw notFound("Merchant");
    const wallet = await lockWallet(trx, merchantId);
    // A credit is applied whatever the wallet holds (it pays back an overdrawn wallet, 0112);
    // a debit may not take the wallet below zero.
    if (input.amountSatang < 0n && wallet.availableSatang + input.amountSatang < 0n) {
      throw new AppError(
        "INSUFFICIENT_BALANCE",
        `The available wallet (${describeSatang(wallet.availableSatang)}) cannot cover a debit of ${describeSatang(-input.amountSatang)}`,
        { available: formatAmount(wallet.availableSatang), amount: formatAmount(input.amountSatang) },
      );
    }
    return postOperatorAdjustment(trx, {
      adjustmentId: newId(),
      merchantId,
      amountSatang: input.amountSatang,
      reason: input.reason,
      at: businessNow(ctx.clock, merchant.clock_offset_ms),
    });
  });
  return adjustmentView(posted, input.reason);
}
