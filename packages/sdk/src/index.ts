/**
 * @satang/sdk: the typed client of the Satang API, webhook verification, amount helpers and
 * request signing. See packages/sdk/README.md.
 */
export { bahtToSatang, fromSatangString, satangToBaht, toSatangString } from "./amount.ts";
export {
  BalanceResource,
  Events,
  Payments,
  Refunds,
  Sandbox,
  Satang,
  type SatangConfig,
  WebhookEndpoints,
  Withdraws,
} from "./client.ts";
export {
  AuthenticationError,
  type ClientErrorCode,
  ConnectionError,
  DuplicateReferenceIdError,
  ERROR_CLASSES,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorMetadata,
  type ErrorMetadataOf,
  type FieldMetadata,
  ForbiddenError,
  IdempotencyKeyMismatchError,
  InsufficientBalanceError,
  InternalError,
  InvalidAmountError,
  InvalidBankCodeError,
  InvalidCredentialsError,
  InvalidCurrencyError,
  InvalidInputError,
  type InvalidInputMetadata,
  InvalidReferenceIdError,
  PayloadTooLargeError,
  type PayoutGuardConflict,
  RateLimitError,
  type RateLimitMetadata,
  type RefundableMetadata,
  RequestTimeoutError,
  ResourceNotFoundError,
  SatangError,
  ServiceUnavailableError,
  StateConflictError,
  type TransitionConflict,
  UnexpectedResponseError,
  ValidationError,
  WalletInactiveError,
  type WithdrawLimitMetadata,
} from "./errors.ts";
export { DEFAULT_BASE_URL, type FetchLike, parseRetryAfter } from "./http.ts";
export { ROUTES, type Route, type RouteName } from "./routes.ts";
export { nextTimestamp, type SignedHeaders, type SignInput, signRequest } from "./signing.ts";
export * from "./types.ts";
export {
  type HeadersLike,
  type RawBody,
  type TestHeaderOptions,
  type WebhookHeaders,
  WebhookVerificationError,
  webhooks,
} from "./webhooks.ts";
