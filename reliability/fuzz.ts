/**
 * Property-based fuzzing of every route, driven by the schemas that validate requests (the
 * OpenAPI document's source, plus the dashboard, hosted and operations routes): for each route,
 * seeded fast-check runs send mostly valid, partly hostile path parameters, query strings and
 * bodies, signed or authenticated as the route's scope wants, to an in-process service, and
 * check that no answer is a 5xx and every error is the envelope with a documented code whose
 * HTTP status is its own.
 *
 *   npm run fuzz -- [--seed N] [--public N] [--other N] [--route fragment] [--group public,admin]
 *
 * Defaults: 10,000 runs per public route, 1,000 per admin, dashboard and hosted route.
 * TEST_DATABASE_URL=postgres://... fuzzes the PostgreSQL store; PGlite otherwise.
 */
import fc from "fast-check";
import type { CatalogRoute } from "../apps/server/src/http/route-catalog.ts";
import { ERROR_STATUS } from "../apps/server/src/lib/errors.ts";
import { dashboardUser } from "../apps/server/test/helpers/dashboard.ts";
import { startService } from "../apps/server/test/helpers/harness.ts";
import { tableResolver } from "../apps/server/test/helpers/webhooks.ts";
import { fuzzValue, hostileValue, type Schema, validValue } from "./fuzz-schema.ts";
import { fillPath, queryString, type RouteGroup, routeGroup, send, type Target } from "./fuzz-target.ts";

export interface FuzzOptions {
  seed: number;
  publicRuns: number;
  otherRuns: number;
  route?: string;
  /** Only the routes of these groups (all when absent). */
  groups?: RouteGroup[];
  log?: (line: string) => void;
}

export interface FuzzReport {
  requests: Record<RouteGroup, number>;
  /** /readyz answers that the database did not answer its probe in time (see readinessTimeout). */
  readinessTimeouts: number;
  failures: string[];
}

/** Routes worth fuzzing: everything but static files and the docs UI. */
function fuzzable(route: CatalogRoute): boolean {
  return !route.url.includes("/assets/") && !route.url.startsWith("/docs") && route.url !== "/dashboard";
}

function requestArb(route: CatalogRoute, ids: string[]) {
  const params = (route.schema?.params as Schema | undefined) ?? { type: "object", properties: {} };
  const idOrHostile = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    { weight: 1, arbitrary: hostileValue },
  );
  const names = Object.keys(params.properties ?? {});
  const paramArb =
    names.length === 0 ? fc.constant({}) : fc.dictionary(fc.constantFrom(...names), idOrHostile);
  const query = route.schema?.querystring as Schema | undefined;
  const body = route.schema?.body as Schema | undefined;
  return fc.record({
    params: fc.oneof(paramArb, validValue(params)),
    query: query ? fuzzValue(query) : fc.constant(undefined),
    body: body ? fuzzValue(body) : fc.constant(undefined),
    raw: fc.option(fc.constantFrom("{", "[]", "null", '{"a":', "\u0000", "x".repeat(70_000)), { freq: 20 }),
  });
}

/**
 * A route without path parameters or a query string that is sent no body (GET, DELETE): every
 * run would send it the same request, so it gets one. (The operator's backup is such a route,
 * and each of its answers is the whole database.)
 */
function takesNoInput(route: CatalogRoute): boolean {
  const params = route.schema?.params as Schema | undefined;
  return (
    (route.method === "GET" || route.method === "DELETE") &&
    Object.keys(params?.properties ?? {}).length === 0 &&
    route.schema?.querystring === undefined
  );
}

/** Why an answer breaks the rules, or undefined when it keeps them. */
export function violation(status: number, contentType: string, body: string): string | undefined {
  if (status >= 500) return `answered ${status}`;
  if (status < 400) return undefined;
  if (!contentType.includes("application/json")) return `error ${status} is not JSON`;
  const parsed = JSON.parse(body) as { success?: unknown; error?: { code?: string; message?: unknown } };
  const code = parsed.error?.code ?? "";
  if (parsed.success !== false || typeof parsed.error?.message !== "string")
    return `error ${status} not in the envelope`;
  if (!(code in ERROR_STATUS)) return `undocumented code ${code}`;
  if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== status) return `${code} with status ${status}`;
  return undefined;
}

/**
 * /readyz answering 503 SERVICE_UNAVAILABLE with Retry-After: the database did not answer its
 * probe within a second (on a starved machine, a new connection can take longer). That is the
 * probe's documented answer, not a fault of the request, so it is counted apart.
 */
export function readinessTimeout(url: string, status: number, retryAfter: unknown, body: string): boolean {
  return (
    url === "/readyz" && status === 503 && retryAfter !== undefined && body.includes('"SERVICE_UNAVAILABLE"')
  );
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const svc = await startService({
    deps: {
      webhooks: {
        resolve: tableResolver({
          "example.com": ["93.184.216.34"],
          "example.org": ["93.184.216.34"],
          "shop.example": ["93.184.216.34"],
        }),
      },
    },
  });
  const report: FuzzReport = {
    requests: { public: 0, admin: 0, dashboard: 0, hosted: 0, operations: 0 },
    readinessTimeouts: 0,
    failures: [],
  };
  try {
    const target: Target = { svc, dashboardToken: (await dashboardUser(svc)).token };
    const payment = await svc.request("POST", "/api/v1/payments", {
      amount: "100.00",
      referenceId: "fuzz-1",
      paymentMethod: "promptpay",
    });
    const ids = [
      svc.credentials.merchantId,
      svc.credentials.integrationId,
      String(payment.body?.data?.id ?? svc.credentials.merchantId),
      "fuzz-1",
    ];
    for (const route of svc.app.routeCatalog.filter(fuzzable)) {
      if (options.route && !route.url.includes(options.route)) continue;
      const group = routeGroup(route.url);
      if (options.groups && !options.groups.includes(group)) continue;
      const numRuns = takesNoInput(route) ? 1 : group === "public" ? options.publicRuns : options.otherRuns;
      const check = async (input: { params: unknown; query: unknown; body: unknown; raw: string | null }) => {
        const params = (
          typeof input.params === "object" && input.params !== null ? input.params : {}
        ) as Record<string, unknown>;
        const query =
          typeof input.query === "object" && input.query !== null
            ? (input.query as Record<string, unknown>)
            : undefined;
        const url = fillPath(route, params) + queryString(query);
        const hasBody = route.method !== "GET" && route.method !== "DELETE";
        const res = await send(target, {
          method: route.method,
          url,
          ...(hasBody ? (input.raw !== null ? { raw: input.raw } : { body: input.body }) : {}),
        });
        report.requests[group] += 1;
        if (readinessTimeout(route.url, res.statusCode, res.headers["retry-after"], res.body)) {
          report.readinessTimeouts += 1;
          return;
        }
        const broken = violation(res.statusCode, String(res.headers["content-type"] ?? ""), res.body);
        if (broken) throw new Error(`${route.method} ${url}: ${broken}: ${res.body.slice(0, 300)}`);
      };
      try {
        await fc.assert(fc.asyncProperty(requestArb(route, ids), check), {
          seed: options.seed,
          numRuns,
          endOnFailure: true,
        });
      } catch (error) {
        const failure = `${route.method} ${route.url}: ${(error as Error).message
          .split("\n")
          .filter((line) => line.trim() !== "" && !line.startsWith("Hint"))
          .slice(0, 8)
          .join(" | ")}`;
        report.failures.push(failure);
        options.log?.(`FAIL ${failure}`);
      }
      options.log?.(`${new Date().toISOString()} ${route.method} ${route.url}: ${numRuns} runs`);
    }
  } finally {
    await svc.close();
  }
  return report;
}

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const routeIndex = process.argv.indexOf("--route");
  const groupIndex = process.argv.indexOf("--group");
  const started = Date.now();
  const report = await runFuzz({
    seed: argument("seed", Number(process.env.FUZZ_SEED ?? 20261123)),
    publicRuns: argument("public", 10_000),
    otherRuns: argument("other", 1_000),
    ...(routeIndex === -1 ? {} : { route: process.argv[routeIndex + 1]! }),
    ...(groupIndex === -1 ? {} : { groups: process.argv[groupIndex + 1]!.split(",") as RouteGroup[] }),
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify({ ...report.requests, readinessTimeouts: report.readinessTimeouts }));
  console.log(`${report.failures.length} failures in ${Math.round((Date.now() - started) / 1000)} s`);
  for (const failure of report.failures) console.log(`FAIL ${failure}`);
  process.exit(report.failures.length === 0 ? 0 : 1);
}
