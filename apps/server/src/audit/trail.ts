/**
 * The audit trail of the HTTP edges (CONTRACT 2): every state-changing route of the operator API
 * (operator tokens, ADMIN_TOKEN, the payout desk) and of the dashboard is listed in
 * AUDITED_ROUTES with its action and record, and `installAuditTrail` writes one entry for each
 * such request that succeeded, before its answer leaves. A state-changing route missing from
 * the list stops the server at start, so no new route goes unaudited by oversight.
 *
 * The entry follows the action's commit in the same request (the services were left as they
 * are, so the entry does not share their transaction). If it cannot be written the request
 * answers an error, so the operator learns of it; the payout desk's outcomes and undecided
 * resolutions also keep their operator in their own rows, in the action's transaction.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../db/handles.ts";
import type { Clock } from "../lib/clock.ts";
import { AUDITED_ROUTES, type AuditedRoute } from "./routes.ts";
import { type AuditActor, recordAudit } from "./service.ts";
import { merchantOfRecord } from "./store.ts";

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface AuditTrailOptions {
  db: Db;
  wallClock: Clock;
  /** Who acted: from the request's credential, or from the answer (a login). */
  actorOf(request: FastifyRequest, data: Record<string, unknown>): AuditActor | undefined;
  /** The merchant the request acts for when the credential says (a dashboard session). */
  merchantOf?(request: FastifyRequest, data: Record<string, unknown>): string | undefined;
}

function routeKey(method: string, url: string): string {
  return `${method} ${url}`;
}

function dataOf(payload: unknown): Record<string, unknown> {
  if (typeof payload !== "string") return {};
  try {
    const parsed = JSON.parse(payload) as { data?: unknown };
    return parsed.data !== null && typeof parsed.data === "object"
      ? (parsed.data as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

function recordIdOf(
  route: AuditedRoute,
  params: Record<string, unknown>,
  data: Record<string, unknown>,
  actor: AuditActor,
) {
  if (route.id === "none") return null;
  if (route.id === "actor") return actor.id;
  if (route.id === "response") return text(data.id) ?? null;
  return text(params[route.id]) ?? null;
}

/**
 * The merchant whose records the action touched, so the merchant's dashboard shows it: the
 * session's, the path's merchant, the record itself, the answer's merchantId, or the record's row.
 */
async function merchantIdOf(
  request: FastifyRequest,
  options: AuditTrailOptions,
  route: AuditedRoute,
  recordId: string | null,
  data: Record<string, unknown>,
): Promise<string | null> {
  const fromCredential = options.merchantOf?.(request, data);
  if (fromCredential !== undefined) return fromCredential;
  const params = request.params as Record<string, unknown>;
  if (route.merchant === "params.id") return text(params.id) ?? null;
  if (route.record === "merchant") return recordId;
  const fromAnswer =
    text(data.merchantId) ?? text((request.body as Record<string, unknown> | undefined)?.merchantId);
  if (fromAnswer !== undefined) return fromAnswer;
  return recordId === null ? null : ((await merchantOfRecord(options.db, route.record, recordId)) ?? null);
}

async function writeEntry(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  options: AuditTrailOptions,
) {
  if (READS.has(request.method) || reply.statusCode >= 300) return;
  const route = AUDITED_ROUTES[routeKey(request.method, request.routeOptions.url ?? "")];
  if (!route) return;
  const data = dataOf(payload);
  const actor = options.actorOf(request, data);
  if (!actor) return;
  const recordId = recordIdOf(route, request.params as Record<string, unknown>, data, actor);
  await recordAudit(options, actor, {
    action: route.action,
    recordType: route.record,
    recordId,
    merchantId: await merchantIdOf(request, options, route, recordId, data),
    requestId: String(request.id),
    clientAddress: request.ip,
  });
}

/** Audits every state-changing route registered in `scope` (and refuses one not listed). */
export function installAuditTrail(scope: FastifyInstance, options: AuditTrailOptions): void {
  scope.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (READS.has(method)) continue;
      if (!AUDITED_ROUTES[routeKey(method, route.url)])
        throw new Error(`${method} ${route.url} changes state but is not in audit/routes.ts`);
    }
  });
  scope.addHook("onSend", async (request, reply, payload) => {
    await writeEntry(request, reply, payload, options);
    return payload;
  });
}
