/**
 * The overview's routes: GET /dashboard/api/volume (the last 30 Bangkok days) and
 * GET /dashboard/api/search?q= (a reference id or record id to the records it names).
 * Registered inside dashboardApiRoutes, whose session hook guards them.
 */
import type { Db } from "../db/handles.ts";
import { ok } from "../http/envelope.ts";
import type { App } from "../http/typed-app.ts";
import type { Clock } from "../lib/clock.ts";
import { searchRecords, volumeByDay } from "./overview.ts";
import { SearchEnvelope, SearchQuery, VolumeEnvelope } from "./schemas.ts";
import { sessionOf } from "./sessions.ts";

export function overviewRoutes(app: App, ctx: { db: Db; clock: Clock }): void {
  app.get("/volume", { schema: { response: { 200: VolumeEnvelope } } }, async (request) =>
    ok({ days: await volumeByDay(ctx, sessionOf(request).merchant) }),
  );
  app.get(
    "/search",
    { schema: { querystring: SearchQuery, response: { 200: SearchEnvelope } } },
    async (request) => ok({ hits: await searchRecords(ctx, sessionOf(request).merchant, request.query.q) }),
  );
}
