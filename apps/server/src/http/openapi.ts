/**
 * The OpenAPI 3.1 document at GET /api/v1/openapi.json and human docs at GET /docs
 * (CONTRACT 14). The document is generated from the schemas that validate requests: the swagger
 * plugin collects every route as it is added, so registerOpenApi runs before the route plugins.
 *
 * The document describes the merchant API (/api/...) and the operator API (/admin/...); the
 * operations endpoints, the hosted payment page and the docs themselves are left out. Both
 * routes are on the root, outside the HMAC scope: reading the documentation needs no key.
 *
 * The docs page is Swagger UI served from the local swagger-ui-dist files; its content security
 * policy allows the page's own origin only, so it never fetches anything from elsewhere.
 */
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, FastifySchema } from "fastify";
import type { Deps } from "../deps.ts";
import { BODY_SIZE_MAX_BYTES, TIMESTAMP_TOLERANCE_MS } from "../lib/limits.ts";

export const OPENAPI_PATH = "/api/v1/openapi.json";
export const DOCS_PREFIX = "/docs";

/** The three headers of the HMAC authentication, each a scheme the operation requires together. */
export const HMAC_SECURITY = [{ ApiKey: [], Timestamp: [], Signature: [] }];
export const ADMIN_SECURITY = [{ AdminToken: [] }];

const DESCRIPTION = `Payments (PromptPay, bank transfer), withdraws and balance for Thai merchants.

## Authentication
Every \`/api/v1\` request carries three headers:

| Header | Value |
|---|---|
| \`X-API-Key\` | the integration's API key |
| \`X-Timestamp\` | Unix time in milliseconds, as a decimal string |
| \`X-Signature\` | \`sha256=\` + lowercase hex HMAC-SHA256(secret, timestamp + "." + raw body) |

- The signed message is the timestamp string, a dot, then the request body **exactly as sent**
  (the empty string when there is no body). Never sign a re-serialized object.
- The timestamp must be within ${TIMESTAMP_TOLERANCE_MS / 1000} seconds of the server's clock.
- A signed write (any method other than GET) is accepted once: send a fresh timestamp each time.
- Signature v2 also binds the method, the path and the query:
  \`X-Signature: v2=\` + hex HMAC-SHA256(secret, timestamp + "." + METHOD + "." + path with query
  + "." + raw body). An integration may be set to require it.
- Any failure answers 401 \`INVALID_CREDENTIALS\` with one generic message;
  401 \`AUTHENTICATION_ERROR\` means the merchant of a valid key is disabled.

## Conventions
- Bodies are JSON objects with \`Content-Type: application/json\`, at most ${BODY_SIZE_MAX_BYTES / 1024} KiB.
- Amounts are decimal strings in satang (\`"1000.00"\` is 10.00 THB).
- Responses use the envelope \`{ "success": true, "data": ... }\` or
  \`{ "success": false, "error": { "code", "message", "metadata"? } }\`.
- Rate limit: per integration per minute (100 in sandbox, 1000 live); every response carries
  \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\`, and a refusal is
  429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\`.

The operator API under \`/admin/v1\` uses \`Authorization: Bearer <ADMIN_TOKEN>\`.`;

const ERROR_SCHEMA = {
  type: "object",
  required: ["success", "error"],
  properties: {
    success: { const: false },
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        metadata: { type: "object", additionalProperties: true },
      },
    },
  },
};

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** Responses every authenticated operation can give, added where a route does not say them. */
const API_RESPONSES: Record<string, ReturnType<typeof errorResponse>> = {
  "401": errorResponse("INVALID_CREDENTIALS or AUTHENTICATION_ERROR"),
  "429": errorResponse("RATE_LIMIT_EXCEEDED"),
};
const ADMIN_RESPONSES: Record<string, ReturnType<typeof errorResponse>> = {
  "401": errorResponse("INVALID_CREDENTIALS"),
};

type OpenApiDocument = {
  paths?: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
};

const isApiPath = (url: string) => url.startsWith("/api/");
const isAdminPath = (url: string) => url.startsWith("/admin/");

export async function registerOpenApi(app: FastifyInstance, deps: Deps): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Satang API", version: "1.0.0", description: DESCRIPTION },
      servers: [{ url: deps.config.publicBaseUrl, description: deps.config.env }],
      components: {
        securitySchemes: {
          ApiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "Integration API key" },
          Timestamp: {
            type: "apiKey",
            in: "header",
            name: "X-Timestamp",
            description: "Unix time in milliseconds, within 300 seconds of the server clock",
          },
          Signature: {
            type: "apiKey",
            in: "header",
            name: "X-Signature",
            description: "sha256=<hex HMAC-SHA256(secret, timestamp + '.' + raw body)>, or v2=...",
          },
          AdminToken: { type: "http", scheme: "bearer", description: "Operator ADMIN_TOKEN" },
          DashboardSession: {
            type: "http",
            scheme: "bearer",
            description: "Dashboard session token from POST /api/v1/auth/login",
          },
        },
        // The plugin's types want openapi-types' schema objects; this one is plain JSON Schema.
        schemas: { Error: ERROR_SCHEMA as never },
      },
    },
    transform: ({ schema, url }) => {
      const base = (schema ?? {}) as FastifySchema & Record<string, unknown>;
      if (url === OPENAPI_PATH || (!isApiPath(url) && !isAdminPath(url))) {
        return { schema: { ...base, hide: true }, url };
      }
      // A route that states its own security keeps it: the dashboard login under /api/v1/auth
      // takes a password, not the HMAC headers.
      const security = base.security ?? (isApiPath(url) ? HMAC_SECURITY : ADMIN_SECURITY);
      return { schema: { ...base, security }, url };
    },
    transformObject: (documentObject) => {
      const document = "openapiObject" in documentObject ? documentObject.openapiObject : {};
      const paths = (document as OpenApiDocument).paths ?? {};
      for (const [url, operations] of Object.entries(paths)) {
        const extra = isApiPath(url) ? API_RESPONSES : ADMIN_RESPONSES;
        for (const operation of Object.values(operations)) {
          operation.responses = { ...extra, ...operation.responses };
        }
      }
      return document;
    },
  });

  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());

  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: { deepLinking: true, docExpansion: "list" },
    theme: { title: "Satang API" },
    // Own origin only: the page and its assets come from this server, and the browser refuses
    // anything else (Swagger UI's online validator is off as well).
    staticCSP:
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; " +
      "connect-src 'self'; font-src 'self' data:; object-src 'none'; frame-ancestors 'self'; base-uri 'self'",
  });
}
