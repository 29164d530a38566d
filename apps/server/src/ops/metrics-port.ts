/**
 * METRICS_PORT (CONTRACT 14): /metrics alone, on its own port, for the monitoring system's
 * network only, without a token. Every other answer of that port is the API's: JSON in the
 * envelope with X-Request-Id (CONTRACT 0), the same connection timeouts, and the HTTP parser's
 * errors answered as the API port answers them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import type { HttpLimitsConfig } from "../config.ts";
import { answerParserError, serverTimeoutOptions } from "../http/connections.ts";
import { requestIdFor } from "../http/request-id.ts";

function answerError(
  response: ServerResponse,
  id: string,
  status: number,
  code: string,
  message: string,
): void {
  const body = JSON.stringify({ success: false, error: { code, message } });
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "x-request-id": id,
  });
  response.end(body);
}

export async function listenMetrics(
  app: FastifyInstance,
  host: string,
  port: number,
  limits: HttpLimitsConfig,
): Promise<Server> {
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const id = requestIdFor(request);
    const path = request.url?.split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      const message = `Route ${request.method} ${path} not found`;
      answerError(response, id, 404, "RESOURCE_NOT_FOUND", message);
      return;
    }
    app.renderMetrics().then(
      ({ contentType, text }) => {
        response.writeHead(200, { "content-type": contentType, "x-request-id": id });
        response.end(request.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        app.log.error({ err: error, reqId: id }, "metrics could not be rendered");
        answerError(response, id, 500, "INTERNAL_ERROR", "Internal server error");
      },
    );
  };
  const server = createServer({ ...serverTimeoutOptions(limits).http }, handle);
  server.on("clientError", (error: NodeJS.ErrnoException, socket) =>
    answerParserError(error, socket as Socket),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
