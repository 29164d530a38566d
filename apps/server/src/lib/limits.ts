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
