/**
 * The one closed list of error codes the service answers with, and the HTTP status of each.
 * Every error leaves the service through `AppError` and the envelope in `http/envelope.ts`.
 */
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
  RESOURCE_NOT_FOUND: 404,
  DUPLICATE_REFERENCE_ID: 409,
  STATE_CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_MISMATCH: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorMetadata = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly metadata: ErrorMetadata | undefined;

  constructor(code: ErrorCode, message: string, metadata?: ErrorMetadata) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.metadata = metadata;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** A field-level validation error: always 400 with `metadata.field`. */
export function fieldError(code: ErrorCode, field: string, message: string): AppError {
  return new AppError(code, message, { field });
}

export function notFound(what: string): AppError {
  return new AppError("RESOURCE_NOT_FOUND", `${what} not found`);
}
