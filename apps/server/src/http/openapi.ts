import type { FastifyInstance } from "fastify";
import type { Deps } from "../deps.ts";

export async function registerOpenApi(_app: FastifyInstance, _deps: Deps): Promise<void> {}
