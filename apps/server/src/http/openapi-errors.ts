/**
 * The error responses of the OpenAPI document: every error an operation can answer, under its
 * HTTP status, each with an example built from the error the service really sends.
 *
 * An operation's errors come from three places, so that none is typed twice:
 * - the scope it is registered in (http/openapi.ts): HMAC authentication and the rate limit for
 *   the merchant API, the operator token for the operator API, and for every route 408 (a
 *   request that did not arrive in time) and 503 (the database);
 * - its own schemas: the validators of its body, path and query are run on invalid input here,
 *   and what they answer is the example (a missing field, an unknown field, each field's own
 *   code such as INVALID_AMOUNT); a body also brings 413 and the malformed-JSON refusal;
 * - the route itself, for what its service decides: `"x-errors": [documented(when, error)]` in
 *   its schema, with the error made by the same constructor the service throws.
 *
 * Each status is documented once, with one example per error (Swagger UI shows them as a list),
 * and the status of each code is the service's own mapping (lib/errors.ts).
 */
import type { FastifySchema } from "fastify";
import { type AppError, ERROR_STATUS, type ErrorCode } from "../lib/errors.ts";
import { errorBody } from "./envelope.ts";
import { exampleOf } from "./openapi-examples.ts";
import { ERROR_CODE_KEYWORD, validatorCompiler } from "./validation.ts";

/** The schema key a route lists its service's errors under (an OpenAPI extension, `x-`). */
export const ERRORS_KEY = "x-errors";

/**
 * A route's success responses' headers, by status (`{ 200: { Name: header } }`), added to the
 * document's responses (http/openapi.ts): what an answer says beside its body.
 */
export const SUCCESS_HEADERS_KEY = "x-success-headers";
export type SuccessHeaders = Record<number, Record<string, { description: string; schema: object }>>;

const TRUE_ONLY = { type: "string", enum: ["true"] };
/** A create's 200 for a request whose idempotencyKey made (or was answered with) the record before. */
export const IDEMPOTENT_REPLAYED_HEADER = {
  "Idempotent-Replayed": {
    description:
      "Present (true) when an earlier request with this idempotencyKey made the record, or was answered with it: " +
      "an idempotent replay. Absent otherwise.",
    schema: TRUE_ONLY,
  },
};
/** A PromptPay create's 200 answered with an open payment of the same customer account and amount. */
export const PAYMENT_REUSED_HEADER = {
  "Satang-Payment-Reused": {
    description:
      "Present (true) when PromptPay reuse answered with an open payment an earlier request made for the same " +
      "customer account and amount (its own referenceId): not a payment of this request. Absent otherwise.",
    schema: TRUE_ONLY,
  },
};

/** One error an operation can answer: when it happens, and the body the service sends. */
export interface DocumentedError {
  when: string;
  body: ReturnType<typeof errorBody>;
  /** The per-integration rate limit's refusal: its answer carries the X-RateLimit headers. */
  rateLimitHeaders?: true;
}

declare module "fastify" {
  interface FastifySchema {
    /** The errors the route's service can answer, besides those of its scope and schemas. */
    [ERRORS_KEY]?: DocumentedError[];
  }
}

/** An error a route can answer, made by the constructor its service throws. */
export function documented(when: string, error: AppError): DocumentedError {
  return { when, body: errorBody(error) };
}

type Schema = Record<string, unknown>;
type HttpPart = "body" | "querystring" | "params";

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the route's own validator answers for `data`, or undefined when it accepts it. */
function refusalOf(schema: Schema, httpPart: HttpPart, data: unknown): AppError | undefined {
  const validate = validatorCompiler({ schema, httpPart, method: "GET", url: "/" }) as (data: unknown) => {
    error?: AppError;
  };
  return validate(structuredClone(data)).error;
}

/** Values that are invalid for most fields: text where a number or a format is expected, and so on. */
const INVALID_VALUES: readonly unknown[] = ["not valid!", "0", "-1", "USD", "999", "1000.5", 12.5, ""];

function propertiesOf(schema: Schema): Record<string, Schema> {
  return isSchema(schema.properties) ? (schema.properties as Record<string, Schema>) : {};
}

const unresolved = () => undefined;

/**
 * The body errors of a route, from its body validator: a missing required field, a field that
 * is not part of the body, and each field that carries its own code (INVALID_AMOUNT, ...) given
 * an invalid value.
 */
function bodyErrors(schema: Schema): DocumentedError[] {
  const out: DocumentedError[] = [];
  const valid = exampleOf(schema, unresolved) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? schema.required : [];
  if (required.length > 0) {
    const missing = refusalOf(schema, "body", {});
    if (missing) out.push(documented("A required field is missing", missing));
  }
  const properties = propertiesOf(schema);
  const stranger = ["merchantId", "status", "unexpectedField"].find((name) => !(name in properties));
  if (stranger !== undefined && schema.additionalProperties === false) {
    const unknown = refusalOf(schema, "body", { ...valid, [stranger]: "x" });
    if (unknown) out.push(documented("The body has a field the operation does not take", unknown));
  }
  for (const [name, property] of Object.entries(properties)) {
    const code = property[ERROR_CODE_KEYWORD] as ErrorCode | undefined;
    if (code === undefined) continue;
    for (const value of INVALID_VALUES) {
      const refused = refusalOf(schema, "body", { ...valid, [name]: value });
      if (refused?.code === code && (refused.metadata as { field?: string } | undefined)?.field === name) {
        out.push(documented(`${name} is present but invalid`, refused));
        break;
      }
    }
  }
  return out;
}

/** The first refusal of a path or query validator when one of its fields gets an invalid value. */
function textPartError(schema: Schema, httpPart: HttpPart, when: string): DocumentedError[] {
  for (const name of Object.keys(propertiesOf(schema))) {
    for (const value of INVALID_VALUES) {
      if (typeof value !== "string") continue;
      const refused = refusalOf(schema, httpPart, { [name]: value });
      if (refused) return [documented(when, refused)];
    }
  }
  return [];
}

export interface InputErrorSources {
  /** The body can be too large or not JSON: 413 and 400 for every route that takes one. */
  payloadTooLarge: AppError;
  invalidJson: AppError;
  /** A path that does not decode (`%ZZ`): 400 for every route with a path parameter. */
  malformedUrl: AppError;
}

/** The 400 and 413 errors a route's schemas and body parsing give it. */
export function inputErrors(schema: FastifySchema, sources: InputErrorSources): DocumentedError[] {
  const out: DocumentedError[] = [];
  if (isSchema(schema.body)) {
    out.push(documented("The body is not a JSON object", sources.invalidJson));
    out.push(...bodyErrors(schema.body));
    out.push(documented("The body is larger than the limit", sources.payloadTooLarge));
  }
  if (isSchema(schema.params)) {
    out.push(...textPartError(schema.params, "params", "A path parameter is malformed"));
    out.push(documented("The path does not decode (a stray %)", sources.malformedUrl));
  }
  if (isSchema(schema.querystring)) {
    out.push(...textPartError(schema.querystring, "querystring", "A query parameter is invalid"));
    const stranger = refusalOf(schema.querystring, "querystring", { unexpectedParameter: "x" });
    if (stranger) out.push(documented("A query parameter is not one of this operation's", stranger));
  }
  return out;
}

/** Headers of the responses that tell the caller when to retry. */
const RETRY_AFTER = {
  "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 0 } },
};
/**
 * The headers every answer the per-integration rate limit counted carries (http/rate-limit.ts):
 * each HMAC operation's successes and its errors after authentication.
 */
export const COUNTED_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests allowed per minute", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in this minute", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "Seconds until the window resets", schema: { type: "integer" } },
};
/**
 * The statuses of answers given before the rate limit counts a request: authentication's 401
 * (and a disabled merchant's 403, which shares its status with counted refusals), a request that
 * never arrived whole (408) and a body over the limit (413: the body is read before anything
 * else).
 */
export const UNCOUNTED_STATUSES: ReadonlySet<string> = new Set(["401", "408", "413"]);
const RATE_LIMIT_HEADERS = { ...RETRY_AFTER, ...COUNTED_HEADERS };

/**
 * The headers of a status's answers: a 429 of the per-integration rate limit carries the
 * X-RateLimit headers; another 429 (a dashboard login's lockout or its per-address limit) and a
 * 503 carry Retry-After only.
 */
function headersOf(status: number, errors: DocumentedError[]): Record<string, unknown> | undefined {
  if (status === 429) {
    return errors.some((error) => error.rateLimitHeaders) ? RATE_LIMIT_HEADERS : RETRY_AFTER;
  }
  if (status === 503) return RETRY_AFTER;
  return undefined;
}

/** A name for each example: its code, numbered when a code has several examples. */
function exampleNames(errors: DocumentedError[]): string[] {
  const seen = new Map<string, number>();
  return errors.map(({ body }) => {
    const count = (seen.get(body.error.code) ?? 0) + 1;
    seen.set(body.error.code, count);
    return count === 1 ? body.error.code : `${body.error.code}_${count}`;
  });
}

/** The responses object entries of an operation's errors, one per status, in status order. */
export function errorResponses(errors: DocumentedError[]): Record<string, unknown> {
  const byStatus = new Map<number, DocumentedError[]>();
  const seen = new Set<string>();
  for (const error of errors) {
    // The same error from two sources (a scope and a route) is documented once.
    const key = `${error.body.error.code} ${error.body.error.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const status = ERROR_STATUS[error.body.error.code as ErrorCode];
    byStatus.set(status, [...(byStatus.get(status) ?? []), error]);
  }
  const responses: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const list = byStatus.get(status) ?? [];
    const names = exampleNames(list);
    const codes = [...new Set(list.map((error) => error.body.error.code))];
    const headers = headersOf(status, list);
    responses[String(status)] = {
      description: codes.join(" or "),
      ...(headers ? { headers } : {}),
      content: {
        "application/json": {
          schema: { $ref: "#/components/schemas/Error" },
          examples: Object.fromEntries(
            list.map((error, index) => [names[index], { summary: error.when, value: error.body }]),
          ),
        },
      },
    };
  }
  return responses;
}
