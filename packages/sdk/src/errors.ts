/**
 * One error class per error code of the Satang API, each with its metadata typed, so a caller
 * writes `if (error instanceof StateConflictError)` rather than comparing strings, and reads
 * `error.metadata.existingWithdrawId` without a cast.
 *
 * The list mirrors the server's one closed list (apps/server/src/lib/errors.ts); a test fails
 * when the two differ. A code this SDK does not know yet still arrives as a `SatangError` with
 * that code, so a newer server never breaks an older SDK.
 *
 * The metadata type of each class comes from the server's OpenAPI document: its error schema
 * (`components.schemas.Error`, property `error`) is a union of one object per code, each with
 * `code` fixed to one value and its own `metadata` (the server's per-code schemas,
 * apps/server/src/lib/error-metadata.ts); the generated types carry that union and `MetadataFor`
 * picks the variant of each class's code. Nothing about metadata is written here by hand.
 */
import type { components } from "./generated/openapi.ts";

/** Every error code the API answers with, and its HTTP status. */
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
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_MISMATCH: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes of failures the SDK itself detects: nothing usable came back from the server. */
export type ClientErrorCode = "CONNECTION_ERROR" | "UNEXPECTED_RESPONSE";

export type ErrorMetadata = Record<string, unknown>;

/**
 * The metadata of `code` in the error objects E: the `metadata` of E's variant whose `code` is
 * exactly that code (undefined when that variant has none), or `Fallback` when E has no variant
 * for the code alone (an error object whose `code` is any string or a list of codes).
 */
export type MetadataFor<E, C extends string, Fallback> = [Extract<E, { code: C }>] extends [never]
  ? Fallback
  : Extract<E, { code: C }> extends infer V
    ? "metadata" extends keyof V
      ? V["metadata" & keyof V]
      : undefined
    : never;

/** The error object of the envelope, as the server's OpenAPI document describes it. */
type DocumentedError = components["schemas"]["Error"]["error"];

export interface SatangErrorInit<M> {
  code: string;
  message: string;
  /** HTTP status; undefined when no response arrived. */
  status: number | undefined;
  metadata: M;
  /** The server's X-Request-Id: quote it when asking for help. */
  requestId: string | undefined;
  cause?: unknown;
  /** Whether the call (a write) may have been done by the server; false when not said. */
  mayHaveBeenProcessed?: boolean;
  /** The idempotency key the call's request carried, if it was a create. */
  idempotencyKey?: string | undefined;
}

export class SatangError<M = ErrorMetadata | undefined> extends Error {
  /** An `ErrorCode`, a `ClientErrorCode`, or a code newer than this SDK. */
  readonly code: ErrorCode | ClientErrorCode | (string & {});
  readonly status: number | undefined;
  readonly metadata: M;
  readonly requestId: string | undefined;
  /**
   * True when the call was a write that may have been done by the server although it ended in
   * this error: an attempt's answer was lost, or was a 5xx other than Satang's own 503 (a 500,
   * a proxy's page), on the way to this answer or as this answer. Send the same create again with
   * `idempotencyKey` to get that record instead of a second one. False for reads, and when every
   * attempt was refused or answered by Satang with a 4xx or its own 503 (it did nothing).
   */
  readonly mayHaveBeenProcessed: boolean;
  /** The idempotency key the request carried, if it was a create (also when the SDK made it). */
  readonly idempotencyKey: string | undefined;

  constructor(init: SatangErrorInit<M>) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.metadata = init.metadata;
    this.requestId = init.requestId;
    this.mayHaveBeenProcessed = init.mayHaveBeenProcessed ?? false;
    this.idempotencyKey = init.idempotencyKey;
  }
}

/**
 * The metadata of `code` as the document describes it. A code the document does not describe
 * (a document older than this SDK's list) has the untyped metadata of any error.
 */
export type ErrorMetadataOf<C extends ErrorCode> = MetadataFor<DocumentedError, C, ErrorMetadata | undefined>;

/** Names the offending request field (the first that failed, in the order of the body table). */
export type FieldMetadata = NonNullable<ErrorMetadataOf<"INVALID_AMOUNT">>;

/** 400: missing or malformed parameters; also a cancel of a final payment or withdraw. */
export class ValidationError extends SatangError<ErrorMetadataOf<"VALIDATION_ERROR">> {}
/** 400: amount is not a decimal string of whole satang greater than zero. */
export class InvalidAmountError extends SatangError<ErrorMetadataOf<"INVALID_AMOUNT">> {}
/** 400: currency other than THB. */
export class InvalidCurrencyError extends SatangError<ErrorMetadataOf<"INVALID_CURRENCY">> {}
/** 400: referenceId is not 1-255 letters, digits, `_`, `-` and `.`. */
export class InvalidReferenceIdError extends SatangError<ErrorMetadataOf<"INVALID_REFERENCE_ID">> {}
/** 400: not the 3-digit code of a bank operating in Thailand. */
export class InvalidBankCodeError extends SatangError<ErrorMetadataOf<"INVALID_BANK_CODE">> {}

/**
 * The daily or the monthly withdrawal limit, whichever the withdraw would exceed; or, for a
 * refund, what its payment has left to refund (`refundable`) and the amount asked for.
 */
export type InvalidInputMetadata = ErrorMetadataOf<"INVALID_INPUT">;
/** The withdrawal-limit forms of `InvalidInputMetadata`. */
export type WithdrawLimitMetadata = Exclude<InvalidInputMetadata, { refundable: string }>;
/** The refund form of `InvalidInputMetadata`. */
export type RefundableMetadata = Extract<InvalidInputMetadata, { refundable: string }>;
/**
 * 400: the combined daily or monthly withdrawal limit would be exceeded, or a refund is larger
 * than what its payment has left to refund.
 */
export class InvalidInputError extends SatangError<InvalidInputMetadata> {}

/** 400: the available wallet is smaller than the withdraw. */
export class InsufficientBalanceError extends SatangError<ErrorMetadataOf<"INSUFFICIENT_BALANCE">> {}
/**
 * 401: missing, stale or wrong signature, unknown or revoked key (one message for all). In
 * sandbox, `metadata.reason` says which, with what helps fix the request; live has no metadata.
 */
export class InvalidCredentialsError extends SatangError<ErrorMetadataOf<"INVALID_CREDENTIALS">> {}
/** 401: the key is valid but its merchant is disabled. */
export class AuthenticationError extends SatangError<ErrorMetadataOf<"AUTHENTICATION_ERROR">> {}
/** 403: the wallet is frozen or closed, so no withdraw can start. */
export class WalletInactiveError extends SatangError<ErrorMetadataOf<"WALLET_INACTIVE">> {}
/** 403: a dashboard user's role may not do this, or an owner in live must enrol two-factor login first. */
export class ForbiddenError extends SatangError<ErrorMetadataOf<"FORBIDDEN">> {}
/** 404: no such record for this merchant (another merchant's id answers the same). */
export class ResourceNotFoundError extends SatangError<ErrorMetadataOf<"RESOURCE_NOT_FOUND">> {}
/** 409: referenceId was used before by this merchant, for this resource. */
export class DuplicateReferenceIdError extends SatangError<ErrorMetadataOf<"DUPLICATE_REFERENCE_ID">> {}

type StateConflictMetadata = ErrorMetadataOf<"STATE_CONFLICT">;
/**
 * The matching-payout guard blocked a withdraw (same amount, similar account holder name);
 * for `recent_payout`, `retryAfter` is when the 15-minute window ends (ISO timestamp).
 */
export type PayoutGuardConflict = Extract<
  StateConflictMetadata,
  { reason: "active_payout" | "recent_payout" }
>;
/** Any other conflict: a sandbox simulation the record's status does not allow, a redeliver with no subscriber. */
export type TransitionConflict = Exclude<StateConflictMetadata, PayoutGuardConflict>;
/** 409: the record's state does not allow the request. */
export class StateConflictError extends SatangError<StateConflictMetadata> {
  /** True when the payout guard refused the withdraw; `metadata` then names the matching payout. */
  isPayoutGuard(): this is StateConflictError & { metadata: PayoutGuardConflict } {
    const metadata: unknown = this.metadata;
    if (typeof metadata !== "object" || metadata === null || !("reason" in metadata)) return false;
    return metadata.reason === "active_payout" || metadata.reason === "recent_payout";
  }
}

/** 408: the request's headers or body did not arrive in time; the server closed the connection. */
export class RequestTimeoutError extends SatangError<ErrorMetadataOf<"REQUEST_TIMEOUT">> {}
/** 413: the body exceeds 64 KiB. */
export class PayloadTooLargeError extends SatangError<ErrorMetadataOf<"PAYLOAD_TOO_LARGE">> {}
/** 422: the idempotencyKey was used before with a different body. */
export class IdempotencyKeyMismatchError extends SatangError<ErrorMetadataOf<"IDEMPOTENCY_KEY_MISMATCH">> {}

/** The window's limit, what remains, when it resets (ISO timestamp) and the seconds to wait. */
export type RateLimitMetadata = ErrorMetadataOf<"RATE_LIMIT_EXCEEDED">;
/** 429: the integration's requests per minute are spent (the SDK already retried if it could). */
export class RateLimitError extends SatangError<RateLimitMetadata> {}
/** 500: the server failed; nothing is left half-done (each change is one transaction). */
export class InternalError extends SatangError<ErrorMetadataOf<"INTERNAL_ERROR">> {}
/** 503: the server is starting, stopping or cannot reach its database; `metadata.retryAfter` in seconds. */
export class ServiceUnavailableError extends SatangError<ErrorMetadataOf<"SERVICE_UNAVAILABLE">> {}

/**
 * No response: the connection failed or the request timed out. When the request may have reached
 * the server (anything but a refused connection or an unknown host), `mayHaveBeenProcessed` is
 * true: a create may have been made. Send the same create again with `idempotencyKey` (the one
 * the SDK sent, also when it generated it) to get that record instead of a second one.
 */
export class ConnectionError extends SatangError<undefined> {
  constructor(
    init: SatangErrorInit<undefined> & { mayHaveBeenProcessed: boolean; idempotencyKey?: string | undefined },
  ) {
    super(init);
  }
}
/** A response without a Satang envelope (a proxy's error page, say). */
export class UnexpectedResponseError extends SatangError<undefined> {}

/** Any of the classes above; each narrows the metadata type of its constructor. */
type ErrorClass = new (init: never) => SatangError<unknown>;
type EnvelopeErrorClass = new (init: SatangErrorInit<ErrorMetadata | undefined>) => SatangError;

/** The class of each code; `satangErrorFor` picks from it. */
export const ERROR_CLASSES: Record<ErrorCode, ErrorClass> = {
  VALIDATION_ERROR: ValidationError,
  INVALID_AMOUNT: InvalidAmountError,
  INVALID_CURRENCY: InvalidCurrencyError,
  INVALID_REFERENCE_ID: InvalidReferenceIdError,
  INVALID_BANK_CODE: InvalidBankCodeError,
  INVALID_INPUT: InvalidInputError,
  INSUFFICIENT_BALANCE: InsufficientBalanceError,
  INVALID_CREDENTIALS: InvalidCredentialsError,
  AUTHENTICATION_ERROR: AuthenticationError,
  WALLET_INACTIVE: WalletInactiveError,
  FORBIDDEN: ForbiddenError,
  RESOURCE_NOT_FOUND: ResourceNotFoundError,
  DUPLICATE_REFERENCE_ID: DuplicateReferenceIdError,
  STATE_CONFLICT: StateConflictError,
  REQUEST_TIMEOUT: RequestTimeoutError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  IDEMPOTENCY_KEY_MISMATCH: IdempotencyKeyMismatchError,
  RATE_LIMIT_EXCEEDED: RateLimitError,
  INTERNAL_ERROR: InternalError,
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
};

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CLASSES, code);
}

/** The typed error for an error envelope. */
export function satangErrorFor(init: SatangErrorInit<ErrorMetadata | undefined>): SatangError {
  // The server decides the metadata of each code, so the narrowing is a promise about the wire
  // format; the SDK's tests hold the server to it.
  const ErrorType = (isErrorCode(init.code) ? ERROR_CLASSES[init.code] : SatangError) as EnvelopeErrorClass;
  return new ErrorType(init);
}
