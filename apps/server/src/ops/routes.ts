/**
 * Operations endpoints (CONTRACT 14): GET /healthz (the process is up and answering, no
 * database) and GET /readyz (the database answers `select 1`) without authentication; GET
 * /metrics (Prometheus text) only with `Authorization: Bearer <METRICS_TOKEN>`, or the operator
 * token when METRICS_TOKEN is unset, and not at all on the API port when METRICS_PORT is set
 * (server.ts serves it there, from `app.renderMetrics`). They are left out of the OpenAPI
 * document, which describes the API.
 */
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import { sql } from "kysely";
import { adminAuthentication, limitedCredentialCheck } from "../admin/auth.ts";
import type { Config } from "../config.ts";
import { databaseFault } from "../db/faults.ts";
import type { Db } from "../db/handles.ts";
import { bearerToken } from "../http/bearer.ts";
import { errorBody, ok } from "../http/envelope.ts";
import type { Clock } from "../lib/clock.ts";
import { safeEqual, sha256Hex } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { type ConnectorBreaker, HttpMetrics } from "./metrics.ts";

/** A database that has not answered by then is as good as down for a load balancer. */
const READINESS_TIMEOUT_MS = 1_000;

const hidden = { schema: { hide: true } };

interface OpsContext {
  db: Db;
  config: Pick<Config, "adminToken" | "operatorAuthFailuresPerMinute" | "metrics">;
  /** Real time, for the operator check's window of failed tokens (admin/auth.ts). */
  wallClock: Clock;
  /** The store's own probe, which does not wait behind the pool; `select 1` on `db` otherwise. */
  databaseReachable?: ((timeoutMs: number) => Promise<boolean>) | undefined;
  /** Metrics read at scrape time by the composition root (Prometheus text), after the process's own. */
  extraMetrics?: () => Promise<string>;
  /** The gauge `satang_payouts_undecided`: payouts undecided past their bound (CONTRACT 15). */
  undecidedPayouts?: (() => Promise<number>) | undefined;
  /** Each live connector's circuit breaker, in failover order (docs/providers/routing.md). */
  connectorBreakers?: (() => ConnectorBreaker[]) | undefined;
}

async function databaseAnswers(ctx: OpsContext): Promise<boolean> {
  if (ctx.databaseReachable) return ctx.databaseReachable(READINESS_TIMEOUT_MS);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
    timer.unref();
  });
  const probe = sql`select 1 as ok`
    .execute(ctx.db)
    .then(() => true)
    .catch(() => false);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

declare module "fastify" {
  interface FastifyInstance {
    /** The Prometheus text of this process's metrics, and its content type. */
    renderMetrics(): Promise<{ contentType: string; text: string }>;
  }
}

/**
 * A metric read from the database, or `unknown` while the database is unavailable (logged as a
 * warning): one figure missing never fails the whole scrape. Any other error is thrown.
 */
async function unlessDatabaseDown<T>(app: FastifyInstance, read: Promise<T>, unknown: T): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (databaseFault(error) === undefined) throw error;
    app.log.warn({ err: error }, "metrics: the database does not answer; its figures are left out");
    return unknown;
  }
}

/**
 * The check in front of /metrics on the API port: METRICS_TOKEN, else the operator's check; a
 * wrong token of either counts in the operator's limit of failures per address (admin/auth.ts).
 */
function metricsAuthentication(ctx: OpsContext) {
  const token = ctx.config.metrics.token;
  if (token === undefined) return adminAuthentication(ctx);
  const expected = sha256Hex(token);
  return limitedCredentialCheck(
    ctx,
    async (request) => {
      const presented = bearerToken(request.headers.authorization);
      return presented !== undefined && safeEqual(sha256Hex(presented), expected);
    },
    () => new AppError("INVALID_CREDENTIALS", "Invalid or missing metrics token"),
  );
}

export function opsRoutes(ctx: OpsContext): FastifyPluginAsync {
  const plugin = async (app: FastifyInstance) => {
    const undecided = ctx.undecidedPayouts;
    const metrics = new HttpMetrics({
      // Read from the database at each scrape: while it does not answer, the figure is unknown
      // (NaN), and the scrape still carries the process and HTTP metrics, its 503s among them.
      undecidedPayouts: undecided && (() => unlessDatabaseDown(app, undecided(), Number.NaN)),
      connectorBreakers: ctx.connectorBreakers,
    });
    // Registered on the root (see skip-override below) before the other route plugins, so
    // every route of the app, whatever its scope, is counted.
    app.addHook("onResponse", (request, reply, done) => {
      try {
        metrics.observe(request, reply);
        done();
      } catch (error) {
        done(error as Error);
      }
    });

    app.get("/healthz", hidden, async () => ok({ status: "ok" }));

    app.get("/readyz", hidden, async (request, reply) => {
      // A connector whose breaker is open is listed for operators but never makes the process
      // unready: the router skips it, and other connectors (or its own recovery) carry on.
      if (await databaseAnswers(ctx)) {
        const breakers = ctx.connectorBreakers?.();
        if (breakers === undefined) return ok({ status: "ready" });
        return ok({
          status: "ready",
          connectors: breakers.map(({ connector, state }) => ({ name: connector, breaker: state })),
        });
      }
      request.log.warn("readiness probe: database does not answer");
      return reply
        .code(503)
        .header("Retry-After", "2")
        .send(
          errorBody(
            new AppError("SERVICE_UNAVAILABLE", "Database is not reachable", {
              reason: "unavailable",
              retryAfter: 2,
            }),
          ),
        );
    });

    const render = async () => {
      const text = await metrics.render();
      if (!ctx.extraMetrics) return text;
      const extra = await unlessDatabaseDown(app, ctx.extraMetrics(), "");
      return extra === "" ? text : `${text.trimEnd()}\n\n${extra}`;
    };
    app.decorate("renderMetrics", async () => ({ contentType: metrics.contentType, text: await render() }));
    if (ctx.config.metrics.port !== undefined) return;
    app.get("/metrics", { ...hidden, preHandler: metricsAuthentication(ctx) }, async (_request, reply) => {
      reply.type(metrics.contentType);
      return render();
    });
  };
  // Not encapsulated (what fastify-plugin does): the onResponse hook must apply to the whole app.
  return Object.assign(plugin, { [Symbol.for("skip-override")]: true });
}
