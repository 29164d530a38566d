/**
 * Schemas of the operator's wallet adjustment (CONTRACT 2), written once: they validate the
 * request, type the handler and feed the OpenAPI document. The rules behind them are in
 * adjustments.ts.
 */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../http/envelope.ts";
import { idempotencyKeyField, signedAmountField } from "../http/fields.ts";
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
    idempotencyKey: Type.Optional(
      Type.String({
        ...idempotencyKeyField(),
        description:
          "1-255 printable ASCII characters, unique per merchant. A retry with the key and the same " +
          "body answers 200 with the adjustment it made (header Idempotent-Replayed: true) and moves " +
          "no money; the key with another body answers 422 IDEMPOTENCY_KEY_MISMATCH.",
      }),
    ),
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
  idempotencyKey: Type.Union([Type.String(), Type.Null()], {
    description: "The key the adjustment was made with, or null",
  }),
});

/** The ledger entry an adjustment produced, as the operator API shows it. */
export type AdjustmentRecord = Static<typeof AdjustmentSchema>;

export const AdjustmentEnvelope = envelopeSchema(AdjustmentSchema);
