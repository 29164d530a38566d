/**
 * The records and parameters of the Satang API, named. Every type here is an alias of the types
 * generated from the server's OpenAPI document (src/generated/openapi.ts, written by
 * `npm run generate`), which the server builds from the schemas that validate its requests. A
 * field added, renamed or removed on the server changes these types at the next generate, and
 * the SDK's tests fail until the committed files are regenerated.
 *
 * A few refinements go beyond the document. Three narrow what it says: webhook endpoint event
 * lists are typed as event types or "*" (the document says strings), and an event's
 * `data.object` is the Payment or Withdraw its `type` names (the document says an object).
 * Two widen what a caller may pass, where the value is converted or checked at run time: list
 * filters also take `Date` objects for dates (the SDK sends ISO 8601 strings), and
 * `customerBankCode` takes any string (the document lists the known bank codes; the server
 * answers an unknown one with INVALID_BANK_CODE, and a bank code usually comes from a form or a
 * database, not a literal). The compile-time checks at the end of this file hold each
 * refinement to the generated type it refines.
 *
 * The runtime lists (statuses, event types, field lists) are checked by the compiler against
 * the generated types, so they cannot drift either.
 */
import type { paths } from "./generated/openapi.ts";

// Reading the generated document types

type Path = keyof paths;
type Method = "get" | "post" | "patch" | "delete";
type OperationOf<P extends Path, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type ResponsesOf<P extends Path, M extends Method> =
  OperationOf<P, M> extends { responses: infer R } ? R : never;
/** The `data` of an operation's success answer: the record, or for a list the page envelope. */
type DataOf<
  P extends Path,
  M extends Method,
  S extends keyof ResponsesOf<P, M> = 200 & keyof ResponsesOf<P, M>,
> = JsonOf<ResponsesOf<P, M>[S]> extends { data: infer Data } ? Data : never;
/** The JSON body an operation takes. */
type BodyOf<P extends Path, M extends Method> = JsonOf<NonNullable<OperationOf<P, M>["requestBody"]>>;
/** The query parameters an operation takes. */
type QueryOf<P extends Path, M extends Method> = NonNullable<OperationOf<P, M>["parameters"]["query"]>;
/** One record of a list operation's page. */
type ItemOf<P extends Path> = DataOf<P, "get"> extends { data: Array<infer Item> } ? Item : never;

/** The field names of T as a runtime list; the Record type makes the compiler check it. */
function fieldsOf<T>(fields: Record<keyof T, true>): readonly string[] {
  return Object.keys(fields);
}

/** A known bank code autocompletes; any other string compiles and is checked by the server. */
type AnyBankCode<B> = Omit<B, "customerBankCode"> & { customerBankCode: BankCode | (string & {}) };

/** Dates may be Date objects or ISO 8601 strings; `dateFrom` is inclusive, `dateTo` exclusive. */
type DateFilters<Q> = Omit<Q, "dateFrom" | "dateTo"> & { dateFrom?: string | Date; dateTo?: string | Date };

/** An ISO 8601 instant as the API prints it: `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export type Timestamp = string;

// Payments

export type Payment = DataOf<"/api/v1/payments/{payment_id}", "get">;
export type Currency = Payment["currency"];
export type PaymentStatus = Payment["status"];
export type PaymentMethod = NonNullable<Payment["paymentMethod"]>;
export type NextAction = NonNullable<Payment["nextAction"]>;
export type QrCode = NonNullable<Extract<NextAction, { type: "use_payment_app" }>["qrCode"]>;
export type BankTransferInstructions = Extract<
  NextAction,
  { type: "display_bank_transfer_instructions" }
>["bankTransferInstructions"];

type GeneratedCreatePayment = BodyOf<"/api/v1/payments", "post">;
/** The 3-digit codes of the banks operating in Thailand that the server knows. */
export type BankCode = GeneratedCreatePayment["customerBankCode"];
export type CreatePaymentParams = AnyBankCode<GeneratedCreatePayment>;
export type RetrievePaymentParams = QueryOf<"/api/v1/payments/{payment_id}", "get">;
export type ResponseMode = NonNullable<RetrievePaymentParams["responseMode"]>;
export type ListPaymentsParams = DateFilters<QueryOf<"/api/v1/payments", "get">>;

/**
 * What `payments.create` answers: the payment the server answered with, and two facts about
 * that answer (from its headers; they are not fields of the payment record, and `retrieve`
 * does not have them).
 */
export type CreatedPayment = Payment & {
  /**
   * True when the server did not create a payment for this request but answered with an open
   * PromptPay payment of the same customer account and amount (PromptPay reuse, header
   * `Satang-Payment-Reused: true`). That payment belongs to the earlier request: its
   * `referenceId` is the earlier one, and nothing was stored under the `referenceId` you sent,
   * so retrieving by it answers 404. Paying it pays one amount once: never mark two orders paid
   * with it.
   */
  reused: boolean;
  /**
   * True when an earlier request with the same `idempotencyKey` created this payment (or was
   * answered with it by PromptPay reuse) and the server answered with it again (header
   * `Idempotent-Replayed: true`): an earlier call of yours with that key, or an earlier attempt
   * of this call whose answer was lost before a retry.
   */
  replayed: boolean;
};

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
] as const satisfies readonly PaymentStatus[];
export const PAYMENT_METHODS = ["promptpay", "bank_transfer"] as const satisfies readonly PaymentMethod[];
export const RESPONSE_MODES = ["both", "payment_link", "qr_code"] as const satisfies readonly ResponseMode[];

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
export const RETRIEVE_PAYMENT_FIELDS = fieldsOf<RetrievePaymentParams>({ responseMode: true });
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

export type Withdraw = DataOf<"/api/v1/withdraws/{withdraw_id}", "get">;
/** What `withdraws.create` answers: the withdraw, and whether it is an idempotent replay. */
export type CreatedWithdraw = Withdraw & {
  /**
   * True when an earlier request with the same `idempotencyKey` created this withdraw and the
   * server answered with it again (header `Idempotent-Replayed: true`; no second amount was
   * held): an earlier call of yours with that key, or an earlier attempt of this call whose
   * answer was lost before a retry.
   */
  replayed: boolean;
};
export type WithdrawStatus = Withdraw["status"];
export type DestinationType = Withdraw["destinationType"];
export type CreateWithdrawParams = AnyBankCode<BodyOf<"/api/v1/withdraws", "post">>;
export type ListWithdrawsParams = DateFilters<QueryOf<"/api/v1/withdraws", "get">>;

export const WITHDRAW_STATUSES = [
  "awaiting_verification",
  "pending",
  "processing",
  "paid",
  "failed",
  "canceled",
  "expired",
] as const satisfies readonly WithdrawStatus[];
export const DESTINATION_TYPES = ["bank_account", "wallet"] as const satisfies readonly DestinationType[];

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

// Refunds

export type Refund = DataOf<"/api/v1/refunds/{refund_id}", "get">;
/** What `refunds.create` answers: the refund, and whether it is an idempotent replay. */
export type CreatedRefund = Refund & {
  /** True when an earlier request with the same `idempotencyKey` created this refund. */
  replayed: boolean;
};
export type RefundStatus = Refund["status"];
export type CreateRefundParams = BodyOf<"/api/v1/payments/{payment_id}/refunds", "post">;
export type ListRefundsParams = DateFilters<QueryOf<"/api/v1/refunds", "get">>;
export type ListPaymentRefundsParams = DateFilters<QueryOf<"/api/v1/payments/{payment_id}/refunds", "get">>;

export const REFUND_STATUSES = [
  "pending",
  "processing",
  "succeeded",
  "failed",
  "canceled",
] as const satisfies readonly RefundStatus[];

export const REFUND_FIELDS = fieldsOf<Refund>({
  id: true,
  paymentId: true,
  amount: true,
  currency: true,
  status: true,
  referenceId: true,
  reason: true,
  metadata: true,
  failureReason: true,
  destination: true,
  createdAt: true,
  updatedAt: true,
  succeededAt: true,
  failedAt: true,
  canceledAt: true,
});
export const CREATE_REFUND_FIELDS = fieldsOf<CreateRefundParams>({
  amount: true,
  referenceId: true,
  reason: true,
  idempotencyKey: true,
  metadata: true,
  destination: true,
});
export const LIST_REFUNDS_FIELDS = fieldsOf<ListRefundsParams>({
  page: true,
  limit: true,
  status: true,
  dateFrom: true,
  dateTo: true,
  sortBy: true,
  sortOrder: true,
  paymentId: true,
});
export const LIST_PAYMENT_REFUNDS_FIELDS = fieldsOf<ListPaymentRefundsParams>({
  page: true,
  limit: true,
  status: true,
  dateFrom: true,
  dateTo: true,
  sortBy: true,
  sortOrder: true,
});

// Balance

/** Amounts in satang as JSON numbers: `walletBalance` is available (held amounts excluded). */
export type Balance = DataOf<"/api/v1/balance", "get">;
/** The balances with their figures as bigints of satang, exact at any size (`balance.retrieveExact()`). */
export type ExactBalance = Omit<Balance, "walletBalance" | "settlementBalance"> & {
  walletBalance: bigint;
  settlementBalance: bigint;
};
export type WalletStatus = Balance["status"];
export const WALLET_STATUSES = ["active", "frozen", "closed"] as const satisfies readonly WalletStatus[];
export const BALANCE_FIELDS = fieldsOf<Balance>({
  walletBalance: true,
  settlementBalance: true,
  currency: true,
  status: true,
});

// Lists

type PageEnvelope = DataOf<"/api/v1/payments", "get">;
/** One page of a list: the records and where the page is in the whole list. */
export type Page<T> = Omit<PageEnvelope, "data"> & { data: T[] };
export type PageParams = QueryOf<"/api/v1/webhook-endpoints", "get">;
export type SortOrder = NonNullable<QueryOf<"/api/v1/events", "get">["sortOrder"]>;
export const SORT_ORDERS = ["asc", "desc"] as const satisfies readonly SortOrder[];
export const PAGE_FIELDS = fieldsOf<Page<unknown>>({
  data: true,
  total: true,
  page: true,
  limit: true,
  totalPages: true,
});
export const PAGE_PARAMS_FIELDS = fieldsOf<PageParams>({ page: true, limit: true });

// Events

type GeneratedEvent = ItemOf<"/api/v1/events">;
export type EventType = GeneratedEvent["type"];
export type PaymentEventType = Extract<EventType, `payment.${string}`>;
export type WithdrawEventType = Extract<EventType, `withdraw.${string}`>;
export type RefundEventType = Extract<EventType, `refund.${string}`>;

export const PAYMENT_EVENT_TYPES = [
  "payment.received",
  "payment.failed",
  "payment.expired",
  "payment.canceled",
] as const satisfies readonly PaymentEventType[];
export const WITHDRAW_EVENT_TYPES = [
  "withdraw.processing",
  "withdraw.paid",
  "withdraw.failed",
  "withdraw.canceled",
] as const satisfies readonly WithdrawEventType[];
export const REFUND_EVENT_TYPES = [
  "refund.processing",
  "refund.succeeded",
  "refund.failed",
  "refund.canceled",
] as const satisfies readonly RefundEventType[];
export const EVENT_TYPES = [...PAYMENT_EVENT_TYPES, ...WITHDRAW_EVENT_TYPES, ...REFUND_EVENT_TYPES] as const;

/** An event of type T about record R: the generated event with `type` and `data.object` narrowed. */
type EventOf<T extends EventType, R> = Omit<GeneratedEvent, "type" | "data"> & {
  type: T;
  /** The full record at the time of the event. */
  data: { object: R };
};

/** What webhooks deliver and the events API lists; `type` tells which record `data.object` is. */
export type SatangEvent =
  | { [T in PaymentEventType]: EventOf<T, Payment> }[PaymentEventType]
  | { [T in WithdrawEventType]: EventOf<T, Withdraw> }[WithdrawEventType]
  | { [T in RefundEventType]: EventOf<T, Refund> }[RefundEventType];
export const EVENT_FIELDS = fieldsOf<SatangEvent>({ id: true, type: true, createdAt: true, data: true });

type GeneratedEventWithDeliveries = DataOf<"/api/v1/events/{id}", "get">;
export type WebhookDelivery = GeneratedEventWithDeliveries["deliveries"][number];
export type DeliveryAttempt = WebhookDelivery["attempts"][number];
export type WebhookDeliveryStatus = WebhookDelivery["status"];
export type EventWithDeliveries = SatangEvent & Pick<GeneratedEventWithDeliveries, "deliveries">;
export type Redelivery = DataOf<"/api/v1/events/{id}/redeliver", "post", 202>;
export type ListEventsParams = DateFilters<QueryOf<"/api/v1/events", "get">>;
export type RedeliverParams = BodyOf<"/api/v1/events/{id}/redeliver", "post">;

export const WEBHOOK_DELIVERY_STATUSES = [
  "pending",
  "succeeded",
  "failed",
  "canceled",
] as const satisfies readonly WebhookDeliveryStatus[];
export const DELIVERY_ATTEMPT_FIELDS = fieldsOf<DeliveryAttempt>({
  attemptNumber: true,
  succeeded: true,
  statusCode: true,
  durationMs: true,
  error: true,
  errorCode: true,
  responseExcerpt: true,
  startedAt: true,
  finishedAt: true,
  nextRetryAt: true,
});
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
export const EVENT_WITH_DELIVERIES_FIELDS = fieldsOf<EventWithDeliveries>({
  id: true,
  type: true,
  createdAt: true,
  data: true,
  deliveries: true,
});
export const REDELIVERY_FIELDS = fieldsOf<Redelivery>({ eventId: true, deliveries: true });
export const LIST_EVENTS_FIELDS = fieldsOf<ListEventsParams>({
  page: true,
  limit: true,
  type: true,
  dateFrom: true,
  dateTo: true,
  sortBy: true,
  sortOrder: true,
});
export const REDELIVER_FIELDS = fieldsOf<RedeliverParams>({ endpointId: true });

// Webhook endpoints

/** Event types, or ["*"] for all: the server accepts nothing else. */
type EndpointEvents = { events: Array<EventType | "*"> };
export type WebhookEndpoint = Omit<DataOf<"/api/v1/webhook-endpoints/{id}", "get">, "events"> &
  EndpointEvents;
/** The create and rotate answers: the endpoint with its `whsec_...` secret, shown only there. */
export type WebhookEndpointWithSecret = Omit<DataOf<"/api/v1/webhook-endpoints", "post", 201>, "events"> &
  EndpointEvents;
export type CreateWebhookEndpointParams = Omit<BodyOf<"/api/v1/webhook-endpoints", "post">, "events"> &
  EndpointEvents;

export const WEBHOOK_ENDPOINT_FIELDS = fieldsOf<WebhookEndpoint>({
  id: true,
  url: true,
  events: true,
  description: true,
  disabled: true,
  disabledAt: true,
  previousSecretExpiresAt: true,
  createdAt: true,
  updatedAt: true,
});
export const WEBHOOK_ENDPOINT_WITH_SECRET_FIELDS = fieldsOf<WebhookEndpointWithSecret>({
  id: true,
  url: true,
  events: true,
  description: true,
  disabled: true,
  disabledAt: true,
  previousSecretExpiresAt: true,
  createdAt: true,
  updatedAt: true,
  secret: true,
});
/** `{ disabled: true }` stops deliveries to the endpoint; `{ disabled: false }` resumes them. */
export type UpdateWebhookEndpointParams = BodyOf<"/api/v1/webhook-endpoints/{id}", "patch">;
export const UPDATE_WEBHOOK_ENDPOINT_FIELDS = fieldsOf<UpdateWebhookEndpointParams>({ disabled: true });
export const CREATE_WEBHOOK_ENDPOINT_FIELDS = fieldsOf<CreateWebhookEndpointParams>({
  url: true,
  events: true,
  description: true,
});

// Sandbox

export type SimulatePaymentParams = BodyOf<"/api/v1/sandbox/payments/{id}/simulate", "post">;
export type SimulateWithdrawParams = BodyOf<"/api/v1/sandbox/withdraws/{id}/simulate", "post">;
export type SimulatedPaymentOutcome = SimulatePaymentParams["outcome"];
export type SimulatedWithdrawOutcome = SimulateWithdrawParams["outcome"];
export type SimulateRefundParams = BodyOf<"/api/v1/sandbox/refunds/{refund_id}/simulate", "post">;
export type SimulatedRefundOutcome = SimulateRefundParams["outcome"];
export type AdvanceClockParams = BodyOf<"/api/v1/sandbox/clock/advance", "post">;
/** The merchant's business time. */
export type SandboxClock = DataOf<"/api/v1/sandbox/clock", "get">;
export type SettlementRun = DataOf<"/api/v1/sandbox/settlements/run", "post">;

export const SIMULATE_PAYMENT_FIELDS = fieldsOf<SimulatePaymentParams>({ outcome: true });
export const SIMULATE_WITHDRAW_FIELDS = fieldsOf<SimulateWithdrawParams>({ outcome: true });
export const SIMULATE_REFUND_FIELDS = fieldsOf<SimulateRefundParams>({ outcome: true });
export const ADVANCE_CLOCK_FIELDS = fieldsOf<AdvanceClockParams>({ seconds: true });
export const SANDBOX_CLOCK_FIELDS = fieldsOf<SandboxClock>({ now: true, offsetSeconds: true });
export const SETTLEMENT_RUN_FIELDS = fieldsOf<SettlementRun>({ count: true, amount: true, payments: true });

// Compile-time checks: the runtime lists name every generated value, and each refinement is
// one the generated type allows. A failure here after `npm run generate` means the server's
// document changed in a way this file must follow.

/** Each of A and B is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;

// biome-ignore lint/correctness/noUnusedVariables: the compiler checks these; nothing uses them.
type TypeChecks = [
  Holds<Same<(typeof PAYMENT_STATUSES)[number], PaymentStatus>>,
  Holds<Same<(typeof PAYMENT_METHODS)[number], PaymentMethod>>,
  Holds<Same<(typeof RESPONSE_MODES)[number], ResponseMode>>,
  Holds<Same<(typeof WITHDRAW_STATUSES)[number], WithdrawStatus>>,
  Holds<Same<(typeof REFUND_STATUSES)[number], RefundStatus>>,
  Holds<Same<(typeof DESTINATION_TYPES)[number], DestinationType>>,
  Holds<Same<(typeof WALLET_STATUSES)[number], WalletStatus>>,
  Holds<Same<(typeof SORT_ORDERS)[number], SortOrder>>,
  Holds<Same<(typeof EVENT_TYPES)[number], EventType>>,
  Holds<Same<(typeof WEBHOOK_DELIVERY_STATUSES)[number], WebhookDeliveryStatus>>,
  // Every page of every list has the same envelope.
  Holds<Same<Page<Payment>, DataOf<"/api/v1/payments", "get">>>,
  Holds<Same<Page<Withdraw>, DataOf<"/api/v1/withdraws", "get">>>,
  Holds<Same<Page<Refund>, DataOf<"/api/v1/refunds", "get">>>,
  // The events' narrowing is a narrowing: a typed event is a generated event.
  Holds<SatangEvent extends GeneratedEvent ? true : false>,
  Holds<EventWithDeliveries extends GeneratedEventWithDeliveries ? true : false>,
  Holds<WebhookEndpoint extends DataOf<"/api/v1/webhook-endpoints/{id}", "get"> ? true : false>,
  Holds<CreateWebhookEndpointParams extends BodyOf<"/api/v1/webhook-endpoints", "post"> ? true : false>,
  // The widened create bodies differ from the generated ones in the bank code only.
  Holds<
    Same<Omit<CreatePaymentParams, "customerBankCode">, Omit<GeneratedCreatePayment, "customerBankCode">>
  >,
  Holds<Same<BankCode, BodyOf<"/api/v1/withdraws", "post">["customerBankCode"]>>,
];
