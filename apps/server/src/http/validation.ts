/**
 * Request validation from the route schemas (the same TypeBox schemas feed the OpenAPI
 * document). Bodies are validated strictly: no type coercion, unknown fields refused.
 * Query strings and path parameters are coerced from text.
 *
 * When a request fails, the error names one field, by its path for nested objects
 * ("collectionAccount.bankCode"): at each level an unknown field first, otherwise the first
 * failing field in the order of the schema's properties (the order of interface.md's body
 * tables). A field may carry its own error code (`x-error-code`, e.g. INVALID_AMOUNT): any
 * present-but-invalid value of it gets that code, from the deepest schema that declares one; a
 * missing required field is VALIDATION_ERROR. `x-error-message` gives a friendlier message than
 * Ajv's where a regular expression cannot say the rule well. Text PostgreSQL cannot store (NUL,
 * unpaired surrogates) is refused here for every field of every route (http/storable-text.ts).
 */
import AjvModule, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifySchema, FastifySchemaCompiler } from "fastify";
import type { TSchema } from "typebox";
import { AppError, type FieldErrorCode } from "../lib/errors.ts";
import { parseAmount, parseSignedAmount } from "../lib/money.ts";
import { UNSTORABLE_TEXT_KEYWORD, unstorableTextErrors } from "./storable-text.ts";

export const ERROR_CODE_KEYWORD = "x-error-code";
export const ERROR_MESSAGE_KEYWORD = "x-error-message";
/** The amount rule of lib/money.ts (whole satang, greater than zero; or "signed": non-zero). */
export const AMOUNT_KEYWORD = "x-amount";
/** An absolute http or https URL with a host. */
export const HTTP_URL_KEYWORD = "x-http-url";

const Ajv = AjvModule.default ?? AjvModule;
const addFormats = addFormatsModule.default ?? addFormatsModule;

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
  ajv.addKeyword({ keyword: ERROR_MESSAGE_KEYWORD, schemaType: "string" });
  ajv.addKeyword({
    keyword: AMOUNT_KEYWORD,
    type: "string",
    schemaType: ["boolean", "string"],
    validate: (mode: boolean | "signed", data: string) =>
      mode === "signed" ? parseSignedAmount(data) !== null : !mode || parseAmount(data) !== null,
    errors: false,
  });
  ajv.addKeyword({
    keyword: HTTP_URL_KEYWORD,
    type: "string",
    schemaType: "boolean",
    validate: (enabled: boolean, data: string) => !enabled || isHttpUrl(data),
    errors: false,
  });
  return ajv;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  anyOf?: SchemaNode[];
  [ERROR_CODE_KEYWORD]?: FieldErrorCode;
  [ERROR_MESSAGE_KEYWORD]?: string;
}

/**
 * The property path an error is about: ["collectionAccount", "bankCode"]. The path follows the
 * schema's declared properties only: inside a free-form object such as `metadata`, the keys are
 * the caller's data, so an error there names `metadata` itself.
 */
function pathOf(root: SchemaNode, error: ErrorObject): string[] {
  const segments = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (error.keyword === "required") segments.push(String(error.params.missingProperty));
  if (error.keyword === "additionalProperties") segments.push(String(error.params.additionalProperty));
  const path: string[] = [];
  let current: SchemaNode | undefined = root;
  for (const [index, segment] of segments.entries()) {
    const object = objectOf(current);
    const declared = object?.properties?.[segment];
    const unknownHere = index === segments.length - 1 && error.keyword === "additionalProperties" && object;
    if (!declared && !unknownHere) break;
    path.push(segment);
    current = declared;
  }
  return path;
}

/** The object schema among a node and its anyOf branches (nullable objects are unions). */
function objectOf(node: SchemaNode | undefined): SchemaNode | undefined {
  if (!node) return undefined;
  if (node.properties) return node;
  return node.anyOf?.find((branch) => branch.properties);
}

/** The schema nodes along a path, starting below the root. */
function nodesAlong(root: SchemaNode, path: string[]): SchemaNode[] {
  const nodes: SchemaNode[] = [];
  let current: SchemaNode | undefined = root;
  for (const segment of path) {
    current = objectOf(current)?.properties?.[segment];
    if (!current) break;
    nodes.push(current);
  }
  return nodes;
}

/**
 * Position of an error in the body table: at each level, an unknown field ranks first, then
 * fields in the order the schema lists them. A deeper error ranks before the error about its
 * enclosing field, because it says more precisely what is wrong.
 */
function rankOf(root: SchemaNode, error: ErrorObject): number[] {
  const path = pathOf(root, error);
  const ranks: number[] = [];
  let current: SchemaNode | undefined = root;
  path.forEach((segment, depth) => {
    const object = objectOf(current);
    const order = Object.keys(object?.properties ?? {});
    const last = depth === path.length - 1;
    const index = order.indexOf(segment);
    ranks.push(last && error.keyword === "additionalProperties" ? -1 : index === -1 ? order.length : index);
    current = object?.properties?.[segment];
  });
  return ranks;
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  }
  return b.length - a.length;
}

function describe(error: ErrorObject, field: string, where: string, custom: string | undefined): string {
  const subject = field || where;
  switch (error.keyword) {
    case "required":
      return `${field} is required`;
    case "additionalProperties":
      return `${field} is not a recognised ${where} field`;
    default:
      if (custom) return `${subject} ${custom}`;
      if (error.keyword === "type") return `${subject} must be of type ${String(error.params.type)}`;
      if (error.keyword === "enum") {
        return `${subject} must be one of ${(error.params.allowedValues as unknown[]).join(", ")}`;
      }
      return `${subject} ${error.message ?? "is invalid"}`;
  }
}

/** The JSON type of a value, as a schema's `type` names it. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The JSON types a field's schema accepts (its own and its anyOf branches'), if all are named. */
function acceptedTypes(node: SchemaNode): Set<string> | undefined {
  const own = (node as { type?: string | string[] }).type;
  if (own !== undefined) return new Set(Array.isArray(own) ? own : [own]);
  if (!node.anyOf) return undefined;
  const types = new Set<string>();
  for (const branch of node.anyOf) {
    const inBranch = acceptedTypes(branch);
    if (!inBranch) return undefined;
    for (const type of inBranch) types.add(type);
  }
  return types;
}

const isAmount = (node: SchemaNode): boolean =>
  (node as Record<string, unknown>)[AMOUNT_KEYWORD] !== undefined || (node.anyOf ?? []).some(isAmount);

/**
 * Whether a present value has a JSON type its field does not accept. An amount's JSON number is
 * an invalid amount, not a wrong type (CONTRACT 4: "including a JSON number"); its null, object,
 * array or boolean is a wrong type as any field's.
 */
function isWrongType(node: SchemaNode, value: unknown): boolean {
  if (value === undefined) return false;
  if (isAmount(node)) return typeof value !== "string" && typeof value !== "number";
  const types = acceptedTypes(node);
  if (!types) return false;
  const type = jsonTypeOf(value);
  return !(types.has(type) || (type === "integer" && types.has("number")));
}

function valueAt(data: unknown, path: string[]): unknown {
  let value = data;
  for (const segment of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** Picks the one error to report and turns it into an AppError whose field is a dotted path. */
function toFieldError(schema: object, errors: ErrorObject[], where: string, data: unknown): AppError {
  const root = schema as SchemaNode;
  const ranked = errors.map((error) => ({ error, rank: rankOf(root, error) }));
  ranked.sort((a, b) => compareRanks(a.rank, b.rank));
  const first = ranked[0]!.error;
  const path = pathOf(root, first);
  const field = path.join(".");
  const nodes = path.length === 0 ? [root] : nodesAlong(root, path);
  // A missing or unknown field, text the database cannot store, or a value of the wrong JSON
  // type is VALIDATION_ERROR whatever code the field declares for its own rule (CONTRACT 4);
  // only an amount keeps its code for a JSON number ("including a JSON number").
  const fieldNode = path.length > 0 && nodes.length === path.length ? nodes.at(-1) : undefined;
  const wrongType = fieldNode !== undefined && isWrongType(fieldNode, valueAt(data, path));
  const structural =
    wrongType || ["required", "additionalProperties", UNSTORABLE_TEXT_KEYWORD].includes(first.keyword);
  let code: FieldErrorCode = "VALIDATION_ERROR";
  let message: string | undefined;
  if (!structural) {
    for (const node of nodes) {
      code = node[ERROR_CODE_KEYWORD] ?? code;
      message = node[ERROR_MESSAGE_KEYWORD] ?? message;
    }
  }
  const described =
    wrongType && first.keyword !== "repeated"
      ? (ranked.find(({ error }) => error.keyword === "type" && error.instancePath === first.instancePath)
          ?.error ?? first)
      : first;
  const plus = where === "query" ? plusSentAsSpace(fieldNode, valueAt(data, path)) : undefined;
  if (plus !== undefined) {
    return new AppError(
      code,
      `${field} has a space where a + was: a + in a query string must be sent as %2B (${plus})`,
      { field },
    );
  }
  return new AppError(code, describe(described, field, where, message), { field: field || where });
}

/**
 * A query value that fails its pattern only because a `+` arrived as a space (an offset such as
 * +07:00 written into a URL unencoded, which the query string reads as a space): the value as it
 * should have been sent, or undefined.
 */
function plusSentAsSpace(node: SchemaNode | undefined, value: unknown): string | undefined {
  const pattern = (node as { pattern?: unknown } | undefined)?.pattern;
  if (typeof pattern !== "string" || typeof value !== "string" || !value.includes(" ")) return undefined;
  const withPlus = value.replaceAll(" ", "+");
  return new RegExp(pattern).test(withPlus) ? withPlus.replaceAll("+", "%2B") : undefined;
}

/**
 * A number in a query string or a path is decimal digits: the coercion to a number would also
 * read `0x10`, `1e1` or ` 12 ` as one (CONTRACT 11: an invalid `page` or `limit` is 400).
 */
const DECIMAL_DIGITS = /^[0-9]+$/;

/** A number not written in decimal digits, ranked with the validator's errors by its field. */
function notDecimalError(name: string): ErrorObject {
  return {
    instancePath: `/${name}`,
    schemaPath: `#/properties/${name}`,
    keyword: "decimal",
    params: {},
    message: "must be a whole number written in decimal digits",
  };
}

/** A query parameter given more than once (`?limit=10&limit=20`), which its schema does not take. */
function repeatedError(name: string): ErrorObject {
  return {
    instancePath: `/${name}`,
    schemaPath: `#/properties/${name}`,
    keyword: "repeated",
    params: {},
    message: "is given more than once: give it once",
  };
}

/** The query parameters that arrived more than once (as an array) where the schema wants one value. */
function repeatedParameters(schema: SchemaNode, data: unknown): string[] {
  if (data === null || typeof data !== "object") return [];
  return Object.entries(data as Record<string, unknown>)
    .filter(([name, value]) => {
      if (!Array.isArray(value)) return false;
      const property = schema.properties?.[name] as { type?: unknown } | undefined;
      return property !== undefined && property.type !== "array";
    })
    .map(([name]) => name);
}

/** The properties of a query or path schema that are integers. */
function integerProperties(schema: SchemaNode): string[] {
  return Object.entries(schema.properties ?? {})
    .filter(([, property]) => (property as { type?: unknown }).type === "integer")
    .map(([name]) => name);
}

/**
 * Compiled validators by schema object. A schema compiles to the same function in every app,
 * so the cache is the process's: tests build many apps and would otherwise compile every
 * route's schemas again for each.
 */
const bodyCache = new WeakMap<object, ValidateFunction>();
const queryCache = new WeakMap<object, ValidateFunction>();
const pathCache = new WeakMap<object, ValidateFunction>();

/**
 * A query schema as it is checked: closed to parameters it does not name, as bodies are to
 * unknown fields (CONTRACT 4). A misspelt filter (`stauts=paid`) is refused with its name in
 * `metadata.field` rather than ignored, which would answer an unfiltered list or export as if it
 * were the filtered one. A schema that states `additionalProperties` itself keeps it.
 */
function closedQuery(schema: object): object {
  const node = schema as { type?: unknown; additionalProperties?: unknown };
  if (node.type !== "object" || node.additionalProperties !== undefined) return schema;
  return { ...schema, additionalProperties: false };
}

/** Fastify validator compiler for every route: the envelope, the codes, nested paths. */
export const validatorCompiler: FastifySchemaCompiler<FastifySchema> = ({ schema, httpPart }) => {
  const ajv = httpPart === "body" ? bodyAjv : textAjv;
  const cache = httpPart === "body" ? bodyCache : httpPart === "querystring" ? queryCache : pathCache;
  let validate = cache.get(schema as object);
  if (!validate) {
    validate = ajv.compile((httpPart === "querystring" ? closedQuery(schema as object) : schema) as TSchema);
    cache.set(schema as object, validate);
  }
  const fn = validate;
  const where = httpPart === "body" ? "body" : httpPart === "querystring" ? "query" : "path";
  const integers = where === "body" ? [] : integerProperties(schema as SchemaNode);
  return (data: unknown) => {
    // Read before the validator coerces them: "0x10" would be 16 by then.
    const notDecimal = integers.filter((name) => {
      const value = (data as Record<string, unknown> | null)?.[name];
      return typeof value === "string" && !DECIMAL_DIGITS.test(value);
    });
    const unstorable = unstorableTextErrors(data);
    if (fn(data) && unstorable.length === 0 && notDecimal.length === 0) return { value: data };
    // Looked for only once the value is refused: a parameter given twice arrives as an array,
    // which a one-value parameter's schema refuses, and the refusal then says why.
    const repeated = where === "query" ? repeatedParameters(schema as SchemaNode, data) : [];
    const errors = [
      ...repeated.map(repeatedError),
      ...unstorable,
      ...notDecimal.map(notDecimalError),
      ...(fn.errors ?? []),
    ];
    return { error: toFieldError(schema as object, errors, where, data) };
  };
};
