import type { FastifyInstance } from "fastify";
import type { Deps } from "../deps.ts";

export async function registerRateLimit(_app: FastifyInstance, _deps: Deps): Promise<void> {}
