/**
 * JSON Schema (the TypeBox schemas that validate requests) -> fast-check arbitraries.
 *
 * - `validValue(schema)`: values the schema accepts (patterns through fc.stringMatching, amounts
 *   of whole satang, formats), so a fuzzed request reaches the handler and not only validation;
 * - `fuzzValue(schema)`: mostly valid values with some fields replaced by hostile ones (wrong
 *   types, NUL and lone surrogates, huge numbers, very long text, unknown fields, missing
 *   required fields).
 */
import fc from "fast-check";

export interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  maxProperties?: number;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
  "x-amount"?: boolean | "signed";
  "x-http-url"?: boolean;
  [key: string]: unknown;
}

const amount = fc
  .tuple(fc.integer({ min: 1, max: 99_999 }), fc.constantFrom("", ".00", ".0", ".50"))
  .map(([whole, tail]) => (tail === ".50" ? `${whole}.50` : `${whole}${tail}`))
  .filter((text) => !text.endsWith(".50"));

const signedAmount = fc.tuple(fc.constantFrom("", "-", "+"), amount).map(([sign, text]) => `${sign}${text}`);

function withLength(arb: fc.Arbitrary<string>, schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.POSITIVE_INFINITY;
  return arb.filter((text) => [...text].length >= min && [...text].length <= max);
}

function validString(schema: Schema): fc.Arbitrary<string> {
  if (schema["x-amount"] === "signed") return signedAmount;
  if (schema["x-amount"]) return amount;
  if (schema["x-http-url"] || schema.format === "uri") {
    return fc.constantFrom(
      "https://example.com/hook",
      "https://shop.example/return?x=1",
      "http://example.org/",
    );
  }
  if (schema.format === "uuid") return fc.uuid({ version: 4 });
  if (schema.format === "email")
    return fc.emailAddress().filter((e) => e.length <= (schema.maxLength ?? 254));
  if (schema.format === "date-time") {
    return fc
      .date({
        min: new Date("2020-01-01T00:00:00Z"),
        max: new Date("2030-01-01T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  }
  if (schema.pattern) {
    // "xsmall": with "small", a pattern of repeated optional separators and a maxLength (account
    // numbers: `^[-\s]*([0-9][-\s]*){10,15}$`, at most 32) almost never fits, and the length
    // filter then spends about half a second per value.
    return withLength(fc.stringMatching(new RegExp(schema.pattern, "u"), { size: "xsmall" }), schema);
  }
  const min = Math.max(schema.minLength ?? 0, 1);
  const max = Math.min(schema.maxLength ?? 40, 40);
  return fc
    .string({ minLength: Math.min(min, max), maxLength: Math.max(min, max) })
    .filter((s) => /\S/.test(s));
}

function validObject(schema: Schema, complete: boolean): fc.Arbitrary<Record<string, unknown>> {
  if (!schema.properties) {
    const valueSchema = typeof schema.additionalProperties === "object" ? schema.additionalProperties : {};
    return fc.dictionary(
      validString(schema.propertyNames ?? { minLength: 1, maxLength: 20 }),
      validValue({ type: "string", ...valueSchema }),
      { maxKeys: Math.min(schema.maxProperties ?? 3, 3) },
    );
  }
  const required = new Set(schema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of Object.entries(schema.properties))
    model[key] = validValue(property, complete);
  const requiredKeys = Object.keys(model).filter((key) => complete || required.has(key));
  return fc.record(model, { requiredKeys });
}

/**
 * Values the schema accepts (as far as a generator can tell: cross-field rules are not known);
 * `complete` fills every optional field too.
 */
export function validValue(schema: Schema, complete = false): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    const objects = complete ? union.filter((branch) => branch.properties) : [];
    return fc.oneof(...(objects.length > 0 ? objects : union).map((branch) => validValue(branch, complete)));
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return validString(schema);
    case "integer":
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1000, 1000) });
    case "number":
      return fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(validValue((schema.items as Schema) ?? {}, complete), {
        minLength: (schema.minItems as number) ?? 0,
        maxLength: Math.max((schema.minItems as number) ?? 0, 3),
        ...(schema.uniqueItems ? { comparator: "IsStrictlyEqual" as const } : {}),
      });
    case "object":
      return validObject(schema, complete);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/**
 * One code point of any kind, lone surrogates included, printable ASCII more often than the rest.
 * (fast-check's own `unit: "binary"` draws the same, but builds a map of every code point when it
 * is made: a second of CPU in each process that loads this module.)
 */
const anyCodePoint = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0, max: 0x10ffff }))
  .map((codePoint) => String.fromCodePoint(codePoint));

/** Text and values that have broken services before. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfff",
    "",
    " ",
    "1e309",
    "Infinity",
    "-1",
    "0",
    "0000-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "123456789012345678901",
    "'; DROP TABLE payments; --",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "%00",
    "x".repeat(5000),
    "๑๒๓",
    "🙂",
    1e308,
    -1,
    0,
    1.5,
    Number.MAX_SAFE_INTEGER + 2,
    true,
    null,
    [],
    {},
  ),
  fc.string({ unit: anyCodePoint, maxLength: 30 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Mostly valid objects whose fields are sometimes replaced, dropped or joined by unknown ones. */
export function fuzzValue(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.type !== "object" || !schema.properties) return fc.oneof(validValue(schema), hostileValue);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    model[key] = fc.oneof(
      { weight: 4, arbitrary: validValue(property) },
      { weight: 1, arbitrary: fuzzValue(property) },
    );
  }
  const keys = Object.keys(model);
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(model, { requiredKeys: keys.filter((k) => schema.required?.includes(k)) }),
    },
    { weight: 2, arbitrary: fc.record(model, { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.record(model), fc.string({ minLength: 1, maxLength: 12 }), hostileValue)
        .map(([body, key, value]) => ({ ...body, [key]: value })),
    },
    { weight: 1, arbitrary: hostileValue },
  );
}

/** One value from an arbitrary, reproducibly. */
export function sampleOne<T>(arb: fc.Arbitrary<T>, seed: number): T {
  return fc.sample(arb, { seed, numRuns: 1 })[0] as T;
}

/** Every path to a string field of an object schema: [["description"], ["collectionAccount", "accountName"]]. */
export function stringFieldPaths(schema: Schema, prefix: string[] = []): string[][] {
  const paths: string[][] = [];
  const objectSchema = schema.properties ? schema : (schema.anyOf ?? []).find((s) => s.properties);
  for (const [key, property] of Object.entries(objectSchema?.properties ?? {})) {
    const path = [...prefix, key];
    const types = [property.type, ...(property.anyOf ?? []).map((s) => s.type)].flat();
    if (types.includes("string") || property.enum || typeof property.const === "string") paths.push(path);
    if (types.includes("object")) {
      if (property.properties || property.anyOf) paths.push(...stringFieldPaths(property, path));
      else paths.push(path);
    }
  }
  return paths;
}
