/**
 * The operator's view of SCB (docs/providers/scb.md, "What the operator can see"), mounted under
 * /admin/v1 in the operator scope by the admin plugin (admin/connector-routes.ts, through the
 * registry), behind the operator's credentials:
 *
 * - GET /providers/scb/exchanges               calls to SCB and confirmations from SCB, newest first
 * - GET /providers/scb/exchanges/:id           one exchange
 * - GET /payments/by-scb-reference/:ref1       the payment with that ref1, with its merchant id
 *
 * Registered whatever the provider: a deployment that stopped using SCB still shows what it
 * recorded, and one that never used it shows an empty list.
 */

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { ok } from "../../http/envelope.ts";
import { documented } from "../../http/openapi-errors.ts";
import type { App } from "../../http/typed-app.ts";
import { getPaymentByCollectionReference, paymentNotFound } from "../../payments/service.ts";
import type { OperatorRoutes, OperatorRoutesContext } from "../operator.ts";
import { exchangeNotFound, getScbExchange, listScbExchanges } from "./exchanges.ts";
import {
  ExchangeEnvelope,
  ExchangeIdParams,
  ExchangeListEnvelope,
  ExchangeListQuery,
  OperatorPaymentEnvelope,
  ScbReferenceParams,
} from "./operator-schemas.ts";

const tags = ["admin"];

type ScbAdminContext = OperatorRoutesContext;

export const scbOperatorRoutes: OperatorRoutes = (ctx): FastifyPluginAsync => {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    listExchangesRoute(app, ctx);
    showExchangeRoute(app, ctx);
    paymentByReferenceRoute(app, ctx);
  };
};

function listExchangesRoute(app: App, ctx: ScbAdminContext): void {
  app.get(
    "/providers/scb/exchanges",
    {
      schema: {
        tags,
        summary: "List the exchanges with SCB, newest first",
        operationId: "listScbExchanges",
        description:
          "Every call to SCB with its answer (or why none came) and every payment confirmation SCB " +
          "posted, redacted as recorded: no token, no secret, no full account number. dateFrom and " +
          "dateTo bound the start of an exchange. Kept SCB_EXCHANGE_RETENTION_DAYS (default 90).",
        querystring: ExchangeListQuery,
        response: { 200: ExchangeListEnvelope },
      },
    },
    async (request) => ok(await listScbExchanges(ctx, request.query)),
  );
}

function showExchangeRoute(app: App, ctx: ScbAdminContext): void {
  app.get(
    "/providers/scb/exchanges/:id",
    {
      schema: {
        tags,
        summary: "One exchange with SCB",
        operationId: "retrieveScbExchange",
        params: ExchangeIdParams,
        "x-errors": [documented("No SCB exchange has this id", exchangeNotFound())],
        response: { 200: ExchangeEnvelope },
      },
    },
    async (request) => ok(await getScbExchange(ctx, request.params.id)),
  );
}

function paymentByReferenceRoute(app: App, ctx: ScbAdminContext): void {
  app.get(
    "/payments/by-scb-reference/:ref1",
    {
      schema: {
        tags,
        summary: "Find a live PromptPay payment by its SCB ref1, with its merchant id",
        operationId: "retrievePaymentByScbReference",
        description:
          "The reference SCB shows for a bill payment (ref1) is the payment's collection reference, " +
          "unique in the deployment. Upper case; lower case is found too. None: 404.",
        params: ScbReferenceParams,
        "x-errors": [documented("No live PromptPay payment has this ref1", paymentNotFound())],
        response: { 200: OperatorPaymentEnvelope },
      },
    },
    async (request) => {
      const { collectionReference, ...payment } = await getPaymentByCollectionReference(
        ctx,
        request.params.ref1,
      );
      return ok({ ...payment, scbReference: collectionReference });
    },
  );
}
