/**
 * Request validation from the route schemas (the same TypeBox schemas feed the OpenAPI
 * document). Bodies are validated strictly: no type coercion, unknown fields refused.
 * Query strings and path parameters are coerced from text.
 *
 * When a body fails, the error names one field: an unknown field first, otherwise the first
 * failing field in the order of the schema's properties (the order of interface.md's body
 * tables). A field may carry its own error code (`x-error-code`, e.g. INVALID_AMOUNT): any
 * present-but-invalid value of it gets that code; a missing required field is VALIDATION_ERROR.
 */
import AjvModule, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchema, FastifySchemaCompiler } from "fastify";
import { AppError, type ErrorCode } from "../lib/errors.ts";

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

export const ERROR_CODE_KEYWORD = "x-error-code";

function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    unicodeRegExp: true,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: ERROR_CODE_KEYWORD, schemaType: "string" });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

interface ObjectSchema {
  properties?: Record<string, { [ERROR_CODE_KEYWORD]?: ErrorCode; description?: string }>;
}

function fieldOf(error: ErrorObject): string {
  if (error.keyword === "required") return String(error.params.missingProperty);
  if (error.keyword === "additionalProperties") return String(error.params.additionalProperty);
  const segment = error.instancePath.split("/")[1];
  return segment ?? "";
}

function messageFor(error: ErrorObject, field: string, where: string): string {
  switch (error.keyword) {
    case "required":
      return `${field} is required`;
    case "additionalProperties":
      return `${field} is not a recognised ${where} field`;
    case "type":
      return field
        ? `${field} must be of type ${String(error.params.type)}`
        : `${where} must be a JSON object`;
    default:
      return field ? `${field} is invalid: ${error.message ?? "invalid value"}` : `${where} is invalid`;
  }
}

/** Picks the one error to report and turns it into an AppError. */
export function toAppError(schema: ObjectSchema, errors: ErrorObject[], where: string): AppError {
  const order = Object.keys(schema.properties ?? {});
  const rank = (e: ErrorObject): number => {
    if (e.keyword === "additionalProperties") return -1;
    const index = order.indexOf(fieldOf(e));
    return index === -1 ? order.length : index;
  };
  const sorted = [...errors].sort((a, b) => rank(a) - rank(b));
  const first = sorted[0]!;
  const field = fieldOf(first);
  const customCode =
    first.keyword !== "required" && first.keyword !== "additionalProperties"
      ? schema.properties?.[field]?.[ERROR_CODE_KEYWORD]
      : undefined;
  const code: ErrorCode = customCode ?? "VALIDATION_ERROR";
  return new AppError(code, messageFor(first, field, where), { field: field || where });
}

const cache = new WeakMap<object, ValidateFunction>();

export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? bodyAjv : textAjv;
  let validate = cache.get(schema as object);
  if (!validate) {
    validate = ajv.compile(schema as object);
    cache.set(schema as object, validate);
  }
  const fn = validate;
  const where = httpPart === "body" ? "body" : httpPart === "querystring" ? "query" : "path";
  return (data: unknown) => {
    if (fn(data)) return { value: data };
    return { error: toAppError(schema as ObjectSchema, fn.errors ?? [], where) };
  };
};
