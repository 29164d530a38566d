/**
 * Every limit of the service in one place, named with its unit last.
 */
export const AMOUNT_DIGITS_MAX = 13;
export const REFERENCE_ID_LENGTH_MAX = 255;
export const REFERENCE_ID_PATTERN = "^[A-Za-z0-9_.-]{1,255}$";
export const DESCRIPTION_LENGTH_MAX = 255;
export const MERCHANT_REFERENCE_LENGTH_MAX = 255;
export const CUSTOMER_NAME_LENGTH_MAX = 255;
export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;
export const IDEMPOTENCY_KEY_PATTERN = "^[\\x20-\\x7E]{1,255}$";
export const METADATA_KEYS_MAX = 50;
export const METADATA_KEY_LENGTH_MAX = 40;
export const METADATA_VALUE_LENGTH_MAX = 500;
export const ACCOUNT_NUMBER_DIGITS_MIN = 10;
export const ACCOUNT_NUMBER_DIGITS_MAX = 15;
export const ACCOUNT_NUMBER_INPUT_LENGTH_MAX = 32;
export const EXPIRES_IN_MINUTES_MIN = 5;
export const EXPIRES_IN_MINUTES_MAX = 1440;
export const PROMPTPAY_EXPIRY_DEFAULT_MINUTES = 15;
export const BANK_TRANSFER_EXPIRY_DEFAULT_MINUTES = 1440;
export const PAGE_SIZE_DEFAULT = 10;
export const PAGE_SIZE_MAX = 100;
/** Keeps (page - 1) * limit an exact integer, so a far-away page is an empty page, not an error. */
export const PAGE_NUMBER_MAX = Math.floor(Number.MAX_SAFE_INTEGER / PAGE_SIZE_MAX);
export const BODY_SIZE_MAX_BYTES = 64 * 1024;
export const TIMESTAMP_TOLERANCE_MS = 300_000;
export const RATE_LIMIT_SANDBOX_PER_MINUTE = 100;
export const RATE_LIMIT_LIVE_PER_MINUTE = 1000;
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const BANK_TRANSFER_REFERENCE_LENGTH = 8;
export const BANK_TRANSFER_REFERENCE_ATTEMPTS_MAX = 5;
/** EMVCo tag 54 (transaction amount) holds at most 13 characters: "9999999999.99" THB. */
export const PROMPTPAY_QR_AMOUNT_SATANG_MAX = 999_999_999_999n;
export const CLIENT_SECRET_RANDOM_BYTES = 24;
export const API_SECRET_RANDOM_BYTES = 32;
export const API_KEY_RANDOM_BYTES = 18;
export const ADMIN_TOKEN_RANDOM_BYTES = 32;
export const SIGNATURE_REPLAY_RETENTION_MS = 2 * TIMESTAMP_TOLERANCE_MS;
export const MERCHANT_NAME_LENGTH_MAX = 200;
export const SETTLEMENT_DELAY_HOURS_MAX = 24 * 30;
export const INTEGRATION_NAME_LENGTH_MAX = 200;
export const URL_LENGTH_MAX = 2048;
export const SHUTDOWN_GRACE_MS = 10_000;

// Webhooks (events/). The retry delays are Standard Webhooks' schedule (CONTRACT 12): the wait
// after each failed attempt, so a delivery makes at most 1 + 9 attempts.
export const WEBHOOK_RETRY_DELAYS_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
] as const;
export const WEBHOOK_ATTEMPTS_MAX = WEBHOOK_RETRY_DELAYS_MS.length + 1;
/** Each retry waits its delay minus a random share of up to this fraction (never longer). */
export const WEBHOOK_RETRY_JITTER_FRACTION = 0.1;
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** How long a claimed delivery stays reserved beyond its timeout before another worker may take it. */
export const WEBHOOK_LEASE_MARGIN_MS = 60_000;
export const WEBHOOK_IN_FLIGHT_MAX = 32;
export const WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX = 4;
export const WEBHOOK_RESPONSE_BODY_MAX_BYTES = 64 * 1024;
export const WEBHOOK_ERROR_LENGTH_MAX = 500;
export const WEBHOOK_SECRET_RANDOM_BYTES = 32;
export const WEBHOOK_SECRET_ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX = 16;
export const WEBHOOK_DESCRIPTION_LENGTH_MAX = 255;
export const WEBHOOK_POLL_INTERVAL_MS = 1_000;

// Lifecycles (lifecycle/, providers/, sandbox/; docs/lifecycle.md).
/** An expired payment the provider confirms within this time after `expiresAt` still succeeds. */
export const LATE_CONFIRMATION_WINDOW_MS = 72 * 3_600_000;
/** Rows a background job claims in one transaction. */
export const JOB_BATCH_SIZE = 50;
export const PAYMENT_EXPIRY_JOB_INTERVAL_MS = 1_000;
export const SETTLEMENT_JOB_INTERVAL_MS = 5_000;
export const PAYOUT_DISPATCH_JOB_INTERVAL_MS = 1_000;
export const PAYOUT_RECONCILE_JOB_INTERVAL_MS = 5_000;
export const VERIFICATION_EXPIRY_JOB_INTERVAL_MS = 5_000;
/** A provider call that has not answered by then counts as indeterminate. */
export const PROVIDER_CALL_TIMEOUT_MS = 15_000;
/**
 * A payout marked as sending is not looked at by the reconciler before this much time has
 * passed, comfortably more than PROVIDER_CALL_TIMEOUT_MS, so the reconciler never asks the
 * provider about a send that is still in flight.
 */
export const PAYOUT_SEND_LEASE_MS = 60_000;
/** The reconciler's first wait before asking about an open payout, doubling up to the max. */
export const PAYOUT_CHECK_DELAY_MIN_MS = 60_000;
export const PAYOUT_CHECK_DELAY_MAX_MS = 3_600_000;
/** Allowed difference between a provider callback's timestamp and the wall clock. */
export const PROVIDER_CALLBACK_TOLERANCE_MS = 300_000;
export const PROVIDER_CALLBACK_ID_LENGTH_MAX = 100;
export const PROVIDER_ERROR_LENGTH_MAX = 500;
/** One sandbox clock advance moves a merchant's clock by at most this much (a year and a day). */
export const CLOCK_ADVANCE_SECONDS_MAX = 366 * 86_400;
/** The furthest a merchant's sandbox clock may run ahead of the service clock in total. */
export const CLOCK_OFFSET_MAX_MS = 10 * 366 * 86_400_000;

// Dashboard (dashboard/; docs/dashboard.md, CONTRACT 13).
export const DASHBOARD_PASSWORD_LENGTH_MIN = 12;
/** Long enough for any passphrase, short enough that a request cannot make hashing expensive. */
export const DASHBOARD_PASSWORD_LENGTH_MAX = 256;
export const DASHBOARD_EMAIL_LENGTH_MAX = 254;
export const DASHBOARD_SESSION_TOKEN_RANDOM_BYTES = 32;
export const DASHBOARD_SESSION_TTL_MS = 12 * 3_600_000;
/** Failed logins of one email within the window that are allowed; the next attempt gets 429. */
export const DASHBOARD_LOGIN_FAILURES_MAX = 5;
export const DASHBOARD_LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
/** Events shown on a payment's or withdraw's timeline. */
export const DASHBOARD_TIMELINE_EVENTS_MAX = 100;
