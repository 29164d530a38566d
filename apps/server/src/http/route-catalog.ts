/**
 * Every route of an app with the schemas that validate it, collected as routes are added: the
 * OpenAPI document leaves out the dashboard, hosted and operations routes, and the reliability
 * checks (a NUL in every text field, the fuzzer) walk all of them.
 */
import type { FastifyInstance, FastifySchema } from "fastify";

export interface CatalogRoute {
  method: string;
  url: string;
  schema: FastifySchema | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    routeCatalog: CatalogRoute[];
  }
}

/** Installs the catalog; runs before any route is registered. */
export function installRouteCatalog(app: FastifyInstance): void {
  const routes: CatalogRoute[] = [];
  app.decorate("routeCatalog", routes);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD") continue;
      routes.push({ method, url: route.url, schema: route.schema as FastifySchema | undefined });
    }
  });
}
