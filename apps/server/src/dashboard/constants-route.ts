/**
 * GET /dashboard/api/constants: the server's own lists that the dashboard offers as filters,
 * sorts and labels (statuses, methods, destinations, event types, delivery statuses, sort
 * fields, page sizes) and the bank code table, so the page never keeps a copy that could fall
 * behind the API. Built once at start from the lists the API validates with.
 *
 * Nothing in it is secret or belongs to a merchant, so it needs no session: the page can load
 * it beside GET /dashboard/api/me. It is answered with an ETag of its content and revalidated
 * on each load (no-cache), like the page's files.
 */
import type { FastifyPluginAsync } from "fastify";
import { WALLET_STATUSES } from "../balance/schemas.ts";
import {
  DESTINATION_TYPES,
  EVENT_TYPES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  REFUND_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
  WITHDRAW_STATUSES,
} from "../db/types.ts";
import { ok } from "../http/envelope.ts";
import { sendAsset, staticAsset } from "../http/static-assets.ts";
import { BANKS } from "../lib/bank-codes.ts";
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../lib/limits.ts";
import { PAYMENT_SORT_FIELDS } from "../payments/schemas.ts";
import { REFUND_SORT_FIELDS } from "../refunds/schemas.ts";
import { WITHDRAW_SORT_FIELDS } from "../withdraws/schemas.ts";

const DASHBOARD_CONSTANTS = {
  paymentStatuses: PAYMENT_STATUSES,
  paymentMethods: PAYMENT_METHODS,
  paymentSortFields: PAYMENT_SORT_FIELDS,
  withdrawStatuses: WITHDRAW_STATUSES,
  destinationTypes: DESTINATION_TYPES,
  withdrawSortFields: WITHDRAW_SORT_FIELDS,
  refundStatuses: REFUND_STATUSES,
  refundSortFields: REFUND_SORT_FIELDS,
  eventTypes: EVENT_TYPES,
  webhookDeliveryStatuses: WEBHOOK_DELIVERY_STATUSES,
  walletStatuses: WALLET_STATUSES,
  pageSizeDefault: PAGE_SIZE_DEFAULT,
  pageSizeMax: PAGE_SIZE_MAX,
  banks: BANKS.map(({ code, shortName, name, nameTh }) => ({ code, shortName, name, nameTh })),
};

export function dashboardConstantsRoutes(): FastifyPluginAsync {
  const answer = staticAsset(JSON.stringify(ok(DASHBOARD_CONSTANTS)), "application/json; charset=utf-8");
  return async (app) => {
    app.get("/constants", { schema: { hide: true } }, async (request, reply) => {
      reply.header("Cache-Control", "no-cache");
      return sendAsset(request, reply, answer);
    });
  };
}
