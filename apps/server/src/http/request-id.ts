/**
 * Every response carries X-Request-Id: the caller's own id when it sent a sane one, otherwise
 * a new UUID. Fastify gives the request that id when it arrives (`genReqId`), so every log
 * line of the request, its own "incoming" and "completed" lines included, carries it.
 *
 * The operator API, the dashboard API and the dashboard's login always get a new UUID: their
 * actions are recorded in the audit log with the request's id (audit/trail.ts), and an id the
 * actor chose could name two entries, or another request's log lines.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths whose state-changing requests the audit log records (audit/routes.ts). */
const AUDITED_PATHS = /^\/+(?:admin\/|dashboard\/api\/|api\/v1\/auth\/)/i;

/**
 * Whether the request may reach an audited route, as the router would read its path: the
 * target's path (also of an absolute-form target, `POST http://host/admin/...`), percent-decoded.
 * A target that is not an origin-form path, or that does not decode, gets the service's own id.
 */
function isAudited(url: string | undefined): boolean {
  if (url === undefined || !url.startsWith("/")) return true;
  const path = url.split("?", 1)[0]!;
  try {
    return AUDITED_PATHS.test(decodeURIComponent(path));
  } catch {
    return true;
  }
}

/** The latest request on each connection, so an answer the HTTP server writes can name it. */
const latestOnSocket = new WeakMap<Socket, { request: IncomingMessage; id: string }>();

/** The id of an arriving request; passed to Fastify as `genReqId`. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers["x-request-id"];
  const id =
    typeof incoming === "string" && ACCEPTABLE.test(incoming) && !isAudited(request.url)
      ? incoming
      : randomUUID();
  if (request.socket) latestOnSocket.set(request.socket, { request, id });
  return id;
}

/**
 * The id of the request still arriving on `socket` (its body not all received), if any: the 408
 * of a body timeout carries it, so the client holds the id the log line names. A finished
 * request on a kept-alive connection does not count.
 */
export function unfinishedRequestId(socket: Socket): string | undefined {
  const latest = latestOnSocket.get(socket);
  return latest && !latest.request.complete ? latest.id : undefined;
}

export function installRequestId(app: FastifyInstance): void {
  // Callback style, as the other hooks every request runs: no promise for a header.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("X-Request-Id", request.id);
    done();
  });
}
