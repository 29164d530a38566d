/**
 * The metadata each error code carries, as one TypeBox schema per code: `AppError` type-checks
 * the metadata of every `new AppError(code, ...)` against its code's schema (lib/errors.ts), the
 * OpenAPI document describes the error envelope as one variant per code made from this map
 * (http/openapi.ts), and the SDK's error classes take their metadata types from that document.
 *
 * An entry is the schema of the metadata when the code always has it, `Type.Optional(schema)`
 * when it has it only sometimes, and `null` when it never has any. Every object is closed
 * (`additionalProperties: false`), so a key added at a call site must be added here too.
 */
import { type Static, type TOptional, type TSchema, Type } from "typebox";
import { PAYOUT_REPORT_OUTCOMES } from "./provider-reports.ts";
import { WITHDRAW_STATUSES } from "./withdraw-statuses.ts";

const closed = { additionalProperties: false } as const;

const decimal = (description: string) => Type.String({ description: `${description} (decimal string)` });

/** A request field that failed: a body field, or `body`, `path`, `query` for the whole part. */
const FieldMetadata = Type.Object(
  { field: Type.String({ description: "The offending request field, or body, path or query" }) },
  closed,
);

/**
 * The daily or the monthly withdrawal limit, whichever the withdraw would exceed; or a refund
 * larger than what its payment has left to refund (CONTRACT 16).
 */
const InvalidInputMetadata = Type.Union([
  Type.Object(
    {
      refundable: decimal("What the payment has left to refund"),
      amount: decimal("The refund's amount"),
    },
    closed,
  ),
  Type.Object(
    {
      amount: decimal("The withdraw's amount"),
      dailyTotal: decimal("Withdrawn today (UTC) so far"),
      dailyLimit: decimal("The merchant's daily limit"),
    },
    closed,
  ),
  Type.Object(
    {
      amount: decimal("The withdraw's amount"),
      monthlyTotal: decimal("Withdrawn this month (UTC) so far"),
      monthlyLimit: decimal("The merchant's monthly limit"),
    },
    closed,
  ),
]);

const InsufficientBalanceMetadata = Type.Object(
  {
    available: decimal("The available wallet"),
    amount: decimal("The amount asked for (negative for an operator debit)"),
  },
  closed,
);

const reasonOnly = <R extends string>(reason: R) => Type.Object({ reason: Type.Literal(reason) }, closed);
const expected = <R extends string>(reason: R) =>
  Type.Object(
    { reason: Type.Literal(reason), expected: Type.String({ description: "What was expected" }) },
    closed,
  );

/**
 * Sandbox only: why the credentials were refused, and what helps fix the request. Live answers
 * have no metadata (http/auth.ts).
 */
const InvalidCredentialsMetadata = Type.Union([
  Type.Object(
    {
      reason: Type.Literal("missing_header"),
      missingHeaders: Type.Array(Type.String(), { description: "The authentication headers missing" }),
    },
    closed,
  ),
  expected("timestamp_format"),
  Type.Object(
    {
      reason: Type.Literal("timestamp_skew"),
      serverTime: Type.String({ format: "date-time" }),
      serverTimeMs: Type.Integer(),
      toleranceMs: Type.Integer(),
      hint: Type.Optional(
        Type.String({
          description:
            "Present when X-Timestamp looks like Unix seconds: it says so, and that milliseconds are expected",
        }),
      ),
    },
    closed,
  ),
  expected("signature_format"),
  Type.Object(
    {
      reason: Type.Literal("signature_mismatch", {
        description:
          "Not the HMAC of the string to sign under the key's secret, or a key that is unknown or revoked: the three answer alike, so no answer tells whether a key exists",
      }),
      signatureVersion: Type.Enum(["v1", "v2"]),
      stringToSign: Type.String({ description: "The layout of the signed string" }),
      timestamp: Type.String(),
      method: Type.Optional(Type.String({ description: "v2 only" })),
      pathWithQuery: Type.Optional(Type.String({ description: "v2 only" })),
      bodyBytes: Type.Integer(),
      bodySha256: Type.String({ description: "Hex SHA-256 of the body the server received" }),
    },
    closed,
  ),
  reasonOnly("replayed"),
]);

/** The matching-payout guard blocked a withdraw (same amount, similar account holder name). */
const PayoutGuardMetadata = Type.Union([
  Type.Object(
    {
      existingWithdrawId: Type.String({ format: "uuid" }),
      existingWithdrawStatus: Type.Enum(WITHDRAW_STATUSES),
      reason: Type.Literal("active_payout"),
    },
    closed,
  ),
  Type.Object(
    {
      existingWithdrawId: Type.String({ format: "uuid" }),
      existingWithdrawStatus: Type.Enum(WITHDRAW_STATUSES),
      reason: Type.Literal("recent_payout"),
      retryAfter: Type.String({ format: "date-time", description: "When the 15-minute window ends" }),
    },
    closed,
  ),
]);

/** Every other conflict: the record's status (or the service's state) does not allow the request. */
const StateConflictMetadata = Type.Union([
  ...PayoutGuardMetadata.anyOf,
  Type.Object(
    {
      reason: Type.String({
        description: "e.g. invalid_transition, payout_in_flight, no_subscribed_endpoint",
      }),
      status: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "The record's status" })),
    },
    closed,
  ),
  Type.Object({ status: Type.String({ description: "The withdraw's status (operator decision)" }) }, closed),
  Type.Object(
    { reason: Type.Literal("outcome_already_recorded"), outcome: Type.Enum(PAYOUT_REPORT_OUTCOMES) },
    closed,
  ),
  Type.Object(
    {
      reason: Type.Literal("bank_reference_in_use"),
      withdrawId: Type.Optional(
        Type.String({ format: "uuid", description: "The withdraw the bank reference is recorded for" }),
      ),
      refundId: Type.Optional(
        Type.String({ format: "uuid", description: "The refund the bank reference is recorded for" }),
      ),
      batchId: Type.Optional(
        Type.String({ format: "uuid", description: "That withdraw's or refund's payout batch" }),
      ),
    },
    closed,
  ),
  Type.Object({ field: Type.Literal("email"), reason: Type.Literal("email_taken") }, closed),
  reasonOnly("name_taken"),
  reasonOnly("name_reserved"),
  reasonOnly("last_owner"),
  reasonOnly("no_pending_enrolment"),
]);

/** Why a dashboard user may not do this (CONTRACT 13). */
const ForbiddenMetadata = Type.Union([
  Type.Object(
    {
      reason: Type.Literal("role"),
      role: Type.Enum(["owner", "developer", "finance"], { description: "The user's role" }),
      allowedRoles: Type.Array(Type.String(), { description: "The roles that may do this" }),
    },
    closed,
  ),
  reasonOnly("two_factor_enrolment_required"),
  reasonOnly("two_factor_login_required"),
]);

const RateLimitMetadata = Type.Object(
  {
    limit: Type.Integer({ description: "Requests (or attempts) allowed per window" }),
    remaining: Type.Integer(),
    resetAt: Type.String({ format: "date-time", description: "When the window resets" }),
    retryAfter: Type.Integer({ description: "Seconds to wait" }),
  },
  closed,
);

const ServiceUnavailableMetadata = Type.Object(
  {
    reason: Type.Optional(Type.Enum(["unavailable", "busy", "conflict"], { description: "The condition" })),
    retryAfter: Type.Integer({ description: "Seconds to wait, as in Retry-After" }),
  },
  closed,
);

/** The metadata of every error code (the codes and statuses are in lib/errors.ts). */
export const ERROR_METADATA = {
  VALIDATION_ERROR: Type.Optional(FieldMetadata),
  INVALID_AMOUNT: FieldMetadata,
  INVALID_CURRENCY: FieldMetadata,
  INVALID_REFERENCE_ID: FieldMetadata,
  INVALID_BANK_CODE: FieldMetadata,
  INVALID_INPUT: InvalidInputMetadata,
  INSUFFICIENT_BALANCE: InsufficientBalanceMetadata,
  INVALID_CREDENTIALS: Type.Optional(InvalidCredentialsMetadata),
  AUTHENTICATION_ERROR: null,
  WALLET_INACTIVE: Type.Object({ walletStatus: Type.Enum(["frozen", "closed"]) }, closed),
  FORBIDDEN: ForbiddenMetadata,
  RESOURCE_NOT_FOUND: null,
  DUPLICATE_REFERENCE_ID: FieldMetadata,
  STATE_CONFLICT: StateConflictMetadata,
  REQUEST_TIMEOUT: null,
  PAYLOAD_TOO_LARGE: null,
  IDEMPOTENCY_KEY_MISMATCH: FieldMetadata,
  RATE_LIMIT_EXCEEDED: RateLimitMetadata,
  INTERNAL_ERROR: null,
  SERVICE_UNAVAILABLE: ServiceUnavailableMetadata,
} satisfies Record<string, TSchema | null>;

type MetadataMap = typeof ERROR_METADATA;

/** The metadata of `code`: undefined when it never has any, possibly undefined when optional. */
export type MetadataOf<C extends keyof MetadataMap> = C extends unknown
  ? MetadataMap[C] extends TOptional<infer S extends TSchema>
    ? Static<S> | undefined
    : MetadataMap[C] extends TSchema
      ? Static<MetadataMap[C]>
      : undefined
  : never;

/** The metadata argument of `new AppError(code, message, ...)`: none, optional or required. */
export type MetadataArgs<C extends keyof MetadataMap> = C extends unknown
  ? MetadataMap[C] extends TOptional<infer S extends TSchema>
    ? [metadata?: Static<S>]
    : MetadataMap[C] extends TSchema
      ? [metadata: Static<MetadataMap[C]>]
      : []
  : never;

/** The payout guard's metadata, for withdraws/guard.ts. */
export type PayoutGuardBlock = Static<typeof PayoutGuardMetadata>;
/** The sandbox refusal metadata of INVALID_CREDENTIALS, for http/auth.ts. */
export type InvalidCredentialsDetails = Static<typeof InvalidCredentialsMetadata>;
