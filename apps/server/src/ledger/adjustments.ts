/**
 * Operator wallet adjustments (CONTRACT 2): a signed amount credited to or debited from a
 * merchant's available wallet, with a reason. Taken under the same wallet lock as withdraw
 * admission, so a debit and a withdraw racing for the same money are decided one after the
 * other and the wallet never goes below zero.
 *
 * An adjustment may carry an idempotency key (unique per merchant, 0124): the key is looked up
 * under the wallet lock, so of concurrent requests with one key the first makes the
 * adjustment and the others find it. A retry with the same body gets the adjustment it made
 * (and moves no money); the key with another body is 422, as for creates (lib/idempotency.ts).
 */
import { type Db, type Trx, withTransaction } from "../db/handles.ts";
import { businessNow, type Clock } from "../lib/clock.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { replayOf, requestHashOf } from "../lib/idempotency.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { describeSatang, formatAmount } from "../lib/money.ts";
import { findMerchant } from "../merchants/store.ts";
import { lockWallet } from "./accounts.ts";
import { findAdjustmentOfKey, insertAdjustmentKey } from "./adjustment-keys.ts";
import { type PostedTransaction, postOperatorAdjustment } from "./postings.ts";
import type { AdjustmentRecord } from "./schemas.ts";

interface AdjustmentInput {
  amountSatang: bigint;
  reason: string;
  /** The operator's key for retries, with the body as it came (its hash decides a replay). */
  idempotency?: { key: string; body: object };
}

/** What an adjustment request did: made the adjustment, or found the one its key made. */
export type AdjustmentResult = { outcome: "created" | "replayed"; adjustment: AdjustmentRecord };

function adjustmentView(
  posted: PostedTransaction,
  reason: string,
  idempotencyKey: string | null,
): AdjustmentRecord {
  const wallet = posted.entries.find((entry) => entry.account === "wallet_available");
  if (!wallet) throw new Error("an operator adjustment without a wallet line");
  return {
    id: posted.id,
    merchantId: posted.merchantId,
    amount: formatAmount(wallet.amountSatang),
    reason,
    balanceAfter: formatAmount(wallet.balanceAfterSatang),
    createdAt: posted.createdAt.toISOString(),
    idempotencyKey,
  };
}

/** The adjustment a key made, as it answered then (422 for another body); undefined when new. */
async function adjustmentOfKey(
  trx: Trx,
  merchantId: string,
  key: string,
  requestHash: string,
): Promise<AdjustmentRecord | undefined> {
  const found = await findAdjustmentOfKey(trx, merchantId, key);
  if (!found) return undefined;
  replayOf(found, requestHash);
  return {
    id: found.id,
    merchantId,
    amount: formatAmount(found.amount_satang),
    reason: found.reason ?? "",
    balanceAfter: formatAmount(found.balance_after_satang),
    createdAt: found.created_at.toISOString(),
    idempotencyKey: found.idempotency_key,
  };
}

export async function adjustWallet(
  ctx: { db: Db; clock: Clock },
  merchantId: string,
  input: AdjustmentInput,
): Promise<AdjustmentResult> {
  if (!isUuid(merchantId)) throw notFound("Merchant");
  if (input.amountSatang === 0n) throw new Error("a wallet adjustment needs a non-zero amount");
  const key = input.idempotency?.key ?? null;
  const requestHash = input.idempotency ? requestHashOf(input.idempotency.body) : null;
  return withTransaction(ctx.db, async (trx): Promise<AdjustmentResult> => {
    // Only `trx` is used in here: on the embedded store a second connection would wait for
    // the one this transaction holds.
    const merchant = await findMerchant(trx, merchantId);
    if (!merchant) throw notFound("Merchant");
    const wallet = await lockWallet(trx, merchantId);
    // Under the wallet lock: a concurrent request with this key has committed or not begun.
    if (key !== null && requestHash !== null) {
      const made = await adjustmentOfKey(trx, merchantId, key, requestHash);
      if (made) return { outcome: "replayed", adjustment: made };
    }
    // A credit is applied whatever the wallet holds (it pays back an overdrawn wallet, 0112);
    // a debit may not take the wallet below zero.
    if (input.amountSatang < 0n && wallet.availableSatang + input.amountSatang < 0n) {
      throw new AppError(
        "INSUFFICIENT_BALANCE",
        `The available wallet (${describeSatang(wallet.availableSatang)}) cannot cover a debit of ${describeSatang(-input.amountSatang)}`,
        { available: formatAmount(wallet.availableSatang), amount: formatAmount(input.amountSatang) },
      );
    }
    const posted = await postOperatorAdjustment(trx, {
      adjustmentId: newId(),
      merchantId,
      amountSatang: input.amountSatang,
      reason: input.reason,
      at: businessNow(ctx.clock, merchant.clock_offset_ms),
    });
    if (key !== null && requestHash !== null)
      await insertAdjustmentKey(trx, { merchantId, key, requestHash, transactionId: posted.id });
    return { outcome: "created", adjustment: adjustmentView(posted, input.reason, key) };
  });
}
