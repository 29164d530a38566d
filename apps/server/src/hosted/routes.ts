import type { FastifyPluginAsync } from "fastify";
import type { Deps } from "../deps.ts";

export function hostedRoutes(_deps: Deps): FastifyPluginAsync {
  return async () => {};
}
