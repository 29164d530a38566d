/** Schemas of named operator tokens (CONTRACT 2): the create body and the answers. */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../http/envelope.ts";
import { pageSchema } from "../http/list-query.ts";
import { OPERATOR_TOKEN_NAME_MAX } from "../lib/limits.ts";

export const CreateOperatorTokenBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: OPERATOR_TOKEN_NAME_MAX,
      pattern: "^[^\\s].*[^\\s]$|^[^\\s]$",
      description:
        "Who or what uses the token, as the audit log and the payout desk will show it (1-100 " +
        "characters, also once compatibility characters are folded (NFKC), as the name is kept; " +
        "no leading or trailing space; admin-token is reserved).",
      examples: ["somchai"],
    }),
  },
  { additionalProperties: false },
);
export type CreateOperatorTokenBody = Static<typeof CreateOperatorTokenBody>;

const nullableTimestamp = (description: string) =>
  Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description });

const OperatorTokenSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  name: Type.String({ examples: ["somchai"] }),
  tokenPrefix: Type.String({
    description: "The token's first characters, to tell tokens apart; the rest is never shown again.",
    examples: ["sat_op_Xk3q"],
  }),
  createdBy: Type.String({ description: "The operator who created it.", examples: ["admin-token"] }),
  createdAt: Type.String({ format: "date-time" }),
  revokedAt: nullableTimestamp("When it stopped working; null while it works."),
});

const CreatedOperatorTokenSchema = Type.Object({
  ...OperatorTokenSchema.properties,
  token: Type.String({
    description: "The bearer token: sat_op_ and 43 characters. Shown only in this answer: store it now.",
    examples: ["sat_op_Xk3qL9vR2mT8wY4zB6nC1dF5gH7jK0pQ3sU9xA2eI4oZ"],
  }),
});

export const OperatorTokenEnvelope = envelopeSchema(OperatorTokenSchema);
export const CreatedOperatorTokenEnvelope = envelopeSchema(CreatedOperatorTokenSchema);
export const OperatorTokenListEnvelope = envelopeSchema(pageSchema(OperatorTokenSchema));
