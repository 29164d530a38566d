/** The routes and the signed GET that the rate-limit tests load (http/rate-limit*.test.ts). */
import { signRequest } from "@satang/sdk";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { ManualClock } from "../../src/lib/clock.ts";
import type { Credentials } from "./harness.ts";

export const testRoutes: FastifyPluginAsync = async (api) => {
  api.get("/test/ping", async () => ({ success: true, data: { pong: true } }));
  api.post("/test/ping", async () => ({ success: true, data: { pong: true } }));
};

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
