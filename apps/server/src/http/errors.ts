/**
 * Turns anything thrown while handling a request into the error envelope. Known framework
 * errors map to the service's codes; anything unexpected becomes a generic 500 whose message
 * carries no stack and no SQL (the details go to the log with the request id).
 */
import { randomUUID } from "node:crypto";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, isAppError } from "../lib/errors.ts";
import { BODY_SIZE_MAX_BYTES } from "../lib/limits.ts";
import { errorBody } from "./envelope.ts";

function fromFramework(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new AppError("PAYLOAD_TOO_LARGE", `Request body exceeds ${BODY_SIZE_MAX_BYTES} bytes`);
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
  if (status === 413)
    return new AppError("PAYLOAD_TOO_LARGE", `Request body exceeds ${BODY_SIZE_MAX_BYTES} bytes`);
  if (status === 404) return new AppError("RESOURCE_NOT_FOUND", "Resource not found");
  if (status >= 400 && status < 500)
    return new AppError("VALIDATION_ERROR", error.message || "Invalid request");
  return undefined;
}

/**
 * Errors the router raises before any hook runs (an undecodable URL, a path parameter longer
 * than the router accepts) still get the envelope and a request id.
 */
export function frameworkErrorHandler(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const known =
    error.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? new AppError("VALIDATION_ERROR", "A path parameter is too long", { field: "path" })
      : new AppError("VALIDATION_ERROR", "The request URL is malformed", { field: "path" });
  reply.header("X-Request-Id", randomUUID());
  reply.code(known.status).send(errorBody(known));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = isAppError(error) ? error : fromFramework(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, "request failed");
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
