/**
 * Every response carries X-Request-Id: the caller's own id when it sent a sane one, otherwise
 * a new UUID. The same id is on every log line of the request.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

export function installRequestId(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    const incoming = request.headers["x-request-id"];
    const id = typeof incoming === "string" && ACCEPTABLE.test(incoming) ? incoming : randomUUID();
    (request as { id: string }).id = id;
    request.log = request.log.child({ reqId: id });
    reply.header("X-Request-Id", id);
  });
}
