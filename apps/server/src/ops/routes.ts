import type { FastifyPluginAsync } from "fastify";
import type { Deps } from "../deps.ts";

export function opsRoutes(_deps: Deps): FastifyPluginAsync {
  return async () => {};
}
