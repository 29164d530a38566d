/**
 * Every route of an app with the schemas that validate it, collected as routes are added: the
 * OpenAPI document leaves out the dashboard, hosted and operations routes, and the reliability
 * checks (a NUL in every text field, the fuzzer) walk all of them. A JSON API route that takes no
 * query parameters is given a query schema that names none, before it is recorded.
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

/** The JSON APIs: merchant, operator and dashboard. Pages and assets keep their query open. */
const JSON_API_PREFIXES = ["/api/", "/admin/", "/dashboard/api/"];
/** Fetched by documentation tools, which may add a query of their own. */
const OPEN_QUERY_URLS = new Set(["/api/v1/openapi.json"]);

/**
 * A query that names no parameter: a JSON API route that takes none refuses any (400
 * VALIDATION_ERROR naming it), as a route with parameters refuses one it does not name
 * (validation.ts `closedQuery`), so `GET /api/v1/balance?currency=USD` is not answered as if the
 * filter had applied.
 */
const NO_QUERY = Object.freeze({ type: "object", properties: {}, additionalProperties: false });

/** Installs the catalog; runs before any route is registered. */
export function installRouteCatalog(app: FastifyInstance): void {
  const routes: CatalogRoute[] = [];
  app.decorate("routeCatalog", routes);
  app.addHook("onRoute", (route) => {
    const schema = route.schema as FastifySchema | undefined;
    if (
      schema?.querystring === undefined &&
      !OPEN_QUERY_URLS.has(route.url) &&
      JSON_API_PREFIXES.some((prefix) => route.url.startsWith(prefix))
    ) {
      route.schema = { ...schema, querystring: NO_QUERY };
    }
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD") continue;
      routes.push({ method, url: route.url, schema: route.schema as FastifySchema | undefined });
    }
  });
}
