/**
 * Bank transfer instructions are a promise made to the customer at create: they must keep
 * naming the account the customer was told to pay into, even if the merchant later changes
 * its collection account. So each bank transfer payment keeps its own copy of that account,
 * and the database refuses a bank transfer payment without complete instructions.
 */
export const statements: string[] = [
  `ALTER TABLE payments
    ADD COLUMN transfer_bank_code text,
    ADD COLUMN transfer_account_number text,
    ADD COLUMN transfer_account_name text`,
  `ALTER TABLE payments ADD CONSTRAINT payments_bank_transfer_has_instructions CHECK (
    payment_method IS DISTINCT FROM 'bank_transfer'
    OR (bank_transfer_reference IS NOT NULL AND transfer_bank_code IS NOT NULL
      AND transfer_account_number IS NOT NULL AND transfer_account_name IS NOT NULL))`,
];
