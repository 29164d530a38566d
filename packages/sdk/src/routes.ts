/**
 * Every API operation the SDK calls, as data: method, path template (OpenAPI spelling, so
 * `{payment_id}` is the server's parameter name), the body or query fields it sends, and the
 * record it answers with. The resource methods read their paths from here, and the SDK's tests
 * check each entry against the server's OpenAPI document.
 */
import {
  ADVANCE_CLOCK_FIELDS,
  BALANCE_FIELDS,
  CREATE_PAYMENT_FIELDS,
  CREATE_REFUND_FIELDS,
  CREATE_WEBHOOK_ENDPOINT_FIELDS,
  CREATE_WITHDRAW_FIELDS,
  EVENT_FIELDS,
  EVENT_WITH_DELIVERIES_FIELDS,
  LIST_EVENTS_FIELDS,
  LIST_PAYMENT_REFUNDS_FIELDS,
  LIST_PAYMENTS_FIELDS,
  LIST_REFUNDS_FIELDS,
  LIST_WITHDRAWS_FIELDS,
  PAGE_PARAMS_FIELDS,
  PAYMENT_FIELDS,
  REDELIVER_FIELDS,
  REDELIVERY_FIELDS,
  REFUND_FIELDS,
  RETRIEVE_PAYMENT_FIELDS,
  SANDBOX_CLOCK_FIELDS,
  SETTLEMENT_RUN_FIELDS,
  SIMULATE_PAYMENT_FIELDS,
  SIMULATE_REFUND_FIELDS,
  SIMULATE_WITHDRAW_FIELDS,
  UPDATE_WEBHOOK_ENDPOINT_FIELDS,
  WEBHOOK_ENDPOINT_FIELDS,
  WEBHOOK_ENDPOINT_WITH_SECRET_FIELDS,
  WITHDRAW_FIELDS,
} from "./types.ts";

export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * When a failed attempt may be repeated:
 * - "always": the request is a read, or a create carrying an idempotency key, so repeating it
 *   after a network error or a 5xx cannot do the work twice;
 * - "unprocessed": a write the server has no idempotency key for (a cancel, a simulation, a
 *   clock advance): repeated only when the server certainly did not act on it (429, 503, or a
 *   connection that was never made), because a lost answer to a processed request would make
 *   the retry act again.
 */
export type RetryPolicy = "always" | "unprocessed";

export interface Route {
  method: HttpMethod;
  path: string;
  /** Status of success. */
  status: number;
  body?: readonly string[];
  query?: readonly string[];
  /** Fields of the record in `data` (for a list: of each item of `data.data`). */
  response: readonly string[];
  list?: boolean;
  retry: RetryPolicy;
}

const read = { method: "GET", status: 200, retry: "always" } as const;
const write = { method: "POST", status: 200, retry: "unprocessed" } as const;

export const ROUTES = {
  "payments.create": {
    method: "POST",
    path: "/api/v1/payments",
    status: 201,
    body: CREATE_PAYMENT_FIELDS,
    response: PAYMENT_FIELDS,
    retry: "always",
  },
  "payments.list": {
    ...read,
    path: "/api/v1/payments",
    query: LIST_PAYMENTS_FIELDS,
    response: PAYMENT_FIELDS,
    list: true,
  },
  "payments.retrieve": {
    ...read,
    path: "/api/v1/payments/{payment_id}",
    query: RETRIEVE_PAYMENT_FIELDS,
    response: PAYMENT_FIELDS,
  },
  "payments.retrieveByReference": {
    ...read,
    path: "/api/v1/payments/by-reference/{referenceId}",
    query: RETRIEVE_PAYMENT_FIELDS,
    response: PAYMENT_FIELDS,
  },
  "payments.cancel": { ...write, path: "/api/v1/payments/{payment_id}/cancel", response: PAYMENT_FIELDS },

  "withdraws.create": {
    method: "POST",
    path: "/api/v1/withdraws",
    status: 201,
    body: CREATE_WITHDRAW_FIELDS,
    response: WITHDRAW_FIELDS,
    retry: "always",
  },
  "withdraws.list": {
    ...read,
    path: "/api/v1/withdraws",
    query: LIST_WITHDRAWS_FIELDS,
    response: WITHDRAW_FIELDS,
    list: true,
  },
  "withdraws.retrieve": { ...read, path: "/api/v1/withdraws/{withdraw_id}", response: WITHDRAW_FIELDS },
  "withdraws.retrieveByReference": {
    ...read,
    path: "/api/v1/withdraws/by-reference/{referenceId}",
    response: WITHDRAW_FIELDS,
  },
  "withdraws.cancel": { ...write, path: "/api/v1/withdraws/{withdraw_id}/cancel", response: WITHDRAW_FIELDS },

  "refunds.create": {
    method: "POST",
    path: "/api/v1/payments/{payment_id}/refunds",
    status: 201,
    body: CREATE_REFUND_FIELDS,
    response: REFUND_FIELDS,
    retry: "always",
  },
  "refunds.list": {
    ...read,
    path: "/api/v1/refunds",
    query: LIST_REFUNDS_FIELDS,
    response: REFUND_FIELDS,
    list: true,
  },
  "refunds.listForPayment": {
    ...read,
    path: "/api/v1/payments/{payment_id}/refunds",
    query: LIST_PAYMENT_REFUNDS_FIELDS,
    response: REFUND_FIELDS,
    list: true,
  },
  "refunds.retrieve": { ...read, path: "/api/v1/refunds/{refund_id}", response: REFUND_FIELDS },
  "refunds.cancel": { ...write, path: "/api/v1/refunds/{refund_id}/cancel", response: REFUND_FIELDS },

  "balance.retrieve": { ...read, path: "/api/v1/balance", response: BALANCE_FIELDS },

  "webhookEndpoints.create": {
    ...write,
    path: "/api/v1/webhook-endpoints",
    status: 201,
    body: CREATE_WEBHOOK_ENDPOINT_FIELDS,
    response: WEBHOOK_ENDPOINT_WITH_SECRET_FIELDS,
  },
  "webhookEndpoints.list": {
    ...read,
    path: "/api/v1/webhook-endpoints",
    query: PAGE_PARAMS_FIELDS,
    response: WEBHOOK_ENDPOINT_FIELDS,
    list: true,
  },
  "webhookEndpoints.retrieve": {
    ...read,
    path: "/api/v1/webhook-endpoints/{id}",
    response: WEBHOOK_ENDPOINT_FIELDS,
  },
  "webhookEndpoints.update": {
    ...write,
    method: "PATCH",
    path: "/api/v1/webhook-endpoints/{id}",
    body: UPDATE_WEBHOOK_ENDPOINT_FIELDS,
    response: WEBHOOK_ENDPOINT_FIELDS,
  },
  "webhookEndpoints.delete": {
    ...write,
    method: "DELETE",
    path: "/api/v1/webhook-endpoints/{id}",
    response: WEBHOOK_ENDPOINT_FIELDS,
  },
  "webhookEndpoints.rotateSecret": {
    ...write,
    path: "/api/v1/webhook-endpoints/{id}/rotate-secret",
    response: WEBHOOK_ENDPOINT_WITH_SECRET_FIELDS,
  },

  "events.list": {
    ...read,
    path: "/api/v1/events",
    query: LIST_EVENTS_FIELDS,
    response: EVENT_FIELDS,
    list: true,
  },
  "events.retrieve": { ...read, path: "/api/v1/events/{id}", response: EVENT_WITH_DELIVERIES_FIELDS },
  "events.redeliver": {
    ...write,
    path: "/api/v1/events/{id}/redeliver",
    status: 202,
    body: REDELIVER_FIELDS,
    response: REDELIVERY_FIELDS,
  },

  "sandbox.simulatePayment": {
    ...write,
    path: "/api/v1/sandbox/payments/{id}/simulate",
    body: SIMULATE_PAYMENT_FIELDS,
    response: PAYMENT_FIELDS,
  },
  "sandbox.simulateWithdraw": {
    ...write,
    path: "/api/v1/sandbox/withdraws/{id}/simulate",
    body: SIMULATE_WITHDRAW_FIELDS,
    response: WITHDRAW_FIELDS,
  },
  "sandbox.simulateRefund": {
    ...write,
    path: "/api/v1/sandbox/refunds/{refund_id}/simulate",
    body: SIMULATE_REFUND_FIELDS,
    response: REFUND_FIELDS,
  },
  "sandbox.runSettlements": {
    ...write,
    path: "/api/v1/sandbox/settlements/run",
    response: SETTLEMENT_RUN_FIELDS,
  },
  "sandbox.advanceClock": {
    ...write,
    path: "/api/v1/sandbox/clock/advance",
    body: ADVANCE_CLOCK_FIELDS,
    response: SANDBOX_CLOCK_FIELDS,
  },
  "sandbox.resetClock": {
    ...write,
    path: "/api/v1/sandbox/clock/reset",
    response: SANDBOX_CLOCK_FIELDS,
  },
  "sandbox.clock": { ...read, path: "/api/v1/sandbox/clock", response: SANDBOX_CLOCK_FIELDS },
} as const satisfies Record<string, Route>;

export type RouteName = keyof typeof ROUTES;
