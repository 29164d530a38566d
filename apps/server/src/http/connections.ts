/**
 * Connection limits (CONTRACT 14): timeouts for headers, the whole request and idle keep-alive,
 * checked often enough to be enforced within a fraction of their bound (Node checks every 30 s
 * unless told otherwise); a cap on the connections one client address holds; and errors of the
 * HTTP parser itself (a bad request line, bad header bytes, headers or URL over 16 KB, a
 * timeout) answered in the envelope with X-Request-Id before the connection closes. So are the
 * requests Node's HTTP server would otherwise answer itself, with an empty body and no id, or
 * not at all: an HTTP/1.1 request without Host, an Expect other than 100-continue, a CONNECT.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { HttpLimitsConfig } from "../config.ts";
import { AppError, ERROR_STATUS } from "../lib/errors.ts";
import { requestIdFor, unfinishedRequestId } from "./request-id.ts";

/**
 * Fastify options for the server it creates: the timeouts, and Node's own Host check off
 * (installProtocolAnswers refuses a request without Host in the envelope instead).
 */
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
      // Node would answer an HTTP/1.1 request without Host itself, 400 with an empty body and no
      // request id; the hook in installProtocolAnswers refuses it in the envelope instead.
      requireHostHeader: false,
    },
  };
}

/** A request line, headers or body that did not arrive within its bound (CONTRACT 14). */
export function requestTimedOut(): AppError<"REQUEST_TIMEOUT"> {
  return new AppError("REQUEST_TIMEOUT", "The request was not received in time");
}

/**
 * Code, reason phrase and message for an error the HTTP parser raised: `VALIDATION_ERROR` (400,
 * the status CONTRACT 4 gives that code; a request line or headers over 16 KB too, rather than
 * HTTP's 431), except a timeout, which CONTRACT 14 answers 408: `REQUEST_TIMEOUT`, that status's code.
 */
function parserAnswer(error: NodeJS.ErrnoException): ParserAnswer {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        code: "REQUEST_TIMEOUT",
        reason: "Request Timeout",
        message: requestTimedOut().message,
      };
    case "HPE_HEADER_OVERFLOW":
      return {
        code: "VALIDATION_ERROR",
        reason: "Bad Request",
        message: "The request line or headers exceed 16 KB",
      };
    default:
      return { code: "VALIDATION_ERROR", reason: "Bad Request", message: "The request is not valid HTTP" };
  }
}

/** An answer written outside Fastify: its code (whose status it has), reason phrase and message. */
interface ParserAnswer {
  code: "VALIDATION_ERROR" | "REQUEST_TIMEOUT";
  reason: string;
  message: string;
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
  this.log.debug({ code: error.code }, "client error");
  answerParserError(error, socket);
}

/** Answers an error of the HTTP parser in the envelope, with X-Request-Id, and closes the connection. */
export function answerParserError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") timedOut.add(socket);
  answerAndClose(socket, parserAnswer(error), unfinishedRequestId(socket) ?? randomUUID());
}

/** The envelope's body of an error answered outside Fastify. */
function errorBody(code: ParserAnswer["code"], message: string): string {
  return JSON.stringify({ success: false, error: { code, message } });
}

/**
 * The security headers every answer carries (http/security-headers.ts), for the answers written
 * outside Fastify.
 */
const OUTSIDE_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "no-store",
} as const;
const RAW_SECURITY_HEADERS = Object.entries(OUTSIDE_SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join("");

/** Writes a whole answer in the envelope on a socket the HTTP server no longer reads, and closes it. */
function answerAndClose(socket: Socket, { code, reason, message }: ParserAnswer, id: string): void {
  const body = errorBody(code, message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${ERROR_STATUS[code]} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\n${RAW_SECURITY_HEADERS}` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * Answers in the envelope, with X-Request-Id, the requests Node's HTTP server answers itself
 * before Fastify sees them (CONTRACT 0 and 14):
 * - an HTTP/1.1 request without a Host header (RFC 9112 3.2 wants it refused): 400, with
 *   `metadata.field` "Host", through the app's own error handler (serverTimeoutOptions turns
 *   Node's own check off); HTTP/1.0 needs no Host and is served;
 * - an `Expect` other than `100-continue` (Node answers 417 with an empty body): 400, the status
 *   of `VALIDATION_ERROR` (CONTRACT 4; RFC 9110 lets a server answer 417, not requires it), and the
 *   connection closed, since the client may or may not send the body it announced;
 * - `CONNECT` (Node closes the connection without a word when nothing listens for it): 400, then
 *   the connection closed; the service is not a proxy.
 * Installed with the error handler (http/errors.ts), after the request id and security headers
 * hooks, so the Host refusal carries them.
 */
export function installProtocolAnswers(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    const raw = request.raw;
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1) {
      reply.header("Connection", "close");
      done(
        new AppError("VALIDATION_ERROR", "An HTTP/1.1 request must carry a Host header", { field: "Host" }),
      );
      return;
    }
    done();
  });
  app.server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    const body = errorBody("VALIDATION_ERROR", "Expect: only 100-continue is supported");
    app.log.debug({ expect: request.headers.expect }, "expectation refused");
    response.writeHead(400, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      "X-Request-Id": requestIdFor(request),
      ...OUTSIDE_SECURITY_HEADERS,
      Connection: "close",
    });
    response.end(body);
  });
  app.server.on("connect", (request: IncomingMessage, socket: Socket) => {
    app.log.debug({ url: request.url }, "CONNECT refused");
    const message = "CONNECT is not supported: this service is not a proxy";
    answerAndClose(
      socket,
      { code: "VALIDATION_ERROR", reason: "Bad Request", message },
      requestIdFor(request),
    );
  });
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
