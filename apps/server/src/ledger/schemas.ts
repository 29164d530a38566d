/**
 * Schemas of the operator's wallet adjustment (CONTRACT 2), written once: they validate the
 * request, type the handler and feed the OpenAPI document. The rules behind them are in
 * adjustments.ts.
 */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../http/envelope.ts";
import { signedAmountField } from "../http/fields.ts";
import { ADJUSTMENT_REASON_LENGTH_MAX } from "../lib/limits.ts";

export const AdjustmentBody = Type.Object(
  {
    amount: signedAmountField(
      'Signed decimal string of satang: "+1000.00" credits, "-1000.00" debits. Not zero.',
    ),
    reason: Type.String({
      minLength: 1,
      maxLength: ADJUSTMENT_REASON_LENGTH_MAX,
      pattern: "\\S",
      description: `Why the operator adjusts the wallet; 1-${ADJUSTMENT_REASON_LENGTH_MAX} characters.`,
    }),
  },
  { additionalProperties: false },
);
export type AdjustmentBody = Static<typeof AdjustmentBody>;

const AdjustmentSchema = Type.Object({
  id: Type.String({ format: "uuid", description: "The ledger transaction of the adjustment" }),
  merchantId: Type.String({ format: "uuid" }),
  amount: Type.String({ description: "Signed decimal string" }),
  reason: Type.String(),
  balanceAfter: Type.String({ description: "Available wallet after the adjustment" }),
  createdAt: Type.String({ format: "date-time" }),
});

export const AdjustmentEnvelope = envelopeSchema(AdjustmentSchema);
