/**
 * SQL of the idempotency keys PromptPay reuse answered (migration 0115): a merchant's key bound
 * to the open payment a create with that key was given instead of a new one.
 */
import type { Db } from "../db/handles.ts";
import type { PaymentRow } from "../db/types.ts";

/** A key PromptPay reuse answered: the payment it was given and the hash of the request's body. */
export interface KeyAlias {
  payment: PaymentRow;
  requestHash: string;
}

/** The payment the merchant's key was bound to by PromptPay reuse, with its request's hash. */
export async function findKeyAlias(
  db: Db,
  merchantId: string,
  idempotencyKey: string,
): Promise<KeyAlias | undefined> {
  const row = await boundPaymentQuery(db, merchantId, idempotencyKey)
    .select("alias.request_hash as alias_request_hash")
    .executeTakeFirst();
  if (!row) return undefined;
  const { alias_request_hash: requestHash, ...payment } = row;
  return { payment, requestHash };
}

/**
 * The payment the merchant's key is bound to, joined to its binding (`alias`): read by
 * `findKeyAlias` and by payments/store.ts `findCreateConflicts`.
 */
export function boundPaymentQuery(db: Db, merchantId: string, idempotencyKey: string) {
  return db
    .selectFrom("payment_key_aliases as alias")
    .innerJoin("payments", "payments.id", "alias.payment_id")
    .selectAll("payments")
    .where("alias.merchant_id", "=", merchantId)
    .where("alias.idempotency_key", "=", idempotencyKey);
}

/**
 * Binds the merchant's key to the payment PromptPay reuse gave its create. False when the key
 * was bound already (by a concurrent create with the same key): nothing is written, and the
 * caller answers from that binding.
 */
export async function bindKeyToPayment(
  db: Db,
  alias: { merchantId: string; idempotencyKey: string; paymentId: string; requestHash: string; at: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto("payment_key_aliases")
    .values({
      merchant_id: alias.merchantId,
      idempotency_key: alias.idempotencyKey,
      payment_id: alias.paymentId,
      request_hash: alias.requestHash,
      created_at: alias.at,
    })
    .onConflict((oc) => oc.doNothing())
    .returning("payment_id")
    .executeTakeFirst();
  return inserted !== undefined;
}
