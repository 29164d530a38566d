/**
 * buildApp(deps) assembles the HTTP service and returns it without listening, so tests inject
 * requests and `main.ts` decides where to listen.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { adminRoutes } from "./admin/routes.ts";
import type { Deps } from "./deps.ts";
import { hostedRoutes } from "./hosted/routes.ts";
import { hmacAuthentication } from "./http/auth.ts";
import { installBodyParsing, rejectUnparsedBody } from "./http/body.ts";
import { installErrorHandling } from "./http/errors.ts";
import { registerOpenApi } from "./http/openapi.ts";
import { registerRateLimit } from "./http/rate-limit.ts";
import { installRequestId } from "./http/request-id.ts";
import { validatorCompiler } from "./http/validation.ts";
import { BODY_SIZE_MAX_BYTES } from "./lib/limits.ts";
import { opsRoutes } from "./ops/routes.ts";
import { paymentRoutes } from "./payments/routes.ts";

export interface BuildOptions {
  /** pino options, or false for no logging (tests). */
  logger?: boolean | Record<string, unknown>;
}

export async function buildApp(deps: Deps, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_SIZE_MAX_BYTES,
    genReqId: () => "",
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.setValidatorCompiler(validatorCompiler);
  installRequestId(app);
  installBodyParsing(app);
  installErrorHandling(app);
  await registerOpenApi(app, deps);

  await app.register(opsRoutes(deps));
  await app.register(hostedRoutes(deps));
  await app.register(adminRoutes(deps), { prefix: "/admin/v1" });
  await app.register(
    async (api) => {
      api.decorateRequest("auth", undefined);
      api.addHook("preValidation", hmacAuthentication(deps));
      api.addHook("preValidation", rejectUnparsedBody);
      await registerRateLimit(api, deps);
      await api.register(paymentRoutes(deps), { prefix: "/payments" });
    },
    { prefix: "/api/v1" },
  );
  return app;
}
