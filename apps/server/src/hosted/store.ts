/**
 * SQL of the hosted payment page. The one lookup is by payment id alone, not scoped by
 * merchant: the customer holds nothing but the link, and the id in it is an unguessable UUID.
 */

import type { Db } from "../db/handles.ts";
import type { PaymentRow } from "../db/types.ts";

interface HostedPaymentRow {
  payment: PaymentRow;
  merchantName: string;
  /** The merchant's sandbox test-clock offset: its business time is the clock plus this. */
  clockOffsetMs: bigint;
}

export async function findHostedPayment(db: Db, id: string): Promise<HostedPaymentRow | undefined> {
  const row = await db
    .selectFrom("payments")
    .innerJoin("merchants", "merchants.id", "payments.merchant_id")
    .selectAll("payments")
    .select(["merchants.name as merchant_name", "merchants.clock_offset_ms as merchant_clock_offset_ms"])
    .where("payments.id", "=", id)
    .executeTakeFirst();
  if (!row) return undefined;
  const { merchant_name: merchantName, merchant_clock_offset_ms: clockOffsetMs, ...payment } = row;
  return { payment, merchantName, clockOffsetMs };
}
