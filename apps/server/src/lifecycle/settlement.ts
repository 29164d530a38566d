/**
 * Settlement (CONTRACT 8): a succeeded payment's amount (less what its refunds took from it,
 * CONTRACT 16) waits in settlement pending until the
 * merchant's `settlementDelayHours` have passed since its capture, in the merchant's business
 * time; then it moves to the wallet (ledger `settle`) and `settled_at` is set, in one
 * transaction. Exactly at the delay it is due; a millisecond before, it is not.
 *
 * The job settles each merchant's due payments in a transaction of its own (per-merchant.ts),
 * so a lock on one merchant's ledger never holds up another merchant's settlement.
 */

import { withTransaction } from "../db/handles.ts";
import { settle } from "../ledger/postings.ts";
import { atOffset } from "../lib/clock.ts";
import { JOB_BATCH_SIZE } from "../lib/limits.ts";
import { formatAmount } from "../lib/money.ts";
import type { LifecycleContext } from "./context.ts";
import { eachMerchant } from "./per-merchant.ts";
import { claimDueSettlements, markSettled, merchantsDueSettlement } from "./store.ts";

interface SettledPayment {
  paymentId: string;
  merchantId: string;
  amountSatang: bigint;
  settledAt: Date;
}

/**
 * One batch in one transaction: claims due payments and settles them. With `merchantId`, only
 * that merchant's, waiting for payments another transaction holds unless `skipLocked`.
 */
export async function settleDuePayments(
  ctx: LifecycleContext,
  merchantId?: string,
  options: { skipLocked?: boolean } = {},
): Promise<SettledPayment[]> {
  return withTransaction(ctx.db, async (trx) => {
    const now = ctx.clock.now();
    const claimed = await claimDueSettlements(trx, {
      now,
      limit: JOB_BATCH_SIZE,
      merchantId,
      skipLocked: options.skipLocked,
    });
    claimed.sort((a, b) =>
      a.row.merchant_id === b.row.merchant_id
        ? a.row.id.localeCompare(b.row.id)
        : a.row.merchant_id.localeCompare(b.row.merchant_id),
    );
    const settled: SettledPayment[] = [];
    for (const { row, offsetMs } of claimed) {
      const at = atOffset(now, offsetMs);
      // What refunds took from the payment's settlement never reaches the wallet (CONTRACT 16);
      // the payment's row lock (the claim) keeps that part still while it is settled.
      const amountSatang = row.amount_satang - row.refund_settlement_satang;
      if (amountSatang > 0n) {
        await settle(trx, { merchantId: row.merchant_id, paymentId: row.id, amountSatang, at });
      }
      await markSettled(trx, row.id, at);
      settled.push({ paymentId: row.id, merchantId: row.merchant_id, amountSatang, settledAt: at });
    }
    return settled;
  });
}

/**
 * The settlement job's run: one batch for each merchant with payments due, each merchant in its
 * own transaction. Returns how many payments it settled.
 */
export async function settleDueMerchants(ctx: LifecycleContext): Promise<number> {
  const merchants = await merchantsDueSettlement(ctx.db, { now: ctx.clock.now(), limit: JOB_BATCH_SIZE });
  return eachMerchant(
    merchants,
    async (merchantId) => (await settleDuePayments(ctx, merchantId, { skipLocked: true })).length,
  );
}

export interface SettlementRun {
  /** How many payments this run settled. */
  count: number;
  /** Their total, as a decimal string of satang. */
  amount: string;
  payments: { paymentId: string; amount: string; settledAt: string }[];
}

/**
 * Settles everything of one merchant that is due now (POST /api/v1/sandbox/settlements/run),
 * batch after batch until nothing due is left, and says what it settled. A payment a worker is
 * settling at the same moment is waited for and then left out, since it is settled already.
 */
export async function runSettlementsForMerchant(
  ctx: LifecycleContext,
  merchantId: string,
): Promise<SettlementRun> {
  const all: SettledPayment[] = [];
  for (;;) {
    const batch = await settleDuePayments(ctx, merchantId);
    if (batch.length === 0) break;
    all.push(...batch);
  }
  const total = all.reduce((sum, p) => sum + p.amountSatang, 0n);
  return {
    count: all.length,
    amount: formatAmount(total),
    payments: all.map((p) => ({
      paymentId: p.paymentId,
      amount: formatAmount(p.amountSatang),
      settledAt: p.settledAt.toISOString(),
    })),
  };
}
