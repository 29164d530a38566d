/**
 * Refunds from the merchant's dashboard (CONTRACT 16): the refund button on a succeeded payment,
 * the refunds on a payment's page and the refunds list. Each route calls the same service as the
 * public /api/v1 refund routes with the same schemas, so the rules and refusals are exactly the
 * API's. Registered inside dashboardApiRoutes, whose session hook guards them.
 */

import { ok } from "../http/envelope.ts";
import type { App } from "../http/typed-app.ts";
import { answerCreated } from "../refunds/routes.ts";
import {
  CreateRefundBody,
  ListPaymentRefundsQuery,
  ListRefundsQuery,
  RefundEnvelope,
  RefundListEnvelope,
} from "../refunds/schemas.ts";
import { createRefund, listPaymentRefunds, listRefunds, type RefundContext } from "../refunds/service.ts";
import { OWNERS } from "./roles.ts";
import { IdParams } from "./schemas.ts";
import { sessionOf } from "./sessions.ts";

export function dashboardRefundRoutes(app: App, ctx: RefundContext): void {
  app.get(
    "/refunds",
    { schema: { querystring: ListRefundsQuery, response: { 200: RefundListEnvelope } } },
    async (request) => ok(await listRefunds(ctx, sessionOf(request).merchant, request.query)),
  );
  app.get(
    "/payments/:id/refunds",
    {
      schema: {
        params: IdParams,
        querystring: ListPaymentRefundsQuery,
        response: { 200: RefundListEnvelope },
      },
    },
    async (request) =>
      ok(await listPaymentRefunds(ctx, sessionOf(request).merchant, request.params.id, request.query)),
  );
  app.post(
    "/payments/:id/refunds",
    {
      // A refund sends the merchant's money: owners only (CONTRACT 13: developers manage keys and
      // endpoints, finance reads).
      config: { roles: OWNERS },
      schema: {
        params: IdParams,
        body: CreateRefundBody,
        response: { 200: RefundEnvelope, 201: RefundEnvelope },
      },
    },
    async (request, reply) => {
      const { merchant } = sessionOf(request);
      const result = await createRefund(ctx, merchant, null, request.params.id, request.body);
      return answerCreated(reply, result);
    },
  );
}
