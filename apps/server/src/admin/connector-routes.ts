/**
 * Every connector's operator routes (the provider exchanges it recorded, a payment found by the
 * reference the provider shows), mounted under /admin/v1 in the operator scope (admin/auth.ts
 * runs first, app.ts). Which connectors there are is the registry's business
 * (providers/registry.ts); each one's routes live in its folder.
 */
import type { FastifyPluginAsync } from "fastify";
import type { OperatorRoutesContext } from "../providers/operator.ts";
import { CONNECTOR_OPERATOR_ROUTES } from "../providers/registry.ts";

export function connectorOperatorRoutes(ctx: OperatorRoutesContext): FastifyPluginAsync {
  return async (operator) => {
    for (const load of CONNECTOR_OPERATOR_ROUTES) await operator.register((await load())(ctx));
  };
}
