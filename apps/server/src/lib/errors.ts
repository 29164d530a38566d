/**
 * The one closed list of error codes the service answers with, and the HTTP status of each.
 * Every error leaves the service through `AppError` and the envelope in `http/envelope.ts`.
 * Each code's metadata is described in `lib/error-metadata.ts`.
 */
import type { ERROR_METADATA, MetadataArgs, MetadataOf } from "./error-metadata.ts";

export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_AMOUNT: 400,
  INVALID_CURRENCY: 400,
  INVALID_REFERENCE_ID: 400,
  INVALID_BANK_CODE: 400,
  INVALID_INPUT: 400,
  INSUFFICIENT_BALANCE: 400,
  INVALID_CREDENTIALS: 401,
  AUTHENTICATION_ERROR: 401,
  WALLET_INACTIVE: 403,
  FORBIDDEN: 403,
  RESOURCE_NOT_FOUND: 404,
  DUPLICATE_REFERENCE_ID: 409,
  STATE_CONFLICT: 409,
  // A request line, headers or body that did not arrive in time (CONTRACT 14): the connection
  // is closed after this answer.
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_MISMATCH: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Each code's metadata has one schema in lib/error-metadata.ts, and each code has one there. */
type SameCodes<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const everyCodeHasMetadata: SameCodes<ErrorCode, keyof typeof ERROR_METADATA> = true;
void everyCodeHasMetadata;

/** The metadata of `code` as its schema describes it; all codes' metadata for `ErrorCode`. */
export type ErrorMetadata<C extends ErrorCode = ErrorCode> = MetadataOf<C>;

/**
 * The one error type that reaches callers. `new AppError(code, message, metadata)` takes the
 * metadata its code's schema describes, no argument for a code that has none, and an optional
 * one for a code that has it only sometimes (lib/error-metadata.ts).
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly status: number;
  readonly metadata: ErrorMetadata<C>;

  constructor(code: C, message: string, ...[metadata]: MetadataArgs<C>) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.metadata = metadata as ErrorMetadata<C>;
  }
}

/** An `AppError` of any code, whose `metadata` narrows with its `code`. */
export type AnyAppError = { [C in ErrorCode]: AppError<C> }[ErrorCode];

export function isAppError(value: unknown): value is AnyAppError {
  return value instanceof AppError;
}

/** The codes whose metadata is `{ field }`: the field-level validation errors. */
export type FieldErrorCode = {
  [C in ErrorCode]: { field: string } extends NonNullable<ErrorMetadata<C>> ? C : never;
}[ErrorCode];

/** A field-level validation error: always 400 with `metadata.field`. */
export function fieldError(code: FieldErrorCode, field: string, message: string): AppError<FieldErrorCode> {
  return new AppError<FieldErrorCode>(code, message, { field });
}

export function notFound(what: string): AppError {
  return new AppError("RESOURCE_NOT_FOUND", `${what} not found`);
}
