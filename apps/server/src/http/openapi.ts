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
import { readFileSync } from "node:fs";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, FastifySchema } from "fastify";
import type { Config } from "../config.ts";
import type { AppError } from "../lib/errors.ts";
import { BODY_SIZE_MAX_BYTES, RATE_LIMIT_WINDOW_MS, TIMESTAMP_TOLERANCE_MS } from "../lib/limits.ts";
import { sourceUrl } from "../lib/source-root.ts";
import { credentialsRefused, merchantUnavailable } from "./auth.ts";
import { invalidJsonBody } from "./body.ts";
import { requestTimedOut } from "./connections.ts";
import { ERROR_OBJECT_SCHEMAS } from "./envelope.ts";
import { malformedUrl, payloadTooLarge, serviceUnavailable } from "./errors.ts";
import {
  COUNTED_HEADERS,
  type DocumentedError,
  documented,
  ERRORS_KEY,
  errorResponses,
  inputErrors,
  SUCCESS_HEADERS_KEY,
  type SuccessHeaders,
  UNCOUNTED_STATUSES,
} from "./openapi-errors.ts";
import { addExamples, EXAMPLE_MOMENT } from "./openapi-examples.ts";
import { rateLimitExceeded } from "./rate-limit.ts";

/** A request as Swagger UI hands it to a requestInterceptor. */
type SwaggerUiRequest = Record<string, unknown>;

const OPENAPI_PATH = "/api/v1/openapi.json";
/** The docs page's request-signing script (sandbox only), read once at start. */
const DOCS_SIGNING_SCRIPT = readFileSync(sourceUrl("http/assets/docs-signing.js"), "utf8");
const DOCS_PREFIX = "/docs";

/** The three headers of the HMAC authentication, each a scheme the operation requires together. */
const HMAC_SECURITY = [{ ApiKey: [], Timestamp: [], Signature: [] }];
const ADMIN_SECURITY = [{ AdminToken: [] }];

const DESCRIPTION = `Payments (PromptPay, bank transfer), withdraws and balance for Thai merchants.

## Authentication
Every \`/api/v1\` request carries three headers:

| Header | Value |
|---|---|
| \`X-API-Key\` | the integration's API key |
| \`X-Timestamp\` | Unix time in milliseconds, as a decimal string |
| \`X-Signature\` | \`sha256=\` + lowercase hex \`HMAC-SHA256(secret, timestamp + "." + raw body)\` |

- The signed message is the timestamp string, a dot, then the request body **exactly as sent**
  (the empty string when there is no body). Never sign a re-serialized object.
- The timestamp must be within ${TIMESTAMP_TOLERANCE_MS / 1000} seconds of the server's clock.
- A signed write (any method other than GET) is accepted once: send a fresh timestamp each time.
- Signature v2 also binds the method, the path and the query: \`X-Signature: v2=\` + hex
  \`HMAC-SHA256(secret, timestamp + "." + METHOD + "." + path with query + "." + raw body)\`.
  An integration may be set to require it.
- Any failure answers 401 \`INVALID_CREDENTIALS\` with one generic message;
  401 \`AUTHENTICATION_ERROR\` means the merchant of a valid key is disabled.

Example (shell), then send \`X-Timestamp: $TS\` and \`X-Signature: sha256=$SIG\` with the same \`$BODY\`:

\`\`\`sh
TS=$(date +%s%3N)
SIG=$(printf '%s.%s' "$TS" "$BODY" | openssl dgst -sha256 -hmac "$API_SECRET" | sed 's/^.* //')
\`\`\`

## Conventions
- Bodies are JSON objects with \`Content-Type: application/json\`, at most ${BODY_SIZE_MAX_BYTES / 1024} KiB.
- Amounts are decimal strings in satang (\`"1000.00"\` is 10.00 THB).
- Responses use the envelope \`{ "success": true, "data": ... }\` or
  \`{ "success": false, "error": { "code", "message", "metadata"? } }\`.
- Rate limit: per integration per minute (100 in sandbox, 1000 live); every response carries
  \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\`, and a refusal is
  429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\`.

The merchant API comes first below; the **operator API** under \`/admin/v1\` (tag \`admin\`, last)
is for whoever runs the service and uses \`Authorization: Bearer <ADMIN_TOKEN>\` instead.`;

/** Sandbox only: how "Try it out" signs (the docs page's own script, docs-signing.js). */
const SANDBOX_DESCRIPTION = `

## Try it out (sandbox)
Type an API key and its secret into the **Sign requests** box above the operations: the page
then signs every \`/api/v1\` request it sends (signature v2, HMAC-SHA256 with the browser's
WebCrypto). The secret stays in this page's memory: it is never sent, stored or logged, and is
gone when the page is closed.`;

/**
 * The order the docs show: the merchant API first, the operator API last and in a group of its
 * own (\`x-tagGroups\`, read by tools such as Redoc; Swagger UI follows the order of \`tags\`).
 */
const MERCHANT_TAGS = [
  { name: "payments", description: "Take PromptPay and bank-transfer payments" },
  { name: "withdraws", description: "Pay out to bank accounts and wallets" },
  { name: "refunds", description: "Give a succeeded payment's money back to the customer" },
  { name: "balance", description: "What can be withdrawn now, and what is still settling" },
  { name: "webhooks", description: "Endpoints that receive events (Standard Webhooks)" },
  { name: "events", description: "Every event, and redelivery" },
  { name: "reports", description: "CSV exports for accounting: payments, withdraws, refunds, the ledger" },
  { name: "sandbox", description: "Sandbox only: simulate what the bank and the customer do" },
  { name: "dashboard", description: "Dashboard sign-in (email and password, not HMAC)" },
];
const OPERATOR_TAGS = [{ name: "admin", description: "Operator API: Authorization: Bearer <ADMIN_TOKEN>" }];

/**
 * The error envelope, with `error` one of a variant per code (http/envelope.ts): the code fixed,
 * and the metadata that code carries (lib/error-metadata.ts), so generated clients type each
 * code's metadata.
 */
const ERROR_SCHEMA = {
  type: "object",
  required: ["success", "error"],
  properties: {
    success: { const: false },
    error: { oneOf: ERROR_OBJECT_SCHEMAS },
  },
};

/** What the document needs to know of the deployment and of the scopes' own refusals. */
export interface OpenApiOptions {
  /** The operator API's refusal of a missing or wrong token (admin/auth.ts). */
  adminTokenRefused: AppError;
  /** The operator API's refusal of an address past its failed tokens of a minute (admin/auth.ts). */
  adminTokenThrottled: AppError<"RATE_LIMIT_EXCEEDED">;
}

/** The errors of an HMAC-authenticated operation that its scope gives (http/auth.ts, rate-limit.ts). */
function hmacErrors(config: Pick<Config, "env" | "rateLimitPerMinute">): DocumentedError[] {
  const refused =
    config.env === "sandbox"
      ? credentialsRefused({ reason: "missing_header", missingHeaders: ["X-Signature"] })
      : credentialsRefused();
  return [
    documented(
      "A header is missing or malformed, the key is unknown or revoked, the signature does not match, " +
        "the timestamp is stale, or a signed write was sent twice (in sandbox, metadata.reason says which)",
      refused,
    ),
    documented("The key is valid but its merchant is disabled", merchantUnavailable()),
    {
      ...documented(
        `More than ${config.rateLimitPerMinute} requests in a minute from this integration`,
        rateLimitExceeded(config.rateLimitPerMinute, RATE_LIMIT_WINDOW_MS / 2, new Date(EXAMPLE_MOMENT)),
      ),
      rateLimitHeaders: true,
    },
  ];
}

/** The errors of every operator operation that its scope gives (admin/auth.ts). */
function operatorErrors(options: OpenApiOptions): DocumentedError[] {
  return [
    documented("The operator token is missing or wrong", options.adminTokenRefused),
    documented(
      `This client address sent a missing or wrong operator token (or one the database could not check) ${String(options.adminTokenThrottled.metadata.limit)} ` +
        "times within a minute: every operator request of it is refused until the oldest of them is a minute old " +
        "(Retry-After says when)",
      options.adminTokenThrottled,
    ),
  ];
}

/**
 * What any documented operation can answer: a request that did not arrive in time (its line,
 * headers or body; the connection is then closed), and a database that is unreachable or busy
 * (CONTRACT 14).
 */
const EVERY_ROUTE_ERRORS: DocumentedError[] = [
  documented(
    "The request line, headers or body did not arrive in time (the connection is closed)",
    requestTimedOut(),
  ),
  documented("The database is not reachable", serviceUnavailable("unavailable")),
  documented("A lock or a pool connection was not had in time", serviceUnavailable("busy")),
];

type OpenApiDocument = {
  paths?: Record<
    string,
    Record<
      string,
      {
        responses?: Record<string, unknown>;
        [ERRORS_KEY]?: unknown;
        [SUCCESS_HEADERS_KEY]?: unknown;
        [RATE_LIMITED_KEY]?: unknown;
      }
    >
  >;
  tags?: unknown[];
  "x-tagGroups"?: unknown[];
};

/** What a success status means, for responses whose schema has no description of its own. */
const SUCCESS_DESCRIPTIONS: Record<string, string> = {
  "200": "OK",
  "201": "Created",
  "202": "Accepted: the work is queued",
};

/** Success responses described by their status rather than the plugin's "Default Response". */
function successDescribed(
  responses: Record<string, unknown>,
  headers: SuccessHeaders,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const described = response as { description?: string };
      const text = SUCCESS_DESCRIPTIONS[status];
      const own = headers[Number(status)];
      return [
        status,
        {
          ...described,
          ...(described.description === "Default Response" && text ? { description: text } : {}),
          ...(own ? { headers: own } : {}),
        },
      ];
    }),
  );
}

type DocumentedOperation = NonNullable<OpenApiDocument["paths"]>[string][string];

/** Marks an operation whose answers the per-integration rate limit counts (the HMAC ones). */
const RATE_LIMITED_KEY = "x-rate-limited";

/**
 * An operation's responses: its successes with their headers, then its errors by status; on a
 * rate-limited operation every answer given after the limit counted the request carries the
 * X-RateLimit headers (http/rate-limit.ts), successes and errors alike.
 */
function documentResponses(operation: DocumentedOperation): void {
  const errors = (operation[ERRORS_KEY] ?? []) as DocumentedError[];
  const headers = (operation[SUCCESS_HEADERS_KEY] ?? {}) as SuccessHeaders;
  const rateLimited = operation[RATE_LIMITED_KEY] === true;
  delete operation[ERRORS_KEY];
  delete operation[SUCCESS_HEADERS_KEY];
  delete operation[RATE_LIMITED_KEY];
  const responses: Record<string, unknown> = {
    ...successDescribed(operation.responses ?? {}, headers),
    ...errorResponses(errors),
  };
  if (rateLimited) {
    for (const [status, response] of Object.entries(responses)) {
      if (UNCOUNTED_STATUSES.has(status)) continue;
      const own = (response as { headers?: Record<string, unknown> }).headers;
      responses[status] = { ...(response as object), headers: { ...own, ...COUNTED_HEADERS } };
    }
  }
  operation.responses = responses;
}

/** The merchant API's paths first, then the operator API's, each in the order registered. */
function merchantApiFirst(
  paths: NonNullable<OpenApiDocument["paths"]>,
): NonNullable<OpenApiDocument["paths"]> {
  const entries = Object.entries(paths);
  return Object.fromEntries([
    ...entries.filter(([url]) => !isAdminPath(url)),
    ...entries.filter(([url]) => isAdminPath(url)),
  ]);
}

const isApiPath = (url: string) => url.startsWith("/api/");
const isAdminPath = (url: string) => url.startsWith("/admin/");

/** How each kind of caller authenticates: the HMAC headers, the operator token, a dashboard session. */
const SECURITY_SCHEMES = {
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
} as const;

export async function registerOpenApi(
  app: FastifyInstance,
  config: Pick<Config, "publicBaseUrl" | "env" | "rateLimitPerMinute">,
  options: OpenApiOptions,
): Promise<void> {
  const inputSources = {
    payloadTooLarge: payloadTooLarge(),
    invalidJson: invalidJsonBody(),
    malformedUrl: malformedUrl(),
  };
  const scopeErrors = hmacErrors(config);
  const adminErrors = operatorErrors(options);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Satang API",
        version: "1.0.0",
        description: config.env === "sandbox" ? DESCRIPTION + SANDBOX_DESCRIPTION : DESCRIPTION,
        license: { name: "MIT", identifier: "MIT" },
      },
      tags: [...MERCHANT_TAGS, ...OPERATOR_TAGS],
      servers: [{ url: config.publicBaseUrl, description: config.env }],
      components: {
        securitySchemes: SECURITY_SCHEMES,
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
      // takes a password, not the HMAC headers, and lists its own refusals.
      const security = base.security ?? (isApiPath(url) ? HMAC_SECURITY : ADMIN_SECURITY);
      const scope = base.security ? [] : isApiPath(url) ? scopeErrors : adminErrors;
      const errors = [
        ...scope,
        ...inputErrors(base, inputSources),
        ...(base[ERRORS_KEY] ?? []),
        ...EVERY_ROUTE_ERRORS,
      ];
      const rateLimited = scope === scopeErrors;
      return { schema: { ...base, security, [ERRORS_KEY]: errors, [RATE_LIMITED_KEY]: rateLimited }, url };
    },
    transformObject: (documentObject) => {
      const document = (
        "openapiObject" in documentObject ? documentObject.openapiObject : {}
      ) as OpenApiDocument;
      const paths = document.paths ?? {};
      for (const operations of Object.values(paths)) {
        for (const operation of Object.values(operations)) documentResponses(operation);
      }
      document.paths = merchantApiFirst(paths);
      document["x-tagGroups"] = [
        { name: "Merchant API", tags: MERCHANT_TAGS.map((tag) => tag.name) },
        { name: "Operator API", tags: OPERATOR_TAGS.map((tag) => tag.name) },
      ];
      addExamples(document as Parameters<typeof addExamples>[0]);
      return document as never;
    },
  });

  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());

  await registerDocsPage(app, config.env === "sandbox");
}

/** Swagger UI at /docs, with the request-signing script in sandbox. */
async function registerDocsPage(app: FastifyInstance, sandbox: boolean): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    uiConfig: {
      deepLinking: true,
      docExpansion: "list",
      // Sandbox: every "Try it out" request passes through the page's signing script
      // (docs-signing.js, served below as a theme script). The function is written into the
      // page's initializer as its source text, so it names only what the page has.
      ...(sandbox
        ? {
            requestInterceptor: (request: SwaggerUiRequest) => {
              const sign = (globalThis as { satangSign?: (r: SwaggerUiRequest) => Promise<SwaggerUiRequest> })
                .satangSign;
              return sign ? sign(request) : request;
            },
          }
        : {}),
    },
    theme: {
      title: "Satang API",
      ...(sandbox ? { js: [{ filename: "docs-signing.js", content: DOCS_SIGNING_SCRIPT }] } : {}),
    },
    // Own origin only: the page and its assets come from this server, and the browser refuses
    // anything else (Swagger UI's online validator is off as well).
    staticCSP:
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; " +
      "connect-src 'self'; font-src 'self' data:; object-src 'none'; frame-ancestors 'self'; base-uri 'self'",
  });
}
