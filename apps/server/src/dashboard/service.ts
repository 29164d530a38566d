/**
 * What the dashboard shows beyond the public API's own services: a record with its event
 * timeline, and the merchant's API keys. Everything is scoped to the session's merchant; an id
 * of another merchant's record is 404 exactly like a missing one.
 */
import type { Db } from "../db/handles.ts";
import type { EventRow, Merchant } from "../db/types.ts";
import { type IntegrationContext, integrationView, revokeIntegration } from "../integrations/service.ts";
import { findIntegration } from "../integrations/store.ts";
import { maskAccountNumber } from "../lib/account-number.ts";
import { notFound } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { DASHBOARD_TIMELINE_EVENTS_MAX } from "../lib/limits.ts";
import type { PaymentRecord } from "../payments/schemas.ts";
import { getPayment, type PaymentContext } from "../payments/service.ts";
import { findPayment } from "../payments/store.ts";
import { paymentAppUrl } from "../payments/view.ts";
import type { WithdrawRecord } from "../withdraws/schemas.ts";
import { getWithdraw } from "../withdraws/service.ts";
import { eventsOfObject } from "./store.ts";

export interface TimelineEntry {
  id: string;
  type: EventRow["type"];
  createdAt: string;
}

async function timelineOf(
  ctx: { db: Db },
  merchantId: string,
  objectType: EventRow["object_type"],
  id: string,
): Promise<TimelineEntry[]> {
  const rows = await eventsOfObject(ctx.db, merchantId, objectType, id, DASHBOARD_TIMELINE_EVENTS_MAX);
  return rows.map((row) => ({ id: row.id, type: row.type, createdAt: row.created_at.toISOString() }));
}

export interface PaymentCustomer {
  name: string;
  /** Masked like every account number that leaves the service. */
  accountNumber: string;
  bankCode: string;
}

/**
 * A payment as the API shows it, with what the API's record leaves out but the merchant's own
 * staff need: the customer's name, masked account and bank, the hosted page's address, and a bank
 * transfer's reference (which the record's nextAction drops once the payment ends), to match a
 * line of the bank statement to its payment.
 */
export async function paymentDetail(
  ctx: Pick<PaymentContext, "db" | "config">,
  merchant: Merchant,
  id: string,
): Promise<{
  payment: PaymentRecord;
  customer: PaymentCustomer;
  hostedPageUrl: string;
  transferReference: string | null;
  timeline: TimelineEntry[];
}> {
  const payment = await getPayment(ctx, merchant, id);
  const row = await findPayment(ctx.db, merchant.id, payment.id);
  if (!row) throw notFound("Payment");
  return {
    payment,
    customer: {
      name: row.customer_bank_account_name,
      accountNumber: maskAccountNumber(row.customer_bank_account_number),
      bankCode: row.customer_bank_code,
    },
    hostedPageUrl: paymentAppUrl(ctx.config, payment.id),
    transferReference: row.bank_transfer_reference,
    timeline: await timelineOf(ctx, merchant.id, "payment", payment.id),
  };
}

export async function withdrawDetail(
  ctx: { db: Db },
  merchant: Merchant,
  id: string,
): Promise<{ withdraw: WithdrawRecord; timeline: TimelineEntry[] }> {
  const withdraw = await getWithdraw(ctx, merchant, id);
  return { withdraw, timeline: await timelineOf(ctx, merchant.id, "withdraw", withdraw.id) };
}

/**
 * Revokes one of the session merchant's API keys. The operator's revoke (integrations/service.ts)
 * takes any id, so ownership is checked first; an integration never changes merchant, so the
 * check cannot go stale before the revoke.
 */
export async function revokeOwnIntegration(
  ctx: Pick<IntegrationContext, "db" | "clock">,
  merchant: Merchant,
  id: string,
) {
  const existing = isUuid(id) ? await findIntegration(ctx.db, id) : undefined;
  if (existing?.merchant_id !== merchant.id) throw notFound("Integration");
  return integrationView(await revokeIntegration(ctx, id));
}
