/**
 * The audit trail of the HTTP edges (CONTRACT 2): every state-changing route of the operator API
 * (operator tokens, ADMIN_TOKEN, the payout desk) and of the dashboard is listed in
 * AUDITED_ROUTES with its action and record, and each such request that succeeded leaves exactly
 * one entry. A state-changing route missing from the list stops the server at start, so no new
 * route goes unaudited by oversight.
 *
 * The entry commits with the action: the route's handler runs with an audit scope that watches
 * the transactions it opens (db/transaction-scope.ts), and the first of them that changes a row
 * and names its actor gets the entry written in it, before its commit. So a crash or a failure
 * cannot keep an action without its entry, nor an entry without its action, and no route or
 * service writes the entry by hand. An action that changed nothing in a transaction of its own
 * (a test event sent to an endpoint, a revoke of what was already revoked) gets its entry on its
 * own when it answers, before the answer leaves; if that write fails, the request answers an error.
 */
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from "fastify";
import { sql } from "kysely";
import type { Db, Trx } from "../db/handles.ts";
import { type TransactionWatcher, watchTransactions } from "../db/transaction-scope.ts";
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

function objectOf(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

function dataOf(payload: unknown): Record<string, unknown> {
  if (typeof payload !== "string") return {};
  try {
    return objectOf((JSON.parse(payload) as { data?: unknown }).data);
  } catch {
    return {};
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/**
 * The record an action created: the answer's `id`, or in its transaction the result's (under
 * the route's `inResult` field when the result wraps the record).
 */
function createdIdOf(route: AuditedRoute, data: Record<string, unknown>, inTransaction: boolean) {
  const holder = inTransaction && route.inResult !== undefined ? objectOf(data[route.inResult]) : data;
  return text(holder.id) ?? null;
}

function recordIdOf(
  route: AuditedRoute,
  params: Record<string, unknown>,
  data: Record<string, unknown>,
  actor: AuditActor,
  inTransaction: boolean,
) {
  if (route.id === "none" || route.id === "session-merchant") return null;
  if (route.id === "actor") return actor.id;
  if (route.id === "response") return createdIdOf(route, data, inTransaction);
  return text(params[route.id]) ?? null;
}

/**
 * The merchant whose records the action touched, so the merchant's dashboard shows it: the
 * session's, the path's merchant, the record itself, the answer's merchantId, or the record's row.
 */
async function merchantIdOf(
  db: Db,
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
    text(data.merchantId) ??
    text(data.merchant_id) ??
    text((request.body as Record<string, unknown> | undefined)?.merchantId);
  if (fromAnswer !== undefined) return fromAnswer;
  return recordId === null ? null : ((await merchantOfRecord(db, route.record, recordId)) ?? null);
}

/**
 * Writes the request's entry with `db` (the action's transaction, or the store on its own), from
 * `data` (the transaction's result, or the answer); false when no actor is known from them.
 */
async function writeEntry(
  db: Db,
  request: FastifyRequest,
  route: AuditedRoute,
  options: AuditTrailOptions,
  data: Record<string, unknown>,
  inTransaction: boolean,
): Promise<boolean> {
  const actor = options.actorOf(request, data);
  if (!actor) return false;
  const recordId = recordIdOf(route, request.params as Record<string, unknown>, data, actor, inTransaction);
  const merchantId = await merchantIdOf(db, request, options, route, recordId, data);
  await recordAudit(
    options,
    actor,
    {
      action: route.action,
      recordType: route.record,
      // An action on the session's own merchant (its test clock) names that merchant.
      recordId: route.id === "session-merchant" ? merchantId : recordId,
      merchantId,
      requestId: String(request.id),
      clientAddress: request.ip,
    },
    db,
  );
  return true;
}

/** Whether the transaction changed a row so far (PostgreSQL gives it an id only then). */
async function changedRows(trx: Trx): Promise<boolean> {
  const { rows } = await sql<{ changed: boolean }>`
    select pg_current_xact_id_if_assigned() is not null as changed`.execute(trx);
  return rows[0]?.changed === true;
}

/**
 * One audited request: its entry is written in the first transaction of the request that changed
 * a row and knows the actor, and counts once that transaction committed. When the answer leaves,
 * the scope closes: transactions the request left running after it (a delivery it started) are
 * not the action's.
 */
class AuditScope implements TransactionWatcher {
  private state: "open" | "pending" | "written" = "open";
  private closed = false;
  private pending: Promise<boolean> | undefined;

  constructor(
    private readonly request: FastifyRequest,
    private readonly route: AuditedRoute,
    private readonly options: AuditTrailOptions,
  ) {}

  async beforeCommit(trx: Trx, result: unknown): Promise<((committed: boolean) => void) | undefined> {
    if (this.closed || this.state !== "open") return undefined;
    this.state = "pending";
    let written = false;
    try {
      written =
        (await changedRows(trx)) &&
        (await writeEntry(trx, this.request, this.route, this.options, objectOf(result), true));
    } finally {
      if (!written) this.state = "open";
    }
    if (!written) return undefined;
    let settle: (committed: boolean) => void = () => {};
    this.pending = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
    return (committed) => {
      this.state = committed ? "written" : "open";
      settle(committed);
    };
  }

  /** At the answer: true when the entry committed with the action, else the scope is closed. */
  async close(): Promise<boolean> {
    this.closed = true;
    if (this.state === "pending" && this.pending) await this.pending;
    return this.state === "written";
  }
}

const scopes = new WeakMap<FastifyRequest, AuditScope>();

/** Audits every state-changing route registered in `scope` (and refuses one not listed). */
export function installAuditTrail(scope: FastifyInstance, options: AuditTrailOptions): void {
  scope.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (READS.has(method)) continue;
      const audited = AUDITED_ROUTES[routeKey(method, route.url)];
      if (!audited) throw new Error(`${method} ${route.url} changes state but is not in audit/routes.ts`);
      const handler = route.handler as (...args: unknown[]) => unknown;
      route.handler = function auditedHandler(this: FastifyInstance, request, reply) {
        const audit = new AuditScope(request, audited, options);
        scopes.set(request, audit);
        return watchTransactions(audit, () => handler.call(this, request, reply));
      } as RouteHandlerMethod;
    }
  });
  scope.addHook("onSend", async (request, reply, payload) => {
    const audit = scopes.get(request);
    if (!audit) return payload;
    scopes.delete(request);
    if ((await audit.close()) || reply.statusCode >= 300) return payload;
    const route = AUDITED_ROUTES[routeKey(request.method, request.routeOptions.url ?? "")];
    if (route) await writeEntry(options.db, request, route, options, dataOf(payload), false);
    return payload;
  });
}
