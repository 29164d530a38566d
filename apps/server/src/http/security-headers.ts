/**
 * Headers every answer carries, set when the request arrives so that errors, 404s and streamed
 * exports get them too:
 * - `X-Content-Type-Options: nosniff`: a browser never reads a JSON or CSV answer as a page or
 *   a script.
 * - `Cache-Control: no-store` unless the route says otherwise (the pages' versioned assets, the
 *   QR image): answers that carry secrets (a payment's clientSecret, an integration's apiSecret,
 *   an operator token) and merchants' records (CSV exports) are never kept by a browser or a
 *   proxy.
 * - In live, when PUBLIC_BASE_URL is https, `Strict-Transport-Security` for a year: a browser that
 *   has met the service once never talks to it over plain HTTP again. It is not sent over http
 *   (browsers ignore it there) nor in sandbox, where a developer's localhost must stay usable.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Config } from "../config.ts";

export const HSTS_VALUE = "max-age=31536000; includeSubDomains";

type SecurityConfig = Pick<Config, "env" | "publicBaseUrl">;

/** Sets the headers on an answer: the hook below, and the answers written before any hook runs. */
export function setSecurityHeaders(reply: FastifyReply, config: SecurityConfig): void {
  reply.header("X-Content-Type-Options", "nosniff").header("Cache-Control", "no-store");
  if (config.env === "live" && config.publicBaseUrl.startsWith("https:")) {
    reply.header("Strict-Transport-Security", HSTS_VALUE);
  }
}

export function installSecurityHeaders(app: FastifyInstance, config: SecurityConfig): void {
  app.addHook("onRequest", (_request, reply, done) => {
    setSecurityHeaders(reply, config);
    done();
  });
}
