/**
 * Schemas of the sandbox routes (CONTRACT 9) and the operator's clock and anomaly routes,
 * written once: they validate requests, type the handlers and feed the OpenAPI document.
 */
import { type Static, Type } from "typebox";
import { stringEnum } from "../http/list-query.ts";
import { ERROR_MESSAGE_KEYWORD } from "../http/validation.ts";
import { CLOCK_ADVANCE_SECONDS_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../lib/limits.ts";
import { SIMULATED_WITHDRAW_OUTCOMES } from "../lifecycle/payouts.ts";

export const SimulatePaymentBody = Type.Object(
  {
    outcome: stringEnum(["succeeded", "failed"] as const, {
      description:
        "succeeded: the customer paid (on an expired payment within 72 h of expiresAt, the late " +
        "confirmation); failed: the payment failed.",
    }),
  },
  { additionalProperties: false },
);
export type SimulatePaymentBody = Static<typeof SimulatePaymentBody>;

export const SimulateWithdrawBody = Type.Object(
  {
    outcome: stringEnum(SIMULATED_WITHDRAW_OUTCOMES, {
      description:
        "processing: the bank takes a pending withdraw; paid / failed: the bank's outcome (paid on " +
        "a failed or expired withdraw is the late success); indeterminate: the bank's answer is lost " +
        "and the withdraw stays processing until reconciled.",
    }),
  },
  { additionalProperties: false },
);
export type SimulateWithdrawBody = Static<typeof SimulateWithdrawBody>;

export const ClockAdvanceBody = Type.Object(
  {
    seconds: Type.Integer({
      minimum: 1,
      maximum: CLOCK_ADVANCE_SECONDS_MAX,
      description: `Whole seconds to move the merchant's test clock forward, 1 to ${CLOCK_ADVANCE_SECONDS_MAX}`,
      [ERROR_MESSAGE_KEYWORD]: `must be a whole number of seconds from 1 to ${CLOCK_ADVANCE_SECONDS_MAX}: the clock moves forward only`,
    }),
  },
  { additionalProperties: false },
);
export type ClockAdvanceBody = Static<typeof ClockAdvanceBody>;

export const IdParams = Type.Object({ id: Type.String({ description: "UUID" }) });
export type IdParams = Static<typeof IdParams>;

const envelope = <T extends Parameters<typeof Type.Object>[0]>(data: T) =>
  Type.Object({ success: Type.Literal(true), data: Type.Object(data, { additionalProperties: true }) });

export const ClockEnvelope = envelope({
  now: Type.String({ format: "date-time", description: "The merchant's business time" }),
});

export const AdminClockEnvelope = envelope({
  merchantId: Type.String({ format: "uuid" }),
  now: Type.String({ format: "date-time", description: "The merchant's business time" }),
});

export const SettlementRunEnvelope = envelope({
  count: Type.Integer({ minimum: 0, description: "How many payments were settled" }),
  amount: Type.String({ description: "Their total, decimal string of satang" }),
  payments: Type.Array(
    Type.Object({
      paymentId: Type.String({ format: "uuid" }),
      amount: Type.String(),
      settledAt: Type.String({ format: "date-time" }),
    }),
  ),
});

export const AnomalyQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
    merchantId: Type.Optional(Type.String({ format: "uuid", description: "Only this merchant's" })),
  },
  { additionalProperties: false },
);
export type AnomalyQuery = Static<typeof AnomalyQuery>;

const nullableString = Type.Union([Type.String(), Type.Null()]);

export const AnomalySchema = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    merchantId: nullableString,
    provider: Type.String(),
    subjectType: stringEnum(["payment", "withdraw"] as const),
    subjectId: Type.String(),
    report: Type.String({ description: "What the provider reported, e.g. payment.succeeded" }),
    subjectStatus: nullableString,
    reason: Type.String({ description: "Why it was refused, e.g. late_confirmation_window_passed" }),
    message: Type.String(),
    amount: nullableString,
    callbackId: nullableString,
    createdAt: Type.String({ format: "date-time" }),
  },
  { additionalProperties: true },
);

export const AnomalyListEnvelope = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({
    data: Type.Array(AnomalySchema),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 1 }),
    totalPages: Type.Integer({ minimum: 0 }),
  }),
});

export const CallbackResultEnvelope = envelope({
  callbackId: Type.String(),
  duplicate: Type.Boolean({ description: "This callback id was processed before; nothing changed" }),
  result: stringEnum(["applied", "refused"] as const),
  reason: nullableString,
});
