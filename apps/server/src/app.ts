/**
 * buildApp(deps) assembles the HTTP service and returns it without listening, so tests inject
 * requests and `main.ts` decides where to listen.
 */
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { operatorAuditActor } from "./admin/actor.ts";
import { adminAuthentication, adminTokenRefused, adminTokenThrottled } from "./admin/auth.ts";
import { backupRoutes } from "./admin/backup-routes.ts";
import { connectorOperatorRoutes } from "./admin/connector-routes.ts";
import { operatorTokenRoutes } from "./admin/operator-token-routes.ts";
import { operatorPaymentRoutes } from "./admin/payment-routes.ts";
import { adminRoutes } from "./admin/routes.ts";
import { walletAdjustmentRoutes } from "./admin/wallet-routes.ts";
import { installAuditTrail } from "./audit/trail.ts";
import { balanceRoutes } from "./balance/routes.ts";
import { dashboardAdminRoutes } from "./dashboard/admin-routes.ts";
import { dashboardApiRoutes } from "./dashboard/api-routes.ts";
import { loginRoutes } from "./dashboard/auth-routes.ts";
import { dashboardConstantsRoutes } from "./dashboard/constants-route.ts";
import { dashboardPageRoutes } from "./dashboard/page-routes.ts";
import type { Deps } from "./deps.ts";
import { eventRoutes, webhookEndpointRoutes } from "./events/routes.ts";
import { hostedRoutes } from "./hosted/routes.ts";
import { hmacAuthentication, settleReplay, spendStraySignatures } from "./http/auth.ts";
import { installBodyParsing, rejectUnparsedBody } from "./http/body.ts";
import { clientErrorHandler, installConnectionCap, serverTimeoutOptions } from "./http/connections.ts";
import { errorBody } from "./http/envelope.ts";
import { frameworkErrorHandlerFor, installErrorHandling } from "./http/errors.ts";
import { fontRoutes } from "./http/fonts.ts";
import { registerOpenApi } from "./http/openapi.ts";
import { EXAMPLE_MOMENT } from "./http/openapi-examples.ts";
import { registerRateLimit } from "./http/rate-limit.ts";
import { installRequestId, requestIdFor } from "./http/request-id.ts";
import { requestLogController } from "./http/request-log.ts";
import { installRouteCatalog } from "./http/route-catalog.ts";
import { installSecurityHeaders } from "./http/security-headers.ts";
import { serializerCompiler } from "./http/serializer.ts";
import { validatorCompiler } from "./http/validation.ts";
import { AppError } from "./lib/errors.ts";
import { BODY_SIZE_MAX_BYTES, REFERENCE_ID_LENGTH_MAX } from "./lib/limits.ts";
import { lifecycleAdminRoutes } from "./lifecycle/admin-routes.ts";
import { providerCallbackRoutes } from "./lifecycle/callback-routes.ts";
import { noticeRoutes } from "./lifecycle/notice-routes.ts";
import { dailyReportRoutes } from "./lifecycle/report-routes.ts";
import { undecidedCount } from "./lifecycle/undecided.ts";
import { undecidedPayoutRoutes } from "./lifecycle/undecided-routes.ts";
import { opsRoutes } from "./ops/routes.ts";
import { paymentRoutes } from "./payments/routes.ts";
import { payoutDeskPageRoutes } from "./payout-desk/page-routes.ts";
import { payoutDeskRoutes } from "./payout-desk/routes.ts";
import { connectorMetrics, unreadableAnswersOf } from "./providers/registry.ts";
import { connectorBreakersOf } from "./providers/routing/router.ts";
import { refundRoutes } from "./refunds/routes.ts";
import { reportRoutes } from "./reports/routes.ts";
import { landingRoutes } from "./sandbox/landing.ts";
import { sandboxRoutes } from "./sandbox/routes.ts";
import { withdrawAdminRoutes } from "./withdraws/admin-routes.ts";
import { withdrawRoutes } from "./withdraws/routes.ts";

/** Retry-After of a request that arrives while the service shuts down (another process serves it). */
const CLOSING_RETRY_AFTER_S = 1;

interface BuildOptions {
  /** pino options, or false for no logging (tests). */
  logger?: boolean | Record<string, unknown>;
  /** Extra routes inside the authenticated /api/v1 scope: for tests of authentication only. */
  extraApiRoutes?: FastifyPluginAsync;
}

/** The operator API (CONTRACT 2): every route behind the operator token. */
function operatorRoutes(deps: Deps): FastifyPluginAsync {
  return async (operator) => {
    // The operator check runs before the body is looked at, so an unauthenticated caller
    // learns nothing from validation errors.
    operator.addHook("preValidation", adminAuthentication(deps));
    operator.addHook("preValidation", rejectUnparsedBody);
    // Every state-changing operator route is audited under the credential's name (CONTRACT 2).
    installAuditTrail(operator, { ...deps, actorOf: operatorAuditActor });
    await operator.register(adminRoutes(deps));
    await operator.register(operatorPaymentRoutes(deps));
    await operator.register(operatorTokenRoutes(deps));
    await operator.register(walletAdjustmentRoutes(deps));
    await operator.register(withdrawAdminRoutes(deps));
    await operator.register(lifecycleAdminRoutes(deps));
    await operator.register(undecidedPayoutRoutes(deps));
    await operator.register(dashboardAdminRoutes(deps));
    await operator.register(payoutDeskRoutes(deps));
    await operator.register(connectorOperatorRoutes(deps));
    await operator.register(dailyReportRoutes(deps));
    await operator.register(backupRoutes(deps));
  };
}

/** Fastify's options for the app: logging, limits, request ids, timeouts and routing. */
function fastifyOptions(deps: Deps, options: BuildOptions): FastifyServerOptions {
  return {
    logger: options.logger ?? false,
    // One line per request instead of Fastify's two (http/request-log.ts).
    logController: requestLogController(),
    bodyLimit: BODY_SIZE_MAX_BYTES,
    genReqId: requestIdFor,
    requestIdHeader: false,
    // A request that arrives once close has begun is answered by the app's own hook (buildApp),
    // in the envelope with Retry-After, not by Fastify's bare 503.
    return503OnClosing: false,
    frameworkErrors: frameworkErrorHandlerFor(deps.config),
    forceCloseConnections: "idle",
    ...serverTimeoutOptions(deps.config.http),
    clientErrorHandler,
    // A path parameter may be a referenceId of 255 characters, each percent-encoded in the
    // worst case; Fastify's default of 100 would answer a valid by-reference lookup with 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 3 * REFERENCE_ID_LENGTH_MAX },
  };
}

/**
 * What the app does once close has begun (docs/operations.md, "Shutdown"): a request that
 * arrives then is not started but answered 503 SERVICE_UNAVAILABLE with Retry-After, in the
 * envelope with its request id and headers as every answer (CONTRACT 14), so a client or load
 * balancer sends it again, here once the service is back or to another process; and an answer
 * to a request in flight closes its connection after it, so the drain does not wait for the
 * client's keep-alive to run out. Every answer also spends a stray v1 signature (http/auth.ts).
 */
function installDrain(app: FastifyInstance, spendStray: (request: FastifyRequest) => Promise<void>): void {
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  // Callback style: every request passes this hook, and only a refused one is answered here.
  app.addHook("onRequest", (_request, reply, done) => {
    if (!closing) return done();
    reply.header("Retry-After", String(CLOSING_RETRY_AFTER_S));
    reply.code(503).send(
      errorBody(
        new AppError("SERVICE_UNAVAILABLE", "The service is shutting down; retry shortly", {
          retryAfter: CLOSING_RETRY_AFTER_S,
        }),
      ),
    );
  });
  app.addHook("onSend", async (request, reply, payload) => {
    await spendStray(request);
    if (closing) reply.header("connection", "close");
    return payload;
  });
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(deps, options));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installConnectionCap(app, deps.config.http.connectionsPerAddressMax);
  installRouteCatalog(app);
  installRequestId(app);
  installSecurityHeaders(app, deps.config);
  installBodyParsing(app);
  installErrorHandling(app);
  installDrain(app, spendStraySignatures(deps));
  await registerOpenApi(app, deps.config, {
    adminTokenRefused: adminTokenRefused(),
    adminTokenThrottled: adminTokenThrottled(
      deps.config.operatorAuthFailuresPerMinute,
      new Date(EXAMPLE_MOMENT),
    ),
  });

  // Answers a connector could not read are logged with the app's logger.
  for (const unreadable of unreadableAnswersOf(deps.connectors)) unreadable.attach(app.log);
  await app
    .register(
      opsRoutes({
        ...deps,
        extraMetrics: () => connectorMetrics(deps.db),
        undecidedPayouts: () => undecidedCount(deps),
        connectorBreakers: deps.router ? () => connectorBreakersOf(deps.router) : undefined,
      }),
    )
    .register(landingRoutes(deps.config));
  await app.register(hostedRoutes(deps));
  await app.register(fontRoutes());
  await app.register(operatorRoutes(deps), { prefix: "/admin/v1" });
  // Dashboard login lives under /api/v1 but outside the HMAC scope below, whose hooks apply only
  // to the routes registered inside it: a person logging in has a password, not an API key.
  await app.register(loginRoutes(deps), { prefix: "/api/v1/auth" });
  await app.register(dashboardPageRoutes(deps.config), { prefix: "/dashboard" });
  await app.register(payoutDeskPageRoutes(deps.config), { prefix: "/dashboard/payout-desk" });
  await app.register(dashboardApiRoutes(deps), { prefix: "/dashboard/api" });
  await app.register(dashboardConstantsRoutes(), { prefix: "/dashboard/api" });
  await app.register(providerCallbackRoutes(deps), { prefix: "/providers" });
  await app.register(noticeRoutes(deps), { prefix: "/providers" });
  await app.register(
    async (api) => {
      api.decorateRequest("auth", undefined);
      api.addHook("preValidation", hmacAuthentication(deps));
      const budget = await registerRateLimit(api, deps);
      api.addHook("onSend", settleReplay(deps.config.env, budget.giveBack));
      api.addHook("preValidation", rejectUnparsedBody);
      if (options.extraApiRoutes) await api.register(options.extraApiRoutes);
      await api.register(paymentRoutes(deps), { prefix: "/payments" });
      await api.register(withdrawRoutes(deps), { prefix: "/withdraws" });
      await api.register(balanceRoutes(deps), { prefix: "/balance" });
      await api.register(refundRoutes(deps));
      // Sandbox only: in live these paths are unknown routes and answer 404 (CONTRACT 1).
      if (deps.config.env === "sandbox") await api.register(sandboxRoutes(deps), { prefix: "/sandbox" });
      await api.register(webhookEndpointRoutes(deps), { prefix: "/webhook-endpoints" });
      await api.register(eventRoutes(deps), { prefix: "/events" });
      await api.register(reportRoutes(deps), { prefix: "/reports" });
    },
    { prefix: "/api/v1" },
  );
  return app;
}
