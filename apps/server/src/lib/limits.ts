/**
 * Every limit of the service in one place, named with its unit last.
 */
export const AMOUNT_DIGITS_MAX = 13;
export const REFERENCE_ID_LENGTH_MAX = 255;
export const REFERENCE_ID_PATTERN = "^[A-Za-z0-9_.-]{1,255}$";
export const DESCRIPTION_LENGTH_MAX = 255;
/** A refund's `reason` (CONTRACT 16). */
export const REFUND_REASON_LENGTH_MAX = 255;
/** The reason an operator gives for a wallet adjustment, in characters. */
export const ADJUSTMENT_REASON_LENGTH_MAX = 500;
export const MERCHANT_REFERENCE_LENGTH_MAX = 255;
export const CUSTOMER_NAME_LENGTH_MAX = 255;
const IDEMPOTENCY_KEY_LENGTH_MAX = 255;
export const IDEMPOTENCY_KEY_PATTERN = `^[\\x20-\\x7E]{1,${IDEMPOTENCY_KEY_LENGTH_MAX}}$`;
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
/**
 * The instants a list's dateFrom and dateTo are read within: both stores keep any of them
 * exactly. A bound outside them is read as the nearest of them (http/list-query.ts), which
 * selects the same records, since none is created outside them.
 */
export const LIST_DATE_MIN = "1970-01-01T00:00:00.000Z";
export const LIST_DATE_MAX = "9999-12-31T23:59:59.999Z";
export const BODY_SIZE_MAX_BYTES = 64 * 1024;
/**
 * How deeply a request body's arrays and objects may nest. No field of the interface goes past
 * 3 levels; the bound leaves room and keeps every walk over a body far from the stack's end.
 */
export const JSON_NESTING_DEPTH_MAX = 32;
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
/** The sandbox demo merchant's generated dashboard password: 16 bytes, 22 base64url characters. */
export const DEMO_PASSWORD_RANDOM_BYTES = 16;
export const SIGNATURE_REPLAY_RETENTION_MS = 2 * TIMESTAMP_TOLERANCE_MS;
/** Authentication's in-process cache (http/auth-cache.ts): API keys kept, and for how long at most. */
export const AUTH_CACHE_ENTRIES_MAX = 10_000;
export const AUTH_CACHE_TTL_MS = 30_000;
export const MERCHANT_NAME_LENGTH_MAX = 200;
export const SETTLEMENT_DELAY_HOURS_MAX = 24 * 30;
export const INTEGRATION_NAME_LENGTH_MAX = 200;
export const URL_LENGTH_MAX = 2048;
export const SHUTDOWN_GRACE_MS = 10_000;

// Webhooks (events/). The retry schedule of CONTRACT 12: each retry's time after the first try
// failed (the end of attempt 1), so a delivery makes at most 1 + 9 attempts within 24 hours.
export const WEBHOOK_RETRY_OFFSETS_MS = [
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
export const WEBHOOK_ATTEMPTS_MAX = WEBHOOK_RETRY_OFFSETS_MS.length + 1;
/** Each retry comes early by a random share of up to this fraction of its step (never late). */
export const WEBHOOK_RETRY_JITTER_FRACTION = 0.1;
export const WEBHOOK_TIMEOUT_MS = 15_000;
/**
 * A claimed delivery stays reserved this long; its worker renews the lease every
 * WEBHOOK_LEASE_RENEW_MS while the send is in flight. A worker that dies stops renewing, and
 * another worker takes its deliveries once the lease has run out.
 */
export const WEBHOOK_LEASE_MS = 3_000;
export const WEBHOOK_LEASE_RENEW_MS = 1_000;
/** Most deliveries one process sends at once. */
export const WEBHOOK_IN_FLIGHT_MAX = 64;
/** Per-endpoint concurrency (events/concurrency.ts): where it starts, its floor and ceiling. */
export const WEBHOOK_IN_FLIGHT_PER_ENDPOINT_INITIAL = 4;
export const WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MIN = 1;
export const WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX = 32;
/** An answer slower than this neither grows nor shrinks an endpoint's concurrency. */
export const WEBHOOK_FAST_ANSWER_MS = 1_000;
export const WEBHOOK_RESPONSE_BODY_MAX_BYTES = 64 * 1024;
/** How much of a receiver's answer the attempt log keeps. */
export const WEBHOOK_RESPONSE_EXCERPT_MAX_BYTES = 1024;
/** Keep-alive connections: idle ones close after this; at most this many origins are kept. */
export const WEBHOOK_IDLE_CONNECTION_MS = 4_000;
export const WEBHOOK_CONNECTION_POOLS_MAX = 256;
export const WEBHOOK_ERROR_LENGTH_MAX = 500;
export const WEBHOOK_SECRET_RANDOM_BYTES = 32;
export const WEBHOOK_SECRET_ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const WEBHOOK_ENDPOINTS_PER_MERCHANT_MAX = 16;
export const WEBHOOK_DESCRIPTION_LENGTH_MAX = 255;
/** Pause between claims when nothing was due (a finished send or a new event wakes it sooner). */
export const WEBHOOK_POLL_INTERVAL_MS = 500;

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
/**
 * Provider exchanges (the calls a connector made and the notifications it received, recorded
 * for the operator) older than the connector's retention setting are deleted this many per
 * statement.
 */
export const PROVIDER_EXCHANGE_RETENTION_BATCH_SIZE = 1_000;
/** How often the retention job looks for old exchanges once it has found none. */
export const PROVIDER_EXCHANGE_RETENTION_JOB_INTERVAL_MS = 3_600_000;
/** A connector's exchange retention setting, in days: the default, and the most it may be. */
export const PROVIDER_EXCHANGE_RETENTION_DAYS_DEFAULT = 90;
export const PROVIDER_EXCHANGE_RETENTION_DAYS_MAX = 3_650;
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
/**
 * PAYOUT_UNDECIDED_ALERT_S: the default (an hour) and the bounds of the setting. A payout a
 * connector holds undecided longer than this is listed, counted and logged for the operator.
 */
export const PAYOUT_UNDECIDED_ALERT_S_DEFAULT = 3_600;
export const PAYOUT_UNDECIDED_ALERT_S_MAX = 7 * 86_400;
/** How often the undecided-payout alert job looks. */
export const PAYOUT_UNDECIDED_ALERT_JOB_INTERVAL_MS = 60_000;
/** The operator's resolution of an undecided payout: its reason and the bank's reference. */
export const PAYOUT_RESOLUTION_REASON_LENGTH_MAX = 500;
export const PAYOUT_RESOLUTION_BANK_REFERENCE_LENGTH_MAX = 100;
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
/** Random bytes of a named operator token (CONTRACT 2), after its `sat_op_` prefix. */
export const OPERATOR_TOKEN_RANDOM_BYTES = 32;
/** The longest operator token name, in characters (code points) after NFKC folding. */
export const OPERATOR_TOKEN_NAME_MAX = 100;
/** TOTP (RFC 6238): a code is accepted one 30-second step either side of now, for clock drift. */
export const TOTP_DRIFT_STEPS = 1;
export const DASHBOARD_SESSION_TTL_MS = 12 * 3_600_000;
/** Failed logins of one email within the window that are allowed; the next attempt gets 429. */
export const DASHBOARD_LOGIN_FAILURES_MAX = 5;
export const DASHBOARD_LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
/** Events shown on a payment's or withdraw's timeline. */
export const DASHBOARD_TIMELINE_EVENTS_MAX = 100;
/** The longest date range one CSV export covers (dateTo - dateFrom), in days of 24 hours. */
export const EXPORT_RANGE_DAYS_MAX = 366;
/**
 * Rows one CSV export reads per query while it streams. Each batch (query and CSV text) runs
 * without a break (about 7 ms of CPU for 100 rows on the embedded store, 20 ms for 500), so it
 * is what another merchant's request can wait behind: kept small.
 */
export const EXPORT_BATCH_ROWS = 100;
/**
 * The ledger export gives rows back in posting order (reports/posting-order.ts): a posting is
 * applied within this long of its time, and at most this many rows wait to be reordered.
 */
export const LEDGER_EXPORT_REORDER_WINDOW_MS = 60_000;
export const LEDGER_EXPORT_REORDER_ROWS_MAX = 20_000;
/**
 * CSV exports one merchant may stream at once in a process (reports/export-gate.ts); the next
 * one answers 429 RATE_LIMIT_EXCEEDED with Retry-After.
 */
export const EXPORTS_PER_MERCHANT_MAX = 2;
/** CSV exports of all merchants together streaming at once in a process; the next one answers 503. */
export const EXPORTS_OPEN_MAX = 8;
/**
 * Export batch reads (a query of EXPORT_BATCH_ROWS rows and its CSV text) running at once in a
 * process: open exports take turns, so exports hold at most this many database connections.
 */
export const EXPORT_READS_RUNNING_MAX = 1;
/** Seconds a refused export (429 or 503) is told to wait. */
export const EXPORT_RETRY_AFTER_S = 2;

// The manual payout desk (docs/payout-desk.md).
/** Most withdraws one payout batch takes; also the default when the operator names no count. */
export const PAYOUT_BATCH_ITEMS_MAX = 500;
export const PAYOUT_BATCH_CREATED_BY_LENGTH_MAX = 100;
export const PAYOUT_BANK_REFERENCE_LENGTH_MAX = 100;
export const PAYOUT_FAILURE_REASON_LENGTH_MAX = 255;

// Routing between connectors (docs/providers/routing.md).
/**
 * Failed or timed-out calls within CONNECTOR_BREAKER_WINDOW_MS that open a connector's breaker.
 * Five: one or two failures are a blip a retry by the next payment absorbs; five within a minute
 * is a connector that is down for the customers in front of a QR right now.
 */
export const CONNECTOR_BREAKER_FAILURES_MAX = 5;
/** The window the failures are counted in: a minute, so a trickle of old failures never opens it. */
export const CONNECTOR_BREAKER_WINDOW_MS = 60_000;
/**
 * How long an open breaker skips its connector before one probe is let through (half-open).
 * Thirty seconds: long enough not to hammer a provider that is down, short enough that a
 * recovered primary takes its payments back within a minute.
 */
export const CONNECTOR_BREAKER_COOLDOWN_MS = 30_000;
/**
 * How long a breaker another process opened keeps this process off the connector when that
 * process records nothing more (it stopped, or has nothing left to ask the connector): two
 * minutes. A process that finds the connector still down opens its breaker again after each
 * failed probe, which renews it; one that finds it back closes it for every process.
 */
export const SHARED_BREAKER_HOLD_MS = 120_000;
/** How often a process reads the breakers the others recorded: at most once every 2 seconds. */
export const SHARED_BREAKER_REFRESH_MS = 2_000;
/**
 * The bound of one `instruct` the router waits for before it counts a failure and tries the next
 * connector. Eight seconds: a customer is waiting for the QR, and every connector tried must fit
 * within a client's usual 30 s request timeout (two connectors and the database with room left).
 */
export const CONNECTOR_INSTRUCT_TIMEOUT_MS = 8_000;
/** Seconds a payment refused because no connector took it (503) is told to wait: the cool-down. */
export const CONNECTOR_UNAVAILABLE_RETRY_AFTER_S = 30;
