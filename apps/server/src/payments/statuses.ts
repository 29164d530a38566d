/**
 * The sets of payment statuses the rules speak of, each named once. They sit beside the
 * transition table (transitions.ts) in a module of their own, so that the record view and the
 * stores can use them without importing the status writer.
 */
import type { PaymentStatus } from "../db/types.ts";

/** Waiting for the customer to pay, and so able to expire. */
export const AWAITING_CUSTOMER_STATUSES = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
] as const satisfies readonly PaymentStatus[];

/** Not final: the payment can still succeed (or be canceled, or fail). */
export const OPEN_PAYMENT_STATUSES: readonly PaymentStatus[] = [
  ...AWAITING_CUSTOMER_STATUSES,
  "processing",
  "requires_capture",
];

/** Final: nothing is left for the customer to do, and a payment link shows no QR any more. */
export const FINAL_PAYMENT_STATUSES: readonly PaymentStatus[] = [
  "succeeded",
  "canceled",
  "expired",
  "payment_failed",
];

export function isAwaitingCustomer(status: PaymentStatus): boolean {
  return (AWAITING_CUSTOMER_STATUSES as readonly PaymentStatus[]).includes(status);
}

export function isOpen(status: PaymentStatus): boolean {
  return OPEN_PAYMENT_STATUSES.includes(status);
}

export function isFinal(status: PaymentStatus): boolean {
  return FINAL_PAYMENT_STATUSES.includes(status);
}
