/**
 * A refund the operator resolved `failed` while its bank had not said so (lifecycle/undecided.ts)
 * is watched: the bank may still pay it. Until the bank answers, its amount stays on its
 * payment's `refunded_satang` (`refundable_withheld`), so a second refund cannot take that amount
 * and the bank's late payment of the first can always be booked (refunds/reports.ts).
 */
export const statements: string[] = [
  `ALTER TABLE refunds ADD COLUMN refundable_withheld boolean NOT NULL DEFAULT false`,
];
