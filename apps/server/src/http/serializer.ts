/**
 * The response serializer's options (Fastify's `serializerOpts`, handed to fast-json-stringify).
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
export const SERIALIZER_OPTIONS = { ajv: { validateFormats: false } } as const;
