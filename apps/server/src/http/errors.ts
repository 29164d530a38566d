/**
 * Turns anything thrown while handling a request into the error envelope. Known framework
 * errors map to the service's codes; anything unexpected becomes a generic 500 whose message
 * carries no stack and no SQL (the details go to the log with the request id).
 */
import { randomUUID } from "node:crypto";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import { DATABASE_RETRY_AFTER_S, type DatabaseFault, databaseFault } from "../db/faults.ts";
import { AppError, isAppError } from "../lib/errors.ts";
import { BODY_SIZE_MAX_BYTES } from "../lib/limits.ts";
import { bodyNotReceived, installProtocolAnswers } from "./connections.ts";
import { errorBody } from "./envelope.ts";
import { setSecurityHeaders } from "./security-headers.ts";

/** A body over the limit (CONTRACT 4). */
export function payloadTooLarge(): AppError<"PAYLOAD_TOO_LARGE"> {
  return new AppError("PAYLOAD_TOO_LARGE", `Request body exceeds ${BODY_SIZE_MAX_BYTES} bytes`);
}

function fromFramework(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return payloadTooLarge();
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new AppError("VALIDATION_ERROR", "Content-Type must be application/json", {
        field: "Content-Type",
      });
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new AppError("VALIDATION_ERROR", "Request body is not valid JSON", { field: "body" });
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new AppError("VALIDATION_ERROR", "Content-Length does not match the body", { field: "body" });
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return payloadTooLarge();
  if (status === 404) return new AppError("RESOURCE_NOT_FOUND", "Resource not found");
  if (status >= 400 && status < 500)
    return new AppError("VALIDATION_ERROR", error.message || "Invalid request");
  return undefined;
}

/** A URL the router cannot decode (`/api/v1/refunds/%ZZ`). */
export function malformedUrl(): AppError {
  return new AppError("VALIDATION_ERROR", "The request URL is malformed", { field: "path" });
}

/**
 * Errors the router raises before any hook runs (an undecodable URL, a path parameter longer
 * than the router accepts) still get the envelope, a request id and the security headers every
 * answer carries (http/security-headers.ts).
 */
export function frameworkErrorHandlerFor(config: Pick<Config, "env" | "publicBaseUrl">) {
  return (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
    const known =
      error.code === "FST_ERR_MAX_PARAM_LENGTH"
        ? new AppError("VALIDATION_ERROR", "A path parameter is too long", { field: "path" })
        : malformedUrl();
    reply.header("X-Request-Id", randomUUID());
    setSecurityHeaders(reply, config);
    reply.code(known.status).send(errorBody(known));
  };
}

const FAULT_MESSAGES: Record<DatabaseFault, string> = {
  unavailable: "The database is not reachable; retry later",
  busy: "The database is busy; retry later",
  conflict: "The request conflicted with concurrent requests; retry later",
};

/**
 * An expected database condition (CONTRACT 14): 503 SERVICE_UNAVAILABLE with Retry-After, in
 * the header and as `metadata.retryAfter` (seconds), and the condition in `metadata.reason`.
 */
function unavailable(fault: DatabaseFault, reply: FastifyReply): AppError {
  const error = serviceUnavailable(fault);
  reply.header("Retry-After", String(error.metadata.retryAfter));
  return error;
}

/** The answer to an expected database condition; its Retry-After is `metadata.retryAfter`. */
export function serviceUnavailable(fault: DatabaseFault): AppError<"SERVICE_UNAVAILABLE"> {
  const retryAfter = DATABASE_RETRY_AFTER_S[fault];
  return new AppError("SERVICE_UNAVAILABLE", FAULT_MESSAGES[fault], { reason: fault, retryAfter });
}

/** The log line of a request whose body never arrived, by why (http/connections.ts). */
const BODY_NOT_RECEIVED = {
  timed_out: { status: 408, message: "request body not received in time" },
  aborted: { status: 400, message: "request body not received: the client closed the connection" },
} as const;

/**
 * The error handler, the not-found handler, and the answers to requests Node's HTTP server
 * would otherwise answer itself outside the envelope (http/connections.ts). Runs after the
 * request id and security headers hooks are installed.
 */
export function installErrorHandling(app: FastifyInstance): void {
  installProtocolAnswers(app);
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A client that stopped sending its body: its stream fails with ECONNRESET, which must not
    // read as a lost database connection (operators fail over on "database unavailable",
    // docs/operations.md). It is the request's one line; the answer, if any, was sent already.
    const notReceived = bodyNotReceived(request, error);
    if (notReceived) {
      const { status, message } = BODY_NOT_RECEIVED[notReceived];
      request.log.info(
        { req: request, res: { statusCode: status }, responseTime: reply.elapsedTime, reason: notReceived },
        message,
      );
      const answer = new AppError("VALIDATION_ERROR", "The request body was not received", { field: "body" });
      return reply.code(status).send(errorBody(answer));
    }
    if (!isAppError(error)) {
      const fault = databaseFault(error);
      if (fault) {
        request.log.warn({ fault, code: (error as { code?: unknown }).code }, "database unavailable");
        return reply.code(503).send(errorBody(unavailable(fault, reply)));
      }
    }
    const known = isAppError(error) ? error : fromFramework(error);
    if (known) {
      // A 503 is an expected condition with its Retry-After (a full queue, a busy database): a
      // warning without a stack. Any other 5xx is a fault worth its stack.
      if (known.code === "SERVICE_UNAVAILABLE") {
        // Its metadata always says when to retry; the header says the same to HTTP clients.
        const retryAfter = (known.metadata as { retryAfter?: number } | undefined)?.retryAfter;
        if (retryAfter !== undefined && !reply.hasHeader("Retry-After")) {
          reply.header("Retry-After", String(retryAfter));
        }
        request.log.warn({ code: known.code, metadata: known.metadata }, known.message);
      } else if (known.status >= 500) request.log.error({ err: error }, "request failed");
      return reply.code(known.status).send(errorBody(known));
    }
    request.log.error({ err: error }, "unexpected error");
    return reply.code(500).send(errorBody(new AppError("INTERNAL_ERROR", "Internal server error")));
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?")[0];
    return reply
      .code(404)
      .send(errorBody(new AppError("RESOURCE_NOT_FOUND", `Route ${request.method} ${path} not found`)));
  });
}
