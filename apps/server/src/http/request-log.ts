/**
 * One log line per request, written when it ends: "request completed" at info with the request
 * (method, URL as server.ts `loggedUrl` writes it, host, client address), its status and the
 * time it took, under the request's id. Fastify's default is two lines, "incoming request" when
 * a request arrives and "request completed" with only the status; every line is serialized and
 * redacted (server.ts `loggerOptions`), so each line is a cost of every request
 * (docs/PERFORMANCE.md). The arriving line is kept at debug, to trace a request that never
 * ends. Errors and Fastify's other lines are logged as Fastify logs them.
 */
import { type FastifyReply, type FastifyRequest, LogController } from "fastify";

class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // pino's debug is a no-op below its level: nothing is serialized at info.
    request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        "request errored",
      );
    } else {
      reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
    }
  }
}

/** The app's request logging (Fastify's `logController` option). */
export function requestLogController(): LogController {
  return new OneLinePerRequest();
}
