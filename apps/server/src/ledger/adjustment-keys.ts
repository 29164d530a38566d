/**
 * The idempotency keys of operator wallet adjustments (migration 0124, adjustments.ts): which
 * ledger transaction a merchant's key made, and the hash of the body it was made with.
 */
import type { Trx } from "../db/handles.ts";

/** The adjustment a key made: its transaction, its wallet line and the key's request hash. */
export function findAdjustmentOfKey(trx: Trx, merchantId: string, key: string) {
  return trx
    .selectFrom("wallet_adjustment_keys as k")
    .innerJoin("ledger_transactions as t", "t.id", "k.transaction_id")
    .innerJoin("ledger_entries as e", "e.transaction_id", "t.id")
    .innerJoin("ledger_accounts as a", "a.id", "e.account_id")
    .select([
      "k.idempotency_key",
      "k.request_hash",
      "t.id",
      "t.reason",
      "t.created_at",
      "e.amount_satang",
      "e.balance_after_satang",
    ])
    .where("k.merchant_id", "=", merchantId)
    .where("k.idempotency_key", "=", key)
    .where("a.kind", "=", "wallet_available")
    .executeTakeFirst();
}

export async function insertAdjustmentKey(
  trx: Trx,
  row: { merchantId: string; key: string; requestHash: string; transactionId: string },
): Promise<void> {
  await trx
    .insertInto("wallet_adjustment_keys")
    .values({
      merchant_id: row.merchantId,
      idempotency_key: row.key,
      request_hash: row.requestHash,
      transaction_id: row.transactionId,
    })
    .execute();
}
