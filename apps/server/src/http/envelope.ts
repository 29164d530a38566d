/**
 * The response envelope, built in one place:
 * success `{ success: true, data }`, list `{ success: true, data: { data, total, page, limit,
 * totalPages } }`, error `{ success: false, error: { code, message, metadata? } }`.
 */
import { type TSchema, Type } from "typebox";
import { ERROR_METADATA } from "../lib/error-metadata.ts";
import { type AppError, ERROR_STATUS, type ErrorCode } from "../lib/errors.ts";

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export function ok<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** TypeBox schema of the success envelope around `data`, for response schemas and OpenAPI. */
export function envelopeSchema<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

export function page<T>(records: T[], total: number, pageNumber: number, limit: number): Page<T> {
  return { data: records, total, page: pageNumber, limit, totalPages: Math.ceil(total / limit) };
}

export function errorBody(error: AppError): {
  success: false;
  error: { code: string; message: string; metadata?: Record<string, unknown> };
} {
  return {
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.metadata !== undefined ? { metadata: error.metadata } : {}),
    },
  };
}

/**
 * The `error` object of one code: the code, a message, and the metadata its schema describes
 * (lib/error-metadata.ts), required, optional or absent as the code has it. Nothing else.
 */
export function errorObjectSchema(code: ErrorCode): TSchema {
  const metadata = ERROR_METADATA[code];
  return Type.Object(
    { code: Type.Literal(code), message: Type.String(), ...(metadata === null ? {} : { metadata }) },
    { additionalProperties: false, title: code, description: `HTTP ${ERROR_STATUS[code]}` },
  );
}

/** The error objects of every code, one each, in the order of the list (lib/errors.ts). */
export const ERROR_OBJECT_SCHEMAS: readonly TSchema[] = (Object.keys(ERROR_STATUS) as ErrorCode[]).map(
  errorObjectSchema,
);

/** The error envelope: `error` is exactly one of the per-code error objects. */
export const ErrorEnvelope: TSchema = Type.Object({
  success: Type.Literal(false),
  error: Type.Union([...ERROR_OBJECT_SCHEMAS]),
});
