/**
 * How much of a refund comes out of the payment's own settlement: while the payment is
 * unsettled, as much as it still has awaiting settlement (its amount less what earlier refunds
 * took from it); once settled, nothing (the rest is held from the wallet).
 */
export function settlementPartOf(
  payment: { settled_at: Date | null; amount_satang: bigint; refund_settlement_satang: bigint },
  amountSatang: bigint,
): bigint {
  if (payment.settled_at !== null) return 0n;
  const unsettled = payment.amount_satang - payment.refund_settlement_satang;
  return amountSatang < unsettled ? amountSatang : unsettled;
}
