/**
 * What the dashboard shows beyond the public API's own services: a record with its event
 * timeline, and the merchant's API keys. Everything is scoped to the session's merchant; an id
 * of another merchant's record is 404 exactly like a missing one.
 */
import type { EventRow } from "../db/types.ts";
import type { Deps } from "../deps.ts";
import { integrationView, revokeIntegration } from "../integrations/service.ts";
import { findIntegration } from "../integrations/store.ts";
import { notFound } from "../lib/errors.ts";
import { isUuid } from "../lib/ids.ts";
import { DASHBOARD_TIMELINE_EVENTS_MAX } from "../lib/limits.ts";
import type { PaymentRecord } from "../payments/schemas.ts";
import { getPayment } from "../payments/service.ts";
import type { WithdrawRecord } from "../withdraws/schemas.ts";
import { getWithdraw } from "../withdraws/service.ts";
import { type DashboardContext, merchantScope } from "./sessions.ts";
import { eventsOfObject } from "./store.ts";

export interface TimelineEntry {
  id: string;
  type: EventRow["type"];
  createdAt: string;
}

async function timelineOf(
  deps: Deps,
  merchantId: string,
  objectType: EventRow["object_type"],
  id: string,
): Promise<TimelineEntry[]> {
  const rows = await eventsOfObject(deps.db, merchantId, objectType, id, DASHBOARD_TIMELINE_EVENTS_MAX);
  return rows.map((row) => ({ id: row.id, type: row.type, createdAt: row.created_at.toISOString() }));
}

export async function paymentDetail(
  deps: Deps,
  context: DashboardContext,
  id: string,
): Promise<{ payment: PaymentRecord; timeline: TimelineEntry[] }> {
  const payment = await getPayment(deps, merchantScope(context.merchant), id);
  return { payment, timeline: await timelineOf(deps, context.merchant.id, "payment", payment.id) };
}

export async function withdrawDetail(
  deps: Deps,
  context: DashboardContext,
  id: string,
): Promise<{ withdraw: WithdrawRecord; timeline: TimelineEntry[] }> {
  const withdraw = await getWithdraw(deps, merchantScope(context.merchant), id);
  return { withdraw, timeline: await timelineOf(deps, context.merchant.id, "withdraw", withdraw.id) };
}

/**
 * Revokes one of the session merchant's API keys. The operator's revoke (integrations/service.ts)
 * takes any id, so ownership is checked first; an integration never changes merchant, so the
 * check cannot go stale before the revoke.
 */
export async function revokeOwnIntegration(deps: Deps, context: DashboardContext, id: string) {
  const existing = isUuid(id) ? await findIntegration(deps.db, id) : undefined;
  if (existing?.merchant_id !== context.merchant.id) throw notFound("Integration");
  return integrationView(await revokeIntegration(deps, id));
}
