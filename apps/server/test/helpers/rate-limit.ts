/** The routes and the signed GET that the rate-limit tests load (http/rate-limit*.test.ts). */
import { signRequest } from "@satang/sdk";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ManualClock } from "../../src/lib/clock.ts";
import type { Credentials } from "./harness.ts";
import { paymentBody } from "./lifecycle.ts";

export const testRoutes: FastifyPluginAsync = async (api) => {
  api.get("/test/ping", async () => ({ success: true, data: { pong: true } }));
  api.post("/test/ping", async () => ({ success: true, data: { pong: true } }));
};

/**
 * One signed payment create, sent as often as `send` is called: every call after the first is
 * a replay of the same request (the same body, timestamp and signature).
 */
export function capturedCreate(app: FastifyInstance, creds: Credentials, wall: ManualClock) {
  const body = JSON.stringify(paymentBody());
  const headers = {
    ...signRequest({
      apiKey: creds.apiKey,
      apiSecret: creds.apiSecret,
      body,
      timestamp: wall.now().getTime(),
    }),
    "content-type": "application/json",
  };
  return (to: FastifyInstance = app) =>
    to.inject({ method: "POST", url: "/api/v1/payments", payload: body, headers });
}

/** Signs with the given wall clock, so timestamps stay within tolerance as the clock moves. */
export function signedGet(
  app: FastifyInstance,
  creds: Credentials,
  wall: ManualClock,
  secret = creds.apiSecret,
) {
  const headers = signRequest({
    apiKey: creds.apiKey,
    apiSecret: secret,
    body: "",
    timestamp: wall.now().getTime(),
  });
  return app.inject({ method: "GET", url: "/api/v1/test/ping", headers });
}
