/**
 * The operator's lifecycle routes under /admin/v1 (CONTRACT 2, 10):
 *
 * - POST /merchants/:id/clock/advance  { seconds }  sandbox only: moves that merchant's test clock
 * - POST /merchants/:id/clock/reset               sandbox only: brings it back to wall-clock time
 * - GET  /anomalies                    provider reports refused although money may have moved
 *
 * The clock routes are registered only in sandbox, so live answers it 404 like an unknown route.
 * The operator check (admin/auth.ts, added to the operator scope in app.ts) runs before the
 * body is looked at.
 */

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok, page } from "../http/envelope.ts";
import { EmptyBody } from "../http/fields.ts";
import { documented } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import { notFound } from "../lib/errors.ts";
import { PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import { listAnomalies } from "./anomalies.ts";
import { advanceMerchantClock, DUE_WORK_LEFT, resetMerchantClock } from "./clock.ts";
import type { LifecycleContext } from "./context.ts";
import {
  AdminClockEnvelope,
  AnomalyListEnvelope,
  AnomalyQuery,
  ClockAdvanceBody,
  MerchantIdParams,
} from "./schemas.ts";

const tags = ["admin"];

/** Sandbox only: the operator moves a merchant's test clock forward or back to wall-clock time. */
function merchantClockRoutes(app: App, ctx: LifecycleContext): void {
  app.post(
    "/merchants/:id/clock/advance",
    {
      schema: {
        tags,
        summary: "Move a merchant's sandbox test clock forward (sandbox only)",
        operationId: "advanceMerchantTestClock",
        description:
          "Moves only that merchant's business time, never back; work that becomes due is done " +
          "before the answer (if it fails after the clock moved, the answer is still the moved " +
          "clock and the workers finish it).",
        params: MerchantIdParams,
        "x-errors": [documented("No merchant has this id", notFound("Merchant"))],
        body: ClockAdvanceBody,
        response: { 200: AdminClockEnvelope },
      },
    },
    async (request) => {
      const clock = await advanceMerchantClock(ctx, request.params.id, request.body.seconds, (err) =>
        request.log.warn({ err }, DUE_WORK_LEFT),
      );
      return ok({ merchantId: request.params.id.toLowerCase(), ...clock });
    },
  );
  app.post(
    "/merchants/:id/clock/reset",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags,
        summary: "Bring a merchant's sandbox test clock back to wall-clock time (sandbox only)",
        operationId: "resetMerchantTestClock",
        description:
          "Records already made keep their timestamps; an open payment's expiresAt stays where it " +
          "was set, and a later change to a record is never stamped before its last one.",
        params: MerchantIdParams,
        "x-errors": [documented("No merchant has this id", notFound("Merchant"))],
        body: EmptyBody,
        response: { 200: AdminClockEnvelope },
      },
    },
    async (request) => {
      const clock = await resetMerchantClock(ctx, request.params.id);
      return ok({ merchantId: request.params.id.toLowerCase(), ...clock });
    },
  );
}

/** Provider reports refused although money may have moved. */
function anomalyRoutes(app: App, ctx: LifecycleContext): void {
  app.get(
    "/anomalies",
    {
      schema: {
        tags,
        summary: "Provider reports the service refused although money may have moved",
        operationId: "listAnomalies",
        description:
          "A payment confirmed more than 72 hours after it expired or after it was canceled, a " +
          "payout reported paid for a canceled withdraw, a paid payout reported failed, a late " +
          "success the wallet no longer covers. Newest first.",
        querystring: AnomalyQuery,
        response: { 200: AnomalyListEnvelope },
      },
    },
    async (request) => {
      const pageNumber = request.query.page ?? 1;
      const limit = request.query.limit ?? PAGE_SIZE_DEFAULT;
      const { records, total } = await listAnomalies(ctx, {
        merchantId: request.query.merchantId,
        open: request.query.open,
        page: pageNumber,
        limit,
      });
      return ok(page(records, total, pageNumber, limit));
    },
  );
}

export function lifecycleAdminRoutes(ctx: LifecycleContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    if (ctx.config.env === "sandbox") merchantClockRoutes(app, ctx);
    anomalyRoutes(app, ctx);
  };
}
