/**
 * What the operator looks SCB exchanges up by (docs/providers/scb.md, "What the operator can
 * see"):
 *
 * - `direction`: `outbound` (a call to SCB) or `inbound` (a payment confirmation SCB posted).
 * - `request_headers`: the headers that matter (requestUId, resourceOwnerId masked,
 *   accept-language), never the authorization. Null for exchanges recorded before this.
 * - The SCB references an exchange names: `ref1` (the payment's reference), `partner_transaction_id`
 *   (a withdraw's transfer), `tokenizer_id` (SCB's id of that transfer), `trans_ref` (the
 *   transaction a confirmation or slip names, or the one transaction an inquiry answered).
 * - `payment_id` and `withdraw_id`: the payment with that ref1 and the withdraw of that transfer,
 *   resolved when the exchange is recorded. No foreign keys: exchanges are a log kept for a
 *   limited time (SCB_EXCHANGE_RETENTION_DAYS), and a forged confirmation names no payment.
 *
 * Exchanges recorded before this migration get the same columns from their path and bodies.
 * Each filter reads its own partial index in the list's order (newest first).
 */
export const statements: string[] = [
  `ALTER TABLE scb_exchanges
    ADD COLUMN direction text NOT NULL DEFAULT 'outbound' CHECK (direction IN ('outbound', 'inbound')),
    ADD COLUMN request_headers jsonb,
    ADD COLUMN ref1 text,
    ADD COLUMN partner_transaction_id text,
    ADD COLUMN tokenizer_id text,
    ADD COLUMN trans_ref text,
    ADD COLUMN payment_id uuid,
    ADD COLUMN withdraw_id uuid`,

  // The references of exchanges recorded before: the inquiry's reference1 in its query, a slip's
  // transRef in its path and ref1 in its answer, the transfer ids in the bodies.
  `UPDATE scb_exchanges SET
    ref1 = CASE operation
      WHEN 'bill_payment_inquiry' THEN substring(path from '[?&]reference1=([A-Za-z0-9]+)')
      WHEN 'slip_verification' THEN response_body -> 'data' ->> 'ref1'
    END,
    trans_ref = CASE operation
      WHEN 'slip_verification' THEN substring(path from '/transactions/([^/?]+)')
    END,
    partner_transaction_id = request_body ->> 'partnerTransactionID',
    tokenizer_id = coalesce(request_body ->> 'tokenizerId', response_body -> 'data' ->> 'tokenizerId')`,
  `UPDATE scb_exchanges e SET payment_id = p.id
    FROM payments p WHERE e.ref1 IS NOT NULL AND p.collection_reference = e.ref1`,
  `UPDATE scb_exchanges e SET withdraw_id = t.withdraw_id
    FROM scb_transfers t
    WHERE t.partner_transaction_id = e.partner_transaction_id OR t.tokenizer_id = e.tokenizer_id`,

  `CREATE INDEX scb_exchanges_payment ON scb_exchanges (payment_id, started_at DESC, id DESC)
    WHERE payment_id IS NOT NULL`,
  `CREATE INDEX scb_exchanges_withdraw ON scb_exchanges (withdraw_id, started_at DESC, id DESC)
    WHERE withdraw_id IS NOT NULL`,
  `CREATE INDEX scb_exchanges_ref1 ON scb_exchanges (ref1, started_at DESC, id DESC)
    WHERE ref1 IS NOT NULL`,
  `CREATE INDEX scb_exchanges_partner_transaction ON scb_exchanges
    (partner_transaction_id, started_at DESC, id DESC) WHERE partner_transaction_id IS NOT NULL`,
  `CREATE INDEX scb_exchanges_tokenizer ON scb_exchanges (tokenizer_id, started_at DESC, id DESC)
    WHERE tokenizer_id IS NOT NULL`,
  `CREATE INDEX scb_exchanges_trans_ref ON scb_exchanges (trans_ref, started_at DESC, id DESC)
    WHERE trans_ref IS NOT NULL`,
];
