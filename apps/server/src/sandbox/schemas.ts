/**
 * Schemas of the sandbox routes (CONTRACT 9), written once: they validate requests, type the handlers and feed the OpenAPI document.
 */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../http/envelope.ts";
import { stringEnum } from "../http/list-query.ts";
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

export const IdParams = Type.Object({ id: Type.String({ description: "UUID" }) });
export type IdParams = Static<typeof IdParams>;

/** A success envelope whose data object may carry more than the listed fields. */
const envelope = <T extends Parameters<typeof Type.Object>[0]>(data: T) =>
  envelopeSchema(Type.Object(data, { additionalProperties: true }));

/** The fields of every answer about a merchant's test clock (the operator's add `merchantId`). */
export const clockFields = {
  now: Type.String({ format: "date-time", description: "The merchant's business time" }),
  offsetSeconds: Type.Integer({
    minimum: 0,
    description:
      "How far the merchant's test clock runs ahead of wall-clock time, in seconds (0 after a reset)",
  }),
};

export const ClockEnvelope = envelope(clockFields);

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
