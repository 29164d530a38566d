/**
 * Table types for the typed SQL builder. Column names say their unit (`amount_satang`).
 * `bigint` columns arrive as JS `bigint` (see connect.ts), timestamps as `Date`.
 */
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";
import type { WithdrawStatus } from "../lib/withdraw-statuses.ts";

type Timestamp = ColumnType<Date, Date, Date>;
type Json = ColumnType<Record<string, string> | null, string | null, string | null>;

interface MerchantsTable {
  id: string;
  name: string;
  status: "active" | "disabled";
  daily_withdraw_limit_satang: bigint | null;
  monthly_withdraw_limit_satang: bigint | null;
  settlement_delay_hours: number;
  collection_bank_code: string | null;
  collection_account_number: string | null;
  collection_account_name: string | null;
  promptpay_id: string | null;
  promptpay_reuse: boolean;
  wallet_status: "active" | "frozen" | "closed";
  withdraw_verification_threshold_satang: bigint | null;
  clock_offset_ms: Generated<bigint>;
  /** The connector an operator pinned the merchant to; NULL follows SATANG_PROVIDER's order (0105). */
  provider: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface IntegrationsTable {
  id: string;
  merchant_id: string;
  name: string | null;
  api_key: string;
  secret_encrypted: string;
  environment: "sandbox" | "live";
  redirect_url: string | null;
  require_signature_v2: Generated<boolean>;
  revoked_at: Date | null;
  created_at: Timestamp;
}

export const PAYMENT_STATUSES = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "succeeded",
  "canceled",
  "expired",
  "payment_failed",
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const PAYMENT_METHODS = ["promptpay", "bank_transfer"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

interface PaymentsTable {
  id: string;
  merchant_id: string;
  integration_id: string;
  amount_satang: bigint;
  currency: string;
  status: PaymentStatus;
  payment_method: PaymentMethod | null;
  reference_id: string;
  description: string | null;
  metadata: Json;
  client_secret: string;
  merchant_reference: string | null;
  customer_bank_account_name: string;
  customer_bank_account_number: string;
  customer_bank_code: string;
  idempotency_key: string;
  request_hash: string;
  qr_payload: string | null;
  bank_transfer_reference: string | null;
  redirect_url: string | null;
  /** The collection account a bank transfer payment was told to pay into (0002). */
  transfer_bank_code: string | null;
  transfer_account_number: string | null;
  transfer_account_name: string | null;
  expires_at: Date | null;
  confirmed_at: Date | null;
  captured_at: Date | null;
  canceled_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When a succeeded payment was settled to the wallet (0006); optional on insert. */
  settled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The ref1 of a live PromptPay payment's bill payment QR, unique in the deployment (0030). */
  collection_reference: ColumnType<string | null, string | null | undefined, string | null>;
  /** The connector that took this live payment (its name in the registry); NULL in sandbox (0100). */
  provider: ColumnType<string | null, string | null | undefined, string | null>;
  /** The connector's own id of this payment (a charge id); NULL when it has none (0100). */
  provider_payment_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** A QR image the connector made for this payment; NULL when drawn from qr_payload (0105). */
  qr_image_url: ColumnType<string | null, string | null | undefined, string | null>;
  /**
   * True on the payment PromptPay reuse returns for its customer and amount while it is open
   * (unique index payments_promptpay_reuse, 0095); NULL otherwise. Optional on insert.
   */
  reuse_slot: ColumnType<boolean | null, boolean | null | undefined, boolean | null>;
  /** The payment's refunds that are not failed or canceled, summed (0086); never above the amount. */
  refunded_satang: ColumnType<bigint, bigint | undefined, bigint>;
  /** The part of `refunded_satang` taken from the payment's own settlement (0086). */
  refund_settlement_satang: ColumnType<bigint, bigint | undefined, bigint>;
}

interface ServerSettingsTable {
  key: string;
  value: string;
  created_at: Timestamp;
}

/** A client's idempotency key that PromptPay reuse answered with an open payment (0115). */
export interface PaymentKeyAliasesTable {
  merchant_id: string;
  idempotency_key: string;
  payment_id: string;
  request_hash: string;
  created_at: Date;
}

export interface SignatureUsesTable {
  api_key: string;
  timestamp_ms: bigint;
  signature: string;
  expires_at: Timestamp;
}

export const LEDGER_ACCOUNT_KINDS = [
  "settlement_pending",
  "wallet_available",
  "wallet_held",
  "provider_clearing",
  "payout_clearing",
  "operator_adjustments",
] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

interface LedgerAccountsTable {
  id: string;
  merchant_id: string;
  kind: LedgerAccountKind;
  /** Maintained by the database from the account's entries (0003); never written directly. */
  balance_satang: Generated<bigint>;
}

export const LEDGER_TRANSACTION_KINDS = [
  "payment_succeeded",
  "settlement",
  "withdraw_hold",
  "withdraw_release",
  "withdraw_paid",
  "withdraw_late_success",
  "operator_adjustment",
  "refund_hold",
  "refund_release",
  "refund_paid",
  "refund_late_success",
] as const;
export type LedgerTransactionKind = (typeof LEDGER_TRANSACTION_KINDS)[number];
export type LedgerSubjectType = "payment" | "withdraw" | "adjustment" | "refund";

interface LedgerTransactionsTable {
  id: string;
  merchant_id: string;
  kind: LedgerTransactionKind;
  subject_type: LedgerSubjectType;
  subject_id: string;
  reason: string | null;
  created_at: Timestamp;
}

interface LedgerEntriesTable {
  id: string;
  transaction_id: string;
  account_id: string;
  amount_satang: bigint;
  /** Set by the database when the entry is applied to its account (0003). */
  balance_after_satang: Generated<bigint>;
  /** The entry's place in posting order (0116); null for entries posted before it. */
  posting_seq: Generated<bigint | null>;
}

// The list lives in lib/ so that the error metadata (lib/error-metadata.ts) can name it too.
export { WITHDRAW_STATUSES, type WithdrawStatus } from "../lib/withdraw-statuses.ts";

export const DESTINATION_TYPES = ["bank_account", "wallet"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

interface WithdrawDestinationsTable {
  id: string;
  merchant_id: string;
  destination_type: DestinationType;
  bank_code: string;
  account_number: string;
  account_name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface WithdrawsTable {
  id: string;
  merchant_id: string;
  integration_id: string | null;
  amount_satang: bigint;
  currency: string;
  status: WithdrawStatus;
  reference_id: string;
  destination_type: DestinationType;
  destination_id: string;
  bank_account_name: string;
  bank_account_number: string;
  bank_code: string;
  description: string | null;
  metadata: Json;
  idempotency_key: string;
  request_hash: string;
  verification_expires_at: Date | null;
  paid_at: Date | null;
  failed_at: Date | null;
  canceled_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export const EVENT_TYPES = [
  "payment.received",
  "payment.failed",
  "payment.expired",
  "payment.canceled",
  "withdraw.processing",
  "withdraw.paid",
  "withdraw.failed",
  "withdraw.canceled",
  "refund.processing",
  "refund.succeeded",
  "refund.failed",
  "refund.canceled",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export type EventObjectType = "payment" | "withdraw" | "refund";

export const REFUND_STATUSES = ["pending", "processing", "succeeded", "failed", "canceled"] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

interface RefundsTable {
  id: string;
  merchant_id: string;
  payment_id: string;
  integration_id: string | null;
  amount_satang: bigint;
  /** The part taken from the payment's settlement; the rest was held from the wallet. */
  settlement_part_satang: bigint;
  currency: string;
  status: RefundStatus;
  reference_id: string;
  reason: string | null;
  metadata: Json;
  failure_reason: string | null;
  bank_code: string;
  bank_account_number: string;
  bank_account_name: string;
  idempotency_key: string;
  request_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  succeeded_at: Date | null;
  failed_at: Date | null;
  canceled_at: Date | null;
  /**
   * Failed by the operator's decision while its bank may still pay it (0118): its amount stays on
   * the payment's refunded sum until the bank answers.
   */
  refundable_withheld: ColumnType<boolean, boolean | undefined, boolean>;
}

interface EventsTable {
  id: string;
  merchant_id: string;
  type: EventType;
  object_type: EventObjectType;
  object_id: string;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
}

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed", "canceled"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];
/** Why a webhook attempt failed: the closed list events/attempt-errors.ts explains. */
export const WEBHOOK_ATTEMPT_ERROR_CODES = [
  "timeout",
  "dns",
  "url_refused",
  "connection_refused",
  "connection_reset",
  "tls",
  "network",
  "redirect",
  "non_2xx",
] as const;
export type WebhookAttemptErrorCode = (typeof WEBHOOK_ATTEMPT_ERROR_CODES)[number];

/** A merchant's webhook endpoint (0005). `event_types` holds event types or the one entry "*". */
interface WebhookEndpointsTable {
  id: string;
  merchant_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  secret_encrypted: string;
  /** The secret before the last rotation, still signed with until its expiry (wall clock). */
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Date | null;
  /** When it was disabled; null while enabled (0083). A disabled endpoint receives nothing. */
  disabled_at: Date | null;
}

/** One event to send to one endpoint, with its retry state (0005). Times are wall-clock. */
interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  merchant_id: string;
  status: WebhookDeliveryStatus;
  attempt_count: number;
  /** Null means due at once (a fresh or redelivered delivery). */
  next_attempt_at: Date | null;
  lease_id: string | null;
  leased_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  completed_at: Date | null;
}

/** The log of every HTTP attempt of a delivery (0005). Times are wall-clock. */
interface WebhookDeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempt_number: number;
  succeeded: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** A code of events/attempt-errors.ts (0020); null on success. */
  error_code: WebhookAttemptErrorCode | null;
  /** The start of the receiver's answer, at most 1 KB (0020). */
  response_excerpt: string | null;
  started_at: Timestamp;
  finished_at: Timestamp;
  next_retry_at: Date | null;
}

/** A withdraw handed to a payout provider, and where that hand-over stands (0006). */
const PAYOUT_STATES = ["sending", "accepted", "unknown", "completed", "watching"] as const;
export type PayoutState = (typeof PAYOUT_STATES)[number];

interface PayoutsTable {
  /** The withdraw paid out, or null when the subject is a refund (0096): exactly one is set. */
  withdraw_id: ColumnType<string | null, string | null | undefined, string | null>;
  refund_id: ColumnType<string | null, string | null | undefined, string | null>;
  merchant_id: string;
  provider: string;
  /**
   * The provider's idempotency key, the same on every send and check: the withdraw id, or for a
   * refund its own key (lib/payout-subjects.ts).
   */
  idempotency_key: string;
  state: PayoutState;
  send_attempts: number;
  checks: Generated<number>;
  provider_reference: string | null;
  last_error: string | null;
  /** Business time (the merchant's clock) at which the reconciler next asks the provider. */
  next_check_at: Date;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When the payout was first alerted as undecided past PAYOUT_UNDECIDED_ALERT_S (0084). */
  undecided_alerted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** The operator's decision on an undecided payout (0084, CONTRACT 15). */
interface PayoutResolutionsTable {
  withdraw_id: ColumnType<string | null, string | null | undefined, string | null>;
  refund_id: ColumnType<string | null, string | null | undefined, string | null>;
  merchant_id: string;
  provider: string;
  outcome: "paid" | "failed";
  reason: string;
  bank_reference: string | null;
  /** Who decided: `admin_token` today; a named operator token's name later. */
  actor: string;
  /** The bank's answers as the operator saw them. */
  evidence: ColumnType<unknown, string | null, string | null>;
  request_id: string | null;
  created_at: Timestamp;
}

/** Provider reports already processed, by the provider's callback id (0006). */
export interface ProviderCallbacksTable {
  provider: string;
  callback_id: string;
  subject_type: "payment" | "payout";
  subject_id: string;
  outcome: string;
  result: "applied" | "refused";
  reason: string | null;
  received_at: Timestamp;
}

/** Provider reports refused although money may have moved, for the operator (0006). */
interface ProviderAnomaliesTable {
  id: string;
  merchant_id: string | null;
  provider: string;
  subject_type: "payment" | "withdraw" | "refund";
  subject_id: string;
  report: string;
  subject_status: string | null;
  reason: string;
  message: string;
  amount_satang: bigint | null;
  callback_id: string | null;
  created_at: Timestamp;
  /** Migration 0085: when the anomaly stopped being true (its money was credited after all). */
  closed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  resolution: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The sandbox provider's simulated bank: the payouts it has received (0006). */
interface SandboxPayoutsTable {
  payout_key: string;
  amount_satang: bigint;
  status: "accepted" | "paid" | "failed";
  send_count: number;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A person who logs in to the merchant dashboard (0007). */
interface DashboardUsersTable {
  id: string;
  merchant_id: string;
  /** As the operator typed it, for display. */
  email: string;
  /** Trimmed and lowercased: what logins match and what is unique. */
  email_normalized: string;
  /** argon2id, in the PHC string format. */
  password_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  role: ColumnType<DashboardRole, DashboardRole | undefined, DashboardRole>;
  /** The authenticator's secret, sealed under SECRET_KEY; null until enrolment is confirmed. */
  totp_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_pending_secret: ColumnType<string | null, string | null | undefined, string | null>;
  totp_enabled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  totp_last_step: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
}

export type DashboardRole = "owner" | "developer" | "finance";

interface OperatorTokensTable {
  id: string;
  name: string;
  token_sha256: string;
  token_prefix: string;
  created_by: string;
  created_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type AuditActorKind = "admin_token" | "operator_token" | "dashboard_user";
export type AuditVia = "api" | "cli" | "desk" | "dashboard";

interface AuditLogTable {
  id: string;
  created_at: Timestamp;
  actor_kind: AuditActorKind;
  actor_id: string | null;
  actor_name: string;
  via: AuditVia;
  action: string;
  record_type: string;
  record_id: string | null;
  merchant_id: string | null;
  request_id: string;
  client_address: string;
}

/** An operator wallet adjustment's idempotency key (0124): the ledger transaction it made. */
interface WalletAdjustmentKeysTable {
  merchant_id: string;
  idempotency_key: string;
  request_hash: string;
  transaction_id: string;
}

/** A connector's breaker as the process that last opened or closed it left it (0123). */
interface ConnectorBreakersTable {
  connector: string;
  open: boolean;
  changed_at: Timestamp;
}

/** A dashboard login (0007). Only the token's SHA-256 is stored; times are wall-clock. */
interface DashboardSessionsTable {
  id: string;
  user_id: string;
  merchant_id: string;
  token_sha256: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Date | null;
  /** Signed in with a two-factor code (0122): in live, only such a session makes an API key. */
  second_factor: ColumnType<boolean, boolean | undefined, boolean>;
}

/** One failed (or still running) dashboard login of an email, for the lockout (0007). */
interface DashboardLoginFailuresTable {
  id: string;
  email_normalized: string;
  failed_at: Timestamp;
}

/** The manual payout desk's batches (0035, docs/payout-desk.md). */
export const PAYOUT_BATCH_STATUSES = ["open", "closed"] as const;
export type PayoutBatchStatus = (typeof PAYOUT_BATCH_STATUSES)[number];
export const PAYOUT_OUTCOMES = ["paid", "failed"] as const;
export type PayoutOutcome = (typeof PAYOUT_OUTCOMES)[number];

interface PayoutBatchesTable {
  id: string;
  status: PayoutBatchStatus;
  created_by: string;
  /** The operator token's name that created the batch (0125); null before it. */
  created_by_operator: string | null;
  item_count: number;
  total_satang: bigint;
  created_at: Timestamp;
  updated_at: Timestamp;
  closed_at: Date | null;
}

/**
 * One withdraw or refund of a batch (exactly one of the two ids, 0096); `batch_status` mirrors its
 * batch's status (a cascading key).
 */
interface PayoutBatchItemsTable {
  batch_id: string;
  batch_status: PayoutBatchStatus;
  position: number;
  withdraw_id: ColumnType<string | null, string | null | undefined, string | null>;
  refund_id: ColumnType<string | null, string | null | undefined, string | null>;
  merchant_id: string;
  amount_satang: bigint;
  outcome: PayoutOutcome | null;
  bank_reference: string | null;
  failure_reason: string | null;
  recorded_at: Date | null;
  /** The operator actor who recorded the outcome (admin/actor.ts); null while there is none. */
  recorded_by: string | null;
  /** The tool the outcome came through; null while there is none, and for outcomes from before it was kept. */
  recorded_via: "api" | "cli" | "desk" | null;
}

/** Which list a count belongs to (db/list-counts.ts). */
export type CountedList = "payments" | "withdraws";

/** How many of a merchant's payments or withdraws have a status and variant, as last folded. */
interface ListCountsTable {
  merchant_id: string;
  resource: CountedList;
  status: string;
  /** A payment's method ('' while it has none) or a withdraw's destination type. */
  variant: string;
  n: bigint;
}

/** The satang a merchant's withdraws created on a UTC day use of its limits, as last folded. */
interface WithdrawDayTotalsTable {
  merchant_id: string;
  /** The UTC date, as PostgreSQL's `date` (a `YYYY-MM-DD` string on the way in). */
  day: Date | string;
  amount_satang: bigint;
}

/** A change to those totals not yet folded in: appended by the withdraws triggers. */
interface WithdrawDayChangesTable {
  id: Generated<bigint>;
  merchant_id: string;
  day: Date | string;
  amount_satang: bigint;
}

/** A change to those counts not yet folded in: appended by the tables' triggers. */
interface ListCountChangesTable {
  id: Generated<bigint>;
  merchant_id: string;
  resource: CountedList;
  status: string;
  variant: string;
  delta: bigint;
}

/** Where a notice's transaction stands in the collections flow (lifecycle/collections.ts). */
export type ConfirmationStatus = "received" | "verified" | "not_found" | "mismatch" | "unavailable";

/** Every notification a connector received, one row per (provider, transaction id) (0030, 0101). */
interface ProviderConfirmationsTable {
  /** The connector's name (providers/registry.ts). */
  provider: string;
  /** The provider's transaction id: one row however often the provider sends its notice. */
  transaction_id: string;
  /** The collection reference the notice names, or null when it names none. */
  reference: string | null;
  claimed_amount_satang: bigint | null;
  /** Whom the notice says was paid (a biller id), when it says. */
  claimed_payee: string | null;
  /** The time the notice claims the customer paid (or when it arrived). */
  paid_at: Date;
  payment_id: string | null;
  status: ConfirmationStatus;
  /** What the lifecycle did with a verified one: applied, duplicate or the refusal reason. */
  result: string | null;
  detail: string | null;
  deliveries: number;
  checks: Generated<number>;
  /** Real time of the next re-check of an undecided confirmation. */
  next_check_at: Date | null;
  received_at: Timestamp;
  updated_at: Timestamp;
}

/** The reconciler's schedule of questions about a live payment to its connector (0030, 0085, 0101). */
interface PaymentChecksTable {
  payment_id: string;
  checks: number;
  last_error: string | null;
  /** Business time of the reconciler's next question about this payment. */
  next_check_at: Date;
  updated_at: Timestamp;
  /** Real time of the last answered question; the next asks about the time since. */
  last_checked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** The daily sweep's progress over one Bangkok date (0085, 0101). */
interface CollectionSweepsTable {
  sweep_date: string;
  status: "running" | "finished";
  cursor_created_at: Date | null;
  cursor_id: string | null;
  asked: number;
  found: number;
  last_error: string | null;
  lease_until: Date | null;
  started_at: Timestamp;
  finished_at: Date | null;
}

/**
 * The core's tables. Each connector types its own tables in its folder
 * (providers/<name>/tables.ts) and reaches them through its own typed handle, so nothing below
 * the connectors knows them.
 */
export interface Database {
  provider_confirmations: ProviderConfirmationsTable;
  payment_checks: PaymentChecksTable;
  collection_sweeps: CollectionSweepsTable;
  events: EventsTable;
  merchants: MerchantsTable;
  integrations: IntegrationsTable;
  payments: PaymentsTable;
  payment_key_aliases: PaymentKeyAliasesTable;
  server_settings: ServerSettingsTable;
  signature_uses: SignatureUsesTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_transactions: LedgerTransactionsTable;
  ledger_entries: LedgerEntriesTable;
  withdraw_destinations: WithdrawDestinationsTable;
  withdraws: WithdrawsTable;
  refunds: RefundsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  payouts: PayoutsTable;
  payout_resolutions: PayoutResolutionsTable;
  provider_callbacks: ProviderCallbacksTable;
  provider_anomalies: ProviderAnomaliesTable;
  sandbox_payouts: SandboxPayoutsTable;
  dashboard_users: DashboardUsersTable;
  dashboard_sessions: DashboardSessionsTable;
  connector_breakers: ConnectorBreakersTable;
  wallet_adjustment_keys: WalletAdjustmentKeysTable;
  dashboard_login_failures: DashboardLoginFailuresTable;
  payout_batches: PayoutBatchesTable;
  payout_batch_items: PayoutBatchItemsTable;
  list_counts: ListCountsTable;
  list_count_changes: ListCountChangesTable;
  withdraw_day_totals: WithdrawDayTotalsTable;
  withdraw_day_changes: WithdrawDayChangesTable;
  operator_tokens: OperatorTokensTable;
  audit_log: AuditLogTable;
}

export type Merchant = Selectable<MerchantsTable>;
export type NewMerchant = Insertable<MerchantsTable>;
export type MerchantUpdate = Updateable<MerchantsTable>;
export type Integration = Selectable<IntegrationsTable>;
export type PaymentRow = Selectable<PaymentsTable>;
export type NewPayment = Insertable<PaymentsTable>;
export type WithdrawRow = Selectable<WithdrawsTable>;
export type EventRow = Selectable<EventsTable>;
export type NewWithdraw = Insertable<WithdrawsTable>;
export type RefundRow = Selectable<RefundsTable>;
export type NewRefund = Insertable<RefundsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
export type PayoutRow = Selectable<PayoutsTable>;
export type ProviderAnomalyRow = Selectable<ProviderAnomaliesTable>;
export type DashboardUserRow = Selectable<DashboardUsersTable>;
export type OperatorTokenRow = Selectable<OperatorTokensTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;
export type PayoutBatchRow = Selectable<PayoutBatchesTable>;
export type PayoutBatchItemRow = Selectable<PayoutBatchItemsTable>;
