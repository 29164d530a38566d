/**
 * Operations endpoints (CONTRACT 14), without authentication: GET /healthz (the process is up
 * and answering, no database), GET /readyz (the database answers `select 1`), GET /metrics
 * (Prometheus text). They are left out of the OpenAPI document, which describes the API.
 */
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import { sql } from "kysely";
import type { Deps } from "../deps.ts";
import { errorBody, ok } from "../http/envelope.ts";
import { AppError } from "../lib/errors.ts";
import { HttpMetrics } from "./metrics.ts";

/** A database that has not answered by then is as good as down for a load balancer. */
const READINESS_TIMEOUT_MS = 2_000;

const hidden = { schema: { hide: true } };

async function databaseAnswers(deps: Deps): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
    timer.unref();
  });
  const probe = sql`select 1 as ok`
    .execute(deps.db)
    .then(() => true)
    .catch(() => false);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function opsRoutes(deps: Deps): FastifyPluginAsync {
  const plugin = async (app: FastifyInstance) => {
    const metrics = new HttpMetrics();
    // Registered on the root (see skip-override below) before the other route plugins, so
    // every route of the app, whatever its scope, is counted.
    app.addHook("onResponse", async (request, reply) => metrics.observe(request, reply));

    app.get("/healthz", hidden, async () => ok({ status: "ok" }));

    app.get("/readyz", hidden, async (request, reply) => {
      if (await databaseAnswers(deps)) return ok({ status: "ready" });
      request.log.warn("readiness probe: database does not answer");
      return reply
        .code(503)
        .send(errorBody(new AppError("SERVICE_UNAVAILABLE", "Database is not reachable")));
    });

    app.get("/metrics", hidden, async (_request, reply) => {
      reply.type(metrics.contentType);
      return metrics.render();
    });
  };
  // Not encapsulated (what fastify-plugin does): the onResponse hook must apply to the whole app.
  return Object.assign(plugin, { [Symbol.for("skip-override")]: true });
}
