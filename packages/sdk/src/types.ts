/**
 * The records and parameters of the Satang API, written by hand from the server's schemas.
 *
 * Every record and parameter type has a runtime field list next to it, declared as
 * `Record<keyof T, true>` so the compiler refuses a list that misses or invents a field. The
 * SDK's tests compare those lists with the server's OpenAPI document (generated from the
 * schemas that validate requests), so a field added, renamed or removed on either side fails a
 * test instead of drifting silently.
 */

export type Currency = "THB";

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

export const RESPONSE_MODES = ["both", "payment_link", "qr_code"] as const;
export type ResponseMode = (typeof RESPONSE_MODES)[number];

export const WITHDRAW_STATUSES = [
  "awaiting_verification",
  "pending",
  "processing",
  "paid",
  "failed",
  "canceled",
  "expired",
] as const;
export type WithdrawStatus = (typeof WITHDRAW_STATUSES)[number];

export const DESTINATION_TYPES = ["bank_account", "wallet"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

export const WALLET_STATUSES = ["active", "frozen", "closed"] as const;
export type WalletStatus = (typeof WALLET_STATUSES)[number];

export const PAYMENT_EVENT_TYPES = [
  "payment.received",
  "payment.failed",
  "payment.expired",
  "payment.canceled",
] as const;
export const WITHDRAW_EVENT_TYPES = [
  "withdraw.processing",
  "withdraw.paid",
  "withdraw.failed",
  "withdraw.canceled",
] as const;
export const EVENT_TYPES = [...PAYMENT_EVENT_TYPES, ...WITHDRAW_EVENT_TYPES] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];
export type WithdrawEventType = (typeof WITHDRAW_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed", "canceled"] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const SORT_ORDERS = ["asc", "desc"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** An ISO 8601 instant as the API prints it: `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export type Timestamp = string;

/** The field names of T as a runtime list; the Record type makes the compiler check it. */
function fieldsOf<T>(fields: Record<keyof T, true>): readonly string[] {
  return Object.keys(fields);
}

// Payments

export interface QrCode {
  type: "promptpay";
  /** EMVCo PromptPay payload (dynamic QR): render it, or show `imageUrl`. */
  payload: string;
  /** A PNG of the payload. */
  imageUrl: string;
}

export interface BankTransferInstructions {
  bankName: string;
  accountNumber: string;
  accountName: string;
  /** THB with two decimals, as the customer types it into their banking app. */
  amount: string;
  reference: string;
}

export type NextAction =
  | { type: "use_payment_app"; paymentAppUrl?: string; qrCode?: QrCode }
  | { type: "redirect"; redirectUrl?: string; qrCode?: QrCode }
  | { type: "display_bank_transfer_instructions"; bankTransferInstructions: BankTransferInstructions };

export interface Payment {
  id: string;
  /** Decimal string of satang: "1000.00" is 10.00 THB. */
  amount: string;
  currency: Currency;
  status: PaymentStatus;
  paymentMethod: PaymentMethod | null;
  referenceId: string;
  description: string | null;
  metadata: Record<string, string> | null;
  clientSecret: string | null;
  nextAction: NextAction | null;
  confirmedAt: Timestamp | null;
  capturedAt: Timestamp | null;
  canceledAt: Timestamp | null;
  expiresAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
export const PAYMENT_FIELDS = fieldsOf<Payment>({
  id: true,
  amount: true,
  currency: true,
  status: true,
  paymentMethod: true,
  referenceId: true,
  description: true,
  metadata: true,
  clientSecret: true,
  nextAction: true,
  confirmedAt: true,
  capturedAt: true,
  canceledAt: true,
  expiresAt: true,
  createdAt: true,
  updatedAt: true,
});
export const QR_CODE_FIELDS = fieldsOf<QrCode>({ type: true, payload: true, imageUrl: true });
export const BANK_TRANSFER_INSTRUCTIONS_FIELDS = fieldsOf<BankTransferInstructions>({
  bankName: true,
  accountNumber: true,
  accountName: true,
  amount: true,
  reference: true,
});

export interface CreatePaymentParams {
  /** Decimal string of satang, e.g. "10000.00" (100.00 THB); see toSatangString. */
  amount: string;
  currency?: Currency;
  /** Unique per merchant, forever: 1-255 letters, digits, `_`, `-`, `.`. */
  referenceId: string;
  paymentMethod: PaymentMethod;
  responseMode?: ResponseMode;
  customerBankAccountName: string;
  customerBankAccountNumber: string;
  customerBankCode: string;
  description?: string;
  /** Your invoice, order or transaction reference, kept for reconciliation. */
  merchantReference?: string;
  /** Alias of merchantReference. */
  invoiceNo?: string;
  metadata?: Record<string, string>;
  /**
   * Makes the create safe to repeat. The SDK generates a UUID per call when you leave it out
   * and reuses it on the call's own retries; pass your own to dedupe across calls or restarts.
   */
  idempotencyKey?: string;
  /** 5 to 1440; by default 15 for promptpay and 1440 for bank_transfer. */
  expiresInMinutes?: number;
}
export const CREATE_PAYMENT_FIELDS = fieldsOf<CreatePaymentParams>({
  amount: true,
  currency: true,
  referenceId: true,
  paymentMethod: true,
  responseMode: true,
  customerBankAccountName: true,
  customerBankAccountNumber: true,
  customerBankCode: true,
  description: true,
  merchantReference: true,
  invoiceNo: true,
  metadata: true,
  idempotencyKey: true,
  expiresInMinutes: true,
});

export interface RetrievePaymentParams {
  responseMode?: ResponseMode;
}
export const RETRIEVE_PAYMENT_FIELDS = fieldsOf<RetrievePaymentParams>({ responseMode: true });

/** Dates may be Date objects or ISO 8601 strings; `dateFrom` is inclusive, `dateTo` exclusive. */
export interface ListPaymentsParams {
  page?: number;
  limit?: number;
  status?: PaymentStatus;
  paymentMethod?: PaymentMethod;
  responseMode?: ResponseMode;
  dateFrom?: string | Date;
  dateTo?: string | Date;
  sortBy?: "amount" | "status" | "createdAt" | "confirmedAt" | "capturedAt" | "referenceId";
  sortOrder?: SortOrder;
}
export const LIST_PAYMENTS_FIELDS = fieldsOf<ListPaymentsParams>({
  page: true,
  limit: true,
  status: true,
  paymentMethod: true,
  responseMode: true,
  dateFrom: true,
  dateTo: true,
  sortBy: true,
  sortOrder: true,
});

// Withdraws

export interface Withdraw {
  id: string;
  amount: string;
  currency: Currency;
  status: WithdrawStatus;
  referenceId: string;
  destinationType: DestinationType;
  /** Masked: all but the last 4 digits are `*`. */
  bankAccountNumber: string | null;
  bankAccountName: string | null;
  bankCode: string | null;
  destinationId: string | null;
  description: string | null;
  metadata: Record<string, string> | null;
  paidAt: Timestamp | null;
  canceledAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
export const WITHDRAW_FIELDS = fieldsOf<Withdraw>({
  id: true,
  amount: true,
  currency: true,
  status: true,
  referenceId: true,
  destinationType: true,
  bankAccountNumber: true,
  bankAccountName: true,
  bankCode: true,
  destinationId: true,
  description: true,
  metadata: true,
  paidAt: true,
  canceledAt: true,
  createdAt: true,
  updatedAt: true,
});

export interface CreateWithdrawParams {
  amount: string;
  currency?: Currency;
  referenceId: string;
  destinationType: DestinationType;
  customerBankAccountName: string;
  customerBankAccountNumber: string;
  customerBankCode: string;
  description?: string;
  metadata?: Record<string, string>;
  /** As for payments: generated per call when left out, reused across the call's retries. */
  idempotencyKey?: string;
}
export const CREATE_WITHDRAW_FIELDS = fieldsOf<CreateWithdrawParams>({
  amount: true,
  currency: true,
  referenceId: true,
  destinationType: true,
  customerBankAccountName: true,
  customerBankAccountNumber: true,
  customerBankCode: true,
  description: true,
  metadata: true,
  idempotencyKey: true,
});

export interface ListWithdrawsParams {
  page?: number;
  limit?: number;
  status?: WithdrawStatus;
  destinationType?: DestinationType;
  dateFrom?: string | Date;
  dateTo?: string | Date;
  sortBy?: "amount" | "status" | "createdAt" | "paidAt" | "referenceId";
  sortOrder?: SortOrder;
}
export const LIST_WITHDRAWS_FIELDS = fieldsOf<ListWithdrawsParams>({
  page: true,
  limit: true,
  status: true,
  destinationType: true,
  dateFrom: true,
  dateTo: true,
  sortBy: true,
  sortOrder: true,
});

// Balance

export interface Balance {
  /** Available wallet in satang (a JSON number): the wallet minus amounts held for withdraws. */
  walletBalance: number;
  /** Succeeded payments awaiting settlement, in satang. */
  settlementBalance: number;
  currency: Currency;
  status: WalletStatus;
}
export const BALANCE_FIELDS = fieldsOf<Balance>({
  walletBalance: true,
  settlementBalance: true,
  currency: true,
  status: true,
});

// Lists

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}
export const PAGE_FIELDS = fieldsOf<Page<unknown>>({
  data: true,
  total: true,
  page: true,
  limit: true,
  totalPages: true,
});

// Webhook endpoints

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Event types, or ["*"] for all. */
  events: Array<EventType | "*">;
  description: string | null;
  /** During a secret rotation: when the previous secret stops signing deliveries. */
  previousSecretExpiresAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}
export const WEBHOOK_ENDPOINT_FIELDS = fieldsOf<WebhookEndpoint>({
  id: true,
  url: true,
  events: true,
  description: true,
  previousSecretExpiresAt: true,
  createdAt: true,
  updatedAt: true,
});

export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  /** `whsec_...`: shown only in the create and rotate responses. Store it now. */
  secret: string;
}
export const WEBHOOK_ENDPOINT_WITH_SECRET_FIELDS = fieldsOf<WebhookEndpointWithSecret>({
  id: true,
  url: true,
  events: true,
  description: true,
  previousSecretExpiresAt: true,
  createdAt: true,
  updatedAt: true,
  secret: true,
});

export interface CreateWebhookEndpointParams {
  url: string;
  events: Array<EventType | "*">;
  description?: string;
}
export const CREATE_WEBHOOK_ENDPOINT_FIELDS = fieldsOf<CreateWebhookEndpointParams>({
  url: true,
  events: true,
  description: true,
});

export interface PageParams {
  page?: number;
  limit?: number;
}
export const PAGE_PARAMS_FIELDS = fieldsOf<PageParams>({ page: true, limit: true });

// Events

interface EventBase<T extends EventType, R> {
  id: string;
  type: T;
  createdAt: Timestamp;
  /** The full record at the time of the event. */
  data: { object: R };
}

/** What webhooks deliver and the events API lists; `type` tells which record `data.object` is. */
export type SatangEvent =
  | { [T in PaymentEventType]: EventBase<T, Payment> }[PaymentEventType]
  | { [T in WithdrawEventType]: EventBase<T, Withdraw> }[WithdrawEventType];
export const EVENT_FIELDS = fieldsOf<SatangEvent>({ id: true, type: true, createdAt: true, data: true });

export interface DeliveryAttempt {
  attemptNumber: number;
  succeeded: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  startedAt: Timestamp;
  finishedAt: Timestamp;
  nextRetryAt: Timestamp | null;
}
export const DELIVERY_ATTEMPT_FIELDS = fieldsOf<DeliveryAttempt>({
  attemptNumber: true,
  succeeded: true,
  statusCode: true,
  durationMs: true,
  error: true,
  startedAt: true,
  finishedAt: true,
  nextRetryAt: true,
});

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  status: WebhookDeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Timestamp | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Timestamp;
  completedAt: Timestamp | null;
  attempts: DeliveryAttempt[];
}
export const WEBHOOK_DELIVERY_FIELDS = fieldsOf<WebhookDelivery>({
  id: true,
  endpointId: true,
  status: true,
  attemptCount: true,
  nextAttemptAt: true,
  lastStatusCode: true,
  lastError: true,
  createdAt: true,
  completedAt: true,
  attempts: true,
});

export type EventWithDeliveries = SatangEvent & { deliveries: WebhookDelivery[] };
export const EVENT_WITH_DELIVERIES_FIELDS = fieldsOf<EventWithDeliveries>({
  id: true,
  type: true,
  createdAt: true,
  data: true,
  deliveries: true,
});

export interface Redelivery {
  eventId: string;
  deliveries: WebhookDelivery[];
}
export const REDELIVERY_FIELDS = fieldsOf<Redelivery>({ eventId: true, deliveries: true });

export interface ListEventsParams {
  page?: number;
  limit?: number;
  type?: EventType;
  dateFrom?: string | Date;
  dateTo?: string | Date;
  sortOrder?: SortOrder;
}
export const LIST_EVENTS_FIELDS = fieldsOf<ListEventsParams>({
  page: true,
  limit: true,
  type: true,
  dateFrom: true,
  dateTo: true,
  sortOrder: true,
});

export interface RedeliverParams {
  /** Only this endpoint; by default every endpoint that subscribes to the event now. */
  endpointId?: string;
}
export const REDELIVER_FIELDS = fieldsOf<RedeliverParams>({ endpointId: true });

// Sandbox

export type SimulatedPaymentOutcome = "succeeded" | "failed";
export type SimulatedWithdrawOutcome = "processing" | "paid" | "failed" | "indeterminate";

export interface SimulatePaymentParams {
  outcome: SimulatedPaymentOutcome;
}
export const SIMULATE_PAYMENT_FIELDS = fieldsOf<SimulatePaymentParams>({ outcome: true });

export interface SimulateWithdrawParams {
  outcome: SimulatedWithdrawOutcome;
}
export const SIMULATE_WITHDRAW_FIELDS = fieldsOf<SimulateWithdrawParams>({ outcome: true });

export interface AdvanceClockParams {
  seconds: number;
}
export const ADVANCE_CLOCK_FIELDS = fieldsOf<AdvanceClockParams>({ seconds: true });

export interface SandboxClock {
  /** The merchant's business time. */
  now: Timestamp;
}
export const SANDBOX_CLOCK_FIELDS = fieldsOf<SandboxClock>({ now: true });

export interface SettlementRun {
  count: number;
  /** Total settled, decimal string of satang. */
  amount: string;
  payments: Array<{ paymentId: string; amount: string; settledAt: Timestamp }>;
}
export const SETTLEMENT_RUN_FIELDS = fieldsOf<SettlementRun>({ count: true, amount: true, payments: true });
