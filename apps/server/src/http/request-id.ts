/**
 * Every response carries X-Request-Id: the caller's own id when it sent a sane one, otherwise
 * a new UUID. Fastify gives the request that id when it arrives (`genReqId`), so every log
 * line of the request, its own "incoming" and "completed" lines included, carries it.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of an arriving request; passed to Fastify as `genReqId`. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers["x-request-id"];
  return typeof incoming === "string" && ACCEPTABLE.test(incoming) ? incoming : randomUUID();
}

export function installRequestId(app: FastifyInstance): void {
  // Callback style, as the other hooks every request runs: no promise for a header.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("X-Request-Id", request.id);
    done();
  });
}
