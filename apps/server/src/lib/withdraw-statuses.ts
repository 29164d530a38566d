/**
 * The statuses a withdraw can have, as the API names them: the withdraw table's column
 * (db/types.ts), the schemas and the error metadata (lib/error-metadata.ts) all use this list.
 */
export const WITHDRAW_STATUSES = [
  "awaiting_verification",
  "pending",
  "processing",
  "paid",
  "failed",
  "canceled",
  "expired",
] as const;
export type WithdrawStatus = (typeof WITHDRAW_STATUSES)[number];
