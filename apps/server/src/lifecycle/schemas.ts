/**
 * Schemas of the lifecycle's routes: the operator's clock and anomaly routes, the clock body the
 * sandbox route shares, and the answer to a provider callback. Written once: they validate
 * requests, type the handlers and feed the OpenAPI document.
 */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../http/envelope.ts";
import { pageQueryProperties, pageSchema, stringEnum } from "../http/list-query.ts";
import { ERROR_MESSAGE_KEYWORD } from "../http/validation.ts";
import { CLOCK_ADVANCE_SECONDS_MAX } from "../lib/limits.ts";

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

export const MerchantIdParams = Type.Object({ id: Type.String({ description: "UUID" }) });

/** A success envelope whose data object may carry more than the listed fields. */
const openEnvelope = <T extends Parameters<typeof Type.Object>[0]>(data: T) =>
  envelopeSchema(Type.Object(data, { additionalProperties: true }));

export const AdminClockEnvelope = openEnvelope({
  merchantId: Type.String({ format: "uuid" }),
  now: Type.String({ format: "date-time", description: "The merchant's business time" }),
  offsetSeconds: Type.Integer({
    minimum: 0,
    description:
      "How far the merchant's test clock runs ahead of wall-clock time, in seconds (0 after a reset)",
  }),
});

export const AnomalyQuery = Type.Object(
  {
    ...pageQueryProperties,
    merchantId: Type.Optional(Type.String({ format: "uuid", description: "Only this merchant's" })),
    open: Type.Optional(
      Type.Boolean({
        description:
          "true: only the anomalies still open; false: only those closed (their money was credited after all)",
      }),
    ),
  },
  { additionalProperties: false },
);

const nullableString = Type.Union([Type.String(), Type.Null()]);

const AnomalySchema = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    merchantId: nullableString,
    provider: Type.String(),
    subjectType: stringEnum(["payment", "withdraw", "refund"] as const),
    subjectId: Type.String(),
    report: Type.String({ description: "What the provider reported, e.g. payment.succeeded" }),
    subjectStatus: nullableString,
    reason: Type.String({ description: "Why it was refused, e.g. late_confirmation_window_passed" }),
    message: Type.String(),
    amount: nullableString,
    callbackId: nullableString,
    createdAt: Type.String({ format: "date-time" }),
    closedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()], {
      description: "When the anomaly stopped being true (its money was credited after all); null while open",
    }),
    resolution: Type.Union(
      [
        Type.String({
          examples: [
            "credited: the provider's transaction 20260115SIM00000042 was credited to payment 0b8f2c4e-1d2a-4c6e-9f10-5a7b3c2d1e0f",
          ],
        }),
        Type.Null(),
      ],
      {
        description:
          "Why it was closed, e.g. credited: the provider's transaction was credited to the payment",
      },
    ),
  },
  { additionalProperties: true },
);

export const AnomalyListEnvelope = envelopeSchema(pageSchema(AnomalySchema));

/** What a provider's callback is answered: applied, refused, or a duplicate of an earlier one. */
export const CallbackResultEnvelope = openEnvelope({
  callbackId: Type.String(),
  duplicate: Type.Boolean({ description: "This callback id was processed before; nothing changed" }),
  result: stringEnum(["applied", "refused"] as const),
  reason: nullableString,
});
