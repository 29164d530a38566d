/**
 * The dashboard's API under /dashboard/api, authenticated by the bearer session token of
 * POST /api/v1/auth/login. It is the dashboard page's own back end rather than part of the
 * versioned public API: it lives beside the page, changes with it, and is left out of the
 * OpenAPI document (docs/dashboard.md lists it).
 *
 * In sandbox, GET /clock and POST /clock/reset read and reset the merchant's test clock
 * (CONTRACT 10), so the page can say how far ahead it runs wherever it shows times.
 *
 * Lists take the public API's query schemas and call its services, so filters, sorts, paging
 * and validation errors are exactly the API's. Every route is scoped to the session's merchant.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import {
  CreatedIntegrationEnvelope,
  CreateIntegrationBody,
  IntegrationEnvelope,
  IntegrationListEnvelope,
  PageQuery as IntegrationPageQuery,
  UpdateIntegrationBody,
} from "../admin/schemas.ts";
import { MerchantAuditLogEnvelope, MerchantAuditLogQuery } from "../audit/schemas.ts";
import { listMerchantAuditLog } from "../audit/service.ts";
import { installAuditTrail } from "../audit/trail.ts";
import { BalanceEnvelope } from "../balance/schemas.ts";
import { getBalance } from "../balance/service.ts";
import { type EndpointContext, listEndpoints } from "../events/endpoints.ts";
import {
  DeliveryListEnvelope,
  EndpointListEnvelope,
  PageQuery as EndpointPageQuery,
  EventEnvelope,
  EventListEnvelope,
  ListDeliveriesQuery,
  ListEventsQuery,
  RedeliverBody,
  RedeliveryEnvelope,
} from "../events/schemas.ts";
import {
  type EventContext,
  getEvent,
  listDeliveries,
  listEvents,
  redeliverEvent,
} from "../events/service.ts";
import { emptyBodyAsObject, rejectUnparsedBody } from "../http/body.ts";
import { ok, page } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import type { App } from "../http/typed-app.ts";
import {
  createIntegration,
  type IntegrationContext,
  integrationView,
  listIntegrations,
  updateIntegration,
} from "../integrations/service.ts";
import { PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import { readMerchantClock, resetMerchantClock } from "../lifecycle/clock.ts";
import { ListPaymentsQuery, PaymentListEnvelope } from "../payments/schemas.ts";
import { listPayments, type PaymentContext } from "../payments/service.ts";
import { ClockEnvelope } from "../sandbox/schemas.ts";
import { ListWithdrawsQuery, WithdrawListEnvelope } from "../withdraws/schemas.ts";
import { listWithdraws } from "../withdraws/service.ts";
import { exportRoutes } from "./export-routes.ts";
import { overviewRoutes } from "./overview-routes.ts";
import { dashboardRefundRoutes } from "./refund-routes.ts";
import { authorizeRole, OWNERS } from "./roles.ts";
import { IdParams, MeEnvelope, PaymentDetailEnvelope, WithdrawDetailEnvelope } from "./schemas.ts";
import { paymentDetail, revokeOwnIntegration, withdrawDetail } from "./service.ts";
import { dashboardAuditActor, type SessionContext, sessionAuthentication, sessionOf } from "./sessions.ts";
import { userRoutes } from "./user-routes.ts";
import { webhookEndpointRoutes } from "./webhook-routes.ts";

/** What the dashboard's API uses: its sessions and the services of the records it shows. */
type DashboardApiContext = SessionContext &
  Pick<IntegrationContext, "clock"> &
  EventContext &
  EndpointContext &
  IntegrationContext &
  Pick<PaymentContext, "config">;

export function dashboardApiRoutes(ctx: DashboardApiContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.decorateRequest("dashboard", undefined);
    // The session check runs before the body is looked at, as the API's HMAC check does.
    app.addHook("preValidation", sessionAuthentication(ctx));
    // The role check is the route's own (CONTRACT 13), before the body is looked at.
    app.addHook("preValidation", authorizeRole);
    app.addHook("preValidation", rejectUnparsedBody);
    installAuditTrail(plugin, {
      ...ctx,
      actorOf: dashboardAuditActor,
      merchantOf: (r) => sessionOf(r).merchant.id,
    });
    // Answers carry the merchant's data: no shared cache may keep them.
    app.addHook("onSend", async (_request, reply) => {
      reply.header("Cache-Control", "no-store");
    });

    meRoute(app, ctx);
    balanceRoute(app, ctx);
    listPaymentsRoute(app, ctx);
    paymentDetailRoute(app, ctx);
    listWithdrawsRoute(app, ctx);
    withdrawDetailRoute(app, ctx);
    listEventsRoute(app, ctx);
    retrieveEventRoute(app, ctx);
    redeliverRoute(app, ctx);
    listDeliveriesRoute(app, ctx);
    listEndpointsRoute(app, ctx);
    listApiKeysRoute(app, ctx);
    createApiKeyRoute(app, ctx);
    updateApiKeyRoute(app, ctx);
    revokeApiKeyRoute(app, ctx);
    exportRoutes(app, ctx);
    webhookEndpointRoutes(app, ctx);
    overviewRoutes(app, ctx);
    userRoutes(app, ctx);
    auditLogRoute(app, ctx);
    dashboardRefundRoutes(app, ctx);
    if (ctx.config.env === "sandbox") testClockRoutes(app, ctx);
  };
}

function testClockRoutes(app: App, ctx: DashboardApiContext): void {
  app.get("/clock", { schema: { response: { 200: ClockEnvelope } } }, async (request) =>
    ok(await readMerchantClock(ctx, sessionOf(request).merchant.id)),
  );
  app.post(
    "/clock/reset",
    {
      // CONTRACT 13: a developer has API keys, webhook endpoints and reads; the clock is the owner's.
      config: { roles: OWNERS },
      preValidation: emptyBodyAsObject,
      schema: { body: EmptyBody, response: { 200: ClockEnvelope } },
    },
    async (request) => ok(await resetMerchantClock(ctx, sessionOf(request).merchant.id)),
  );
}

function meRoute(app: App, ctx: DashboardApiContext): void {
  const config = { beforeTwoFactor: true };
  app.get("/me", { config, schema: { response: { 200: MeEnvelope } } }, async (request) => {
    const session = sessionOf(request);
    return ok({
      user: session.user,
      merchant: { id: session.merchant.id, name: session.merchant.name },
      environment: ctx.config.env,
      expiresAt: session.expiresAt.toISOString(),
      twoFactorRequired: session.twoFactorRequired,
    });
  });
}

/** The merchant's own audit entries (CONTRACT 2): its users' actions and the operators' on its records. */
function auditLogRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/audit-log",
    { schema: { querystring: MerchantAuditLogQuery, response: { 200: MerchantAuditLogEnvelope } } },
    async (request) => ok(await listMerchantAuditLog(ctx, sessionOf(request).merchant.id, request.query)),
  );
}

function balanceRoute(app: App, ctx: DashboardApiContext): void {
  app.get("/balance", { schema: { response: { 200: BalanceEnvelope } } }, async (request) =>
    ok(await getBalance(ctx, sessionOf(request).merchant)),
  );
}

function listPaymentsRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/payments",
    { schema: { querystring: ListPaymentsQuery, response: { 200: PaymentListEnvelope } } },
    async (request) => ok(await listPayments(ctx, sessionOf(request).merchant, request.query)),
  );
}

function paymentDetailRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/payments/:id",
    { schema: { params: IdParams, response: { 200: PaymentDetailEnvelope } } },
    async (request) => ok(await paymentDetail(ctx, sessionOf(request).merchant, request.params.id)),
  );
}

function listWithdrawsRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/withdraws",
    { schema: { querystring: ListWithdrawsQuery, response: { 200: WithdrawListEnvelope } } },
    async (request) => ok(await listWithdraws(ctx, sessionOf(request).merchant, request.query)),
  );
}

function withdrawDetailRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/withdraws/:id",
    { schema: { params: IdParams, response: { 200: WithdrawDetailEnvelope } } },
    async (request) => ok(await withdrawDetail(ctx, sessionOf(request).merchant, request.params.id)),
  );
}

function listEventsRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/events",
    { schema: { querystring: ListEventsQuery, response: { 200: EventListEnvelope } } },
    async (request) => ok(await listEvents(ctx, sessionOf(request).merchant, request.query)),
  );
}

function retrieveEventRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/events/:id",
    { schema: { params: IdParams, response: { 200: EventEnvelope } } },
    async (request) => ok(await getEvent(ctx, sessionOf(request).merchant, request.params.id)),
  );
}

/** Every webhook delivery of the merchant, by status, event type, endpoint and date (CONTRACT 13). */
function listDeliveriesRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/webhook-deliveries",
    { schema: { querystring: ListDeliveriesQuery, response: { 200: DeliveryListEnvelope } } },
    async (request) => ok(await listDeliveries(ctx, sessionOf(request).merchant, request.query)),
  );
}

function redeliverRoute(app: App, ctx: DashboardApiContext): void {
  app.post(
    "/events/:id/redeliver",
    {
      preValidation: emptyBodyAsObject,
      schema: { params: IdParams, body: RedeliverBody, response: { 202: RedeliveryEnvelope } },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(await redeliverEvent(ctx, sessionOf(request).merchant, request.params.id, request.body));
    },
  );
}

function listEndpointsRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/webhook-endpoints",
    { schema: { querystring: EndpointPageQuery, response: { 200: EndpointListEnvelope } } },
    async (request) => ok(await listEndpoints(ctx, sessionOf(request).merchant, request.query)),
  );
}

function listApiKeysRoute(app: App, ctx: DashboardApiContext): void {
  app.get(
    "/api-keys",
    { schema: { querystring: IntegrationPageQuery, response: { 200: IntegrationListEnvelope } } },
    async (request) => {
      const pageNumber = request.query.page ?? 1;
      const limit = request.query.limit ?? PAGE_SIZE_DEFAULT;
      const merchantId = sessionOf(request).merchant.id;
      const { records, total } = await listIntegrations(ctx, merchantId, pageNumber, limit);
      return ok(page(records, total, pageNumber, limit));
    },
  );
}

function createApiKeyRoute(app: App, ctx: DashboardApiContext): void {
  app.post(
    "/api-keys",
    {
      config: { twoFactorInLive: true },
      preValidation: emptyBodyAsObject,
      schema: { body: CreateIntegrationBody, response: { 201: CreatedIntegrationEnvelope } },
    },
    async (request, reply) => {
      const created = await createIntegration(ctx, sessionOf(request).merchant.id, {
        name: request.body.name ?? null,
        redirectUrl: request.body.redirectUrl ?? null,
        requireSignatureV2: request.body.requireSignatureV2 ?? false,
      });
      // The secret is in this response only; nothing between here and the browser keeps it.
      return reply.code(201).send(ok(created));
    },
  );
}

function updateApiKeyRoute(app: App, ctx: DashboardApiContext): void {
  app.patch(
    "/api-keys/:id",
    { schema: { params: IdParams, body: UpdateIntegrationBody, response: { 200: IntegrationEnvelope } } },
    async (request) => {
      const { name, redirectUrl, requireSignatureV2 } = request.body;
      const merchantId = sessionOf(request).merchant.id;
      const input = { name, redirectUrl, requireSignatureV2 };
      return ok(integrationView(await updateIntegration(ctx, request.params.id, input, merchantId)));
    },
  );
}

function revokeApiKeyRoute(app: App, ctx: DashboardApiContext): void {
  app.delete(
    "/api-keys/:id",
    { schema: { params: IdParams, response: { 200: IntegrationEnvelope } } },
    async (request) => ok(await revokeOwnIntegration(ctx, sessionOf(request).merchant, request.params.id)),
  );
}
