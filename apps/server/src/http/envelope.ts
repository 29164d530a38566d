/**
 * The response envelope, built in one place:
 * success `{ success: true, data }`, list `{ success: true, data: { data, total, page, limit,
 * totalPages } }`, error `{ success: false, error: { code, message, metadata? } }`.
 */
import { type TSchema, Type } from "typebox";
import type { AppError } from "../lib/errors.ts";

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
