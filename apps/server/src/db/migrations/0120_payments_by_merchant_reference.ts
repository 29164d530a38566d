/**
 * The operator finds payments by the merchant's own reference (`merchantReference` or its alias
 * `invoiceNo`: CONTRACT 6, "stored, searchable by the operator"), of one merchant or of every
 * merchant (`GET /admin/v1/payments?merchantReference=`). The index leads with the reference,
 * so a search without a merchant reads only the payments that carry it, and one with a merchant
 * reads those of that merchant among them; it replaces 0001's `(merchant_id,
 * merchant_reference)`, which only the merchant-scoped search could use. Partial, as before: a
 * payment without a reference (most creates) writes no entry.
 */
export const statements: string[] = [
  `CREATE INDEX payments_by_merchant_reference ON payments (merchant_reference, merchant_id)
    WHERE merchant_reference IS NOT NULL`,
  `DROP INDEX payments_merchant_reference`,
];
