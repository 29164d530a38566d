/**
 * Schemas of the dashboard's routes: the operator's user creation, login and logout, and the
 * dashboard's own API. Lists reuse the query and record schemas of the public API, so the
 * dashboard filters, sorts and pages exactly as the API does.
 */
import { type Static, Type } from "typebox";
import { EVENT_TYPES } from "../db/types.ts";
import { stringEnum } from "../http/list-query.ts";
import { ERROR_MESSAGE_KEYWORD } from "../http/validation.ts";
import {
  DASHBOARD_EMAIL_LENGTH_MAX,
  DASHBOARD_PASSWORD_LENGTH_MAX,
  DASHBOARD_PASSWORD_LENGTH_MIN,
} from "../lib/limits.ts";
import { PaymentSchema } from "../payments/schemas.ts";
import { WithdrawSchema } from "../withdraws/schemas.ts";

const timestamp = (description: string) => Type.String({ format: "date-time", description });
const envelope = <T extends Parameters<typeof Type.Object>[0][string]>(data: T) =>
  Type.Object({ success: Type.Literal(true), data });

export const CreateUserBody = Type.Object(
  {
    email: Type.String({
      format: "email",
      maxLength: DASHBOARD_EMAIL_LENGTH_MAX,
      description: "Unique across the service, whatever its case",
      [ERROR_MESSAGE_KEYWORD]: `must be an email address of at most ${DASHBOARD_EMAIL_LENGTH_MAX} characters`,
    }),
    password: Type.String({
      minLength: DASHBOARD_PASSWORD_LENGTH_MIN,
      maxLength: DASHBOARD_PASSWORD_LENGTH_MAX,
      description: `${DASHBOARD_PASSWORD_LENGTH_MIN} to ${DASHBOARD_PASSWORD_LENGTH_MAX} characters; stored only as an argon2id hash`,
      [ERROR_MESSAGE_KEYWORD]: `must be ${DASHBOARD_PASSWORD_LENGTH_MIN} to ${DASHBOARD_PASSWORD_LENGTH_MAX} characters long`,
    }),
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

/**
 * Login takes any non-empty strings: whether an email is well formed is not something a login
 * form needs to be told apart from a wrong password.
 */
export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: DASHBOARD_EMAIL_LENGTH_MAX }),
    password: Type.String({ minLength: 1, maxLength: DASHBOARD_PASSWORD_LENGTH_MAX }),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const MerchantIdParams = Type.Object({ id: Type.String({ description: "Merchant UUID" }) });
export const IdParams = Type.Object({ id: Type.String({ description: "Record UUID" }) });

const UserSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  merchantId: Type.String({ format: "uuid" }),
  email: Type.String(),
  createdAt: timestamp("Creation time"),
});

export const UserEnvelope = envelope(UserSchema);

export const LoginEnvelope = envelope(
  Type.Object({
    token: Type.String({
      description: "Send as `Authorization: Bearer <token>` to the dashboard API. Shown only here.",
    }),
    expiresAt: timestamp("When the session ends (12 hours after login)"),
    user: UserSchema,
  }),
);

export const LogoutEnvelope = envelope(Type.Object({ loggedOut: Type.Literal(true) }));

export const MeEnvelope = envelope(
  Type.Object({
    user: UserSchema,
    merchant: Type.Object({ id: Type.String({ format: "uuid" }), name: Type.String() }),
    environment: stringEnum(["sandbox", "live"] as const),
    expiresAt: timestamp("When this session ends"),
  }),
);

/** One entry of a payment's or withdraw's timeline: an event about it. */
const TimelineEntry = Type.Object({
  id: Type.String({ format: "uuid" }),
  type: stringEnum(EVENT_TYPES),
  createdAt: timestamp("When it happened (the merchant's business time)"),
});

/** Who pays: the customer's account as the payment was created with it, the number masked. */
const PaymentCustomer = Type.Object({
  name: Type.String(),
  accountNumber: Type.String({ description: "Masked: all but the last 4 digits are *" }),
  bankCode: Type.String(),
});

export const PaymentDetailEnvelope = envelope(
  Type.Object({
    payment: PaymentSchema,
    customer: PaymentCustomer,
    /** The hosted payment page, as nextAction.paymentAppUrl names it (PUBLIC_BASE_URL/pay/{id}). */
    hostedPageUrl: Type.String(),
    timeline: Type.Array(TimelineEntry),
  }),
);

export const WithdrawDetailEnvelope = envelope(
  Type.Object({ withdraw: WithdrawSchema, timeline: Type.Array(TimelineEntry) }),
);

export const TestEventEnvelope = envelope(
  Type.Object({
    id: Type.String(),
    endpointId: Type.String(),
    succeeded: Type.Boolean(),
    statusCode: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    durationMs: Type.Integer(),
    sentAt: timestamp("When the test was sent (wall clock)"),
  }),
);

export const VolumeEnvelope = envelope(
  Type.Object({
    days: Type.Array(
      Type.Object({
        date: Type.String(),
        paymentsCount: Type.Integer(),
        paymentsAmount: Type.String(),
        withdrawsCount: Type.Integer(),
        withdrawsAmount: Type.String(),
      }),
    ),
  }),
);

export const SearchQuery = Type.Object(
  { q: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const SearchEnvelope = envelope(
  Type.Object({
    hits: Type.Array(
      Type.Object({
        type: Type.Union([Type.Literal("payment"), Type.Literal("withdraw")]),
        id: Type.String(),
        referenceId: Type.String(),
      }),
    ),
  }),
);
