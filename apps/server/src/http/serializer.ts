/**
 * The response serializer: every route's response schemas compiled by fast-json-stringify, with
 * the options below, once per process.
 *
 * The serializer picks the branch of a nullable field or of a union (`nextAction`) by validating
 * the value against each branch in turn. With formats checked, every timestamp of every record
 * went through the date-time format's parser on its way out: about 3% of a list's server time
 * (docs/PERFORMANCE.md, "Evening"). The views make each value in its documented form, and no
 * response schema has two branches that differ only by a format, so the types and constants
 * alone choose the same branch and the output is the same (test/http/serializer-formats.test.ts,
 * which also walks every route's response schemas for such a union). Requests are validated by
 * their own compiler (http/validation.ts), with formats.
 */

import fastJsonStringify from "fast-json-stringify";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";

export const SERIALIZER_OPTIONS = { ajv: { validateFormats: false } } as const;

type Serialize = (data: unknown) => string;

/**
 * Compiled serializers by schema object. A schema compiles to the same function in every app
 * (the service registers no shared schemas, so nothing else goes into it), and compiling is
 * most of the CPU of building an app: a process that builds more than one (tests, a `satang`
 * command beside a server) compiles each route's schemas once.
 */
const compiled = new WeakMap<object, Serialize>();

/** Fastify's serializer compiler for every route (`app.setSerializerCompiler`). */
export const serializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  const key = schema as object;
  let serialize = compiled.get(key);
  if (!serialize) {
    serialize = fastJsonStringify(schema as fastJsonStringify.Schema, SERIALIZER_OPTIONS) as Serialize;
    compiled.set(key, serialize);
  }
  return serialize;
};
