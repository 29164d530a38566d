/**
 * Connection limits (CONTRACT 14): timeouts for headers, the whole request and idle keep-alive,
 * checked often enough to be enforced within a fraction of their bound (Node checks every 30 s
 * unless told otherwise); a cap on the connections one client address holds; and errors of the
 * HTTP parser itself (a bad request line, bad header bytes, headers or URL over 16 KB, a
 * timeout) answered in the envelope with X-Request-Id before the connection closes.
 */
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { HttpLimitsConfig } from "../config.ts";
import { unfinishedRequestId } from "./request-id.ts";

/** Fastify options that set the timeouts on the server it creates. */
export function serverTimeoutOptions(limits: HttpLimitsConfig) {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs, limits.keepAliveTimeoutMs);
  return {
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node looks for requests past their headers or request timeout.
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(shortest / 4))),
    },
  };
}

/** Status and message for an error the HTTP parser raised. */
function parserAnswer(error: NodeJS.ErrnoException): { status: number; reason: string; message: string } {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, reason: "Request Timeout", message: "The request was not received in time" };
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 431,
        reason: "Request Header Fields Too Large",
        message: "The request line or headers exceed 16 KB",
      };
    default:
      return { status: 400, reason: "Bad Request", message: "The request is not valid HTTP" };
  }
}

/** The connections this handler answered 408: a body still arriving on one was cut off. */
const timedOut = new WeakSet<Socket>();

/** Fastify's `clientErrorHandler`: the envelope instead of Fastify's own body. */
export function clientErrorHandler(
  this: FastifyInstance,
  error: NodeJS.ErrnoException,
  socket: Socket,
): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") timedOut.add(socket);
  const { status, reason, message } = parserAnswer(error);
  const body = JSON.stringify({ success: false, error: { code: "VALIDATION_ERROR", message } });
  this.log.debug({ code: error.code }, "client error");
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${unfinishedRequestId(socket) ?? randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Why a request's body never arrived, when `error` is the failure of the request's own stream:
 * "timed_out" when the server cut the connection at HTTP_BODY_TIMEOUT_MS (and answered 408
 * above), "aborted" when the client closed it. Node fails the stream of an unfinished request
 * with ECONNRESET "aborted" either way, the code a lost database connection has too, so the test
 * is that the error is the one the stream was destroyed with: nothing the database driver throws
 * ever is. Undefined for any other error.
 */
export function bodyNotReceived(
  request: FastifyRequest,
  error: unknown,
): "timed_out" | "aborted" | undefined {
  const raw = request.raw;
  if (error === null || error === undefined || raw.errored !== error) return undefined;
  return timedOut.has(raw.socket) ? "timed_out" : "aborted";
}

/**
 * Closes a new connection at once when its address already holds `max` open ones. Runs on the
 * server Fastify created; a proxy in front makes every client one address, so raise the
 * setting there (docs/operations.md).
 */
export function installConnectionCap(app: FastifyInstance, max: number): void {
  const open = new Map<string, number>();
  app.server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once("close", () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left <= 0) open.delete(address);
      else open.set(address, left);
    });
  });
}
