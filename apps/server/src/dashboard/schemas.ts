/**
 * Schemas of the dashboard's routes: the operator's user creation, login and logout, and the
 * dashboard's own API. Lists reuse the query and record schemas of the public API, so the
 * dashboard filters, sorts and pages exactly as the API does.
 */
import { type Static, Type } from "typebox";
import { EVENT_TYPES } from "../db/types.ts";
import { pageQueryProperties, pageSchema, stringEnum } from "../http/list-query.ts";
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

/** Roles of dashboard users (CONTRACT 13). */
export const DASHBOARD_ROLES = ["owner", "developer", "finance"] as const;

const ROLE_DESCRIPTION =
  "owner: everything, users included; developer: API keys, webhook endpoints and reads; " +
  "finance: reads and exports only.";

/** A new user's role: owner when not given (CONTRACT 13). */
function roleProperty() {
  return stringEnum(DASHBOARD_ROLES, { default: "owner", description: `${ROLE_DESCRIPTION} Default owner.` });
}

/**
 * A role change names the role: it has no default, so a body without one is 400 and never makes
 * the user an owner.
 */
export const ChangeRoleBody = Type.Object(
  { role: stringEnum(DASHBOARD_ROLES, { description: ROLE_DESCRIPTION }) },
  { additionalProperties: false },
);

/** A TOTP code: 6 digits (RFC 6238). */
const otpProperty = () =>
  Type.String({
    minLength: 1,
    maxLength: 16,
    description: "The current 6-digit code of the user's authenticator app.",
    examples: ["492039"],
  });

export const TwoFactorConfirmBody = Type.Object({ otp: otpProperty() }, { additionalProperties: false });
/** An enrolment's body: nothing, or for a user enrolled already the current code (to replace it). */
export const TwoFactorEnrolBody = Type.Object(
  {
    otp: Type.Optional({
      ...otpProperty(),
      description: "Only to replace an enrolled authenticator: its current 6-digit code.",
    }),
  },
  { additionalProperties: false },
);

export const TwoFactorEnrolmentEnvelope = envelope(
  Type.Object({
    secret: Type.String({ description: "Base32 secret, for typing into an authenticator by hand." }),
    otpauthUri: Type.String({ description: "otpauth://totp/... URI, the content of the QR code." }),
    qrCode: Type.String({ description: "The otpauth URI as a QR code: a data:image/png;base64 URL." }),
  }),
);

/** A new user's email and password, as both create routes take them. */
const newUserProperties = () => ({
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
});

/** The operator's create-user route (CONTRACT 13): `role` is optional, default `owner`. */
export const CreateUserBody = Type.Object(
  { ...newUserProperties(), role: Type.Optional(roleProperty()) },
  { additionalProperties: false },
);
/**
 * An owner adding a user from the dashboard names the role, as a role change does: a body
 * without one is 400, so nobody becomes an owner by omission.
 */
export const DashboardCreateUserBody = Type.Object(
  { ...newUserProperties(), role: stringEnum(DASHBOARD_ROLES, { description: ROLE_DESCRIPTION }) },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

/**
 * Login takes any non-empty strings: whether an email is well formed is not something a login
 * form needs to be told apart from a wrong password.
 */
/** A login's `otp` up to this length is checked as a code (wrong: 401); past it the body is refused. */
const LOGIN_OTP_LENGTH_MAX = 256;

export const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: DASHBOARD_EMAIL_LENGTH_MAX }),
    // An empty password is a wrong one, and an empty code a missing one; a code of the wrong
    // length is a wrong one: each is 401 counted by the lockout (CONTRACT 13), not a 400.
    password: Type.String({ maxLength: DASHBOARD_PASSWORD_LENGTH_MAX }),
    otp: Type.Optional({ ...otpProperty(), minLength: 0, maxLength: LOGIN_OTP_LENGTH_MAX }),
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
  role: stringEnum(DASHBOARD_ROLES),
  twoFactorEnabled: Type.Boolean({ description: "true once the user has enrolled a TOTP authenticator." }),
  createdAt: timestamp("Creation time"),
});

export const UserEnvelope = envelope(UserSchema);
/** The users list's paging (CONTRACT 11): `page` from 1, `limit` 1 to 100, nothing else. */
export const UserListQuery = Type.Object(pageQueryProperties, { additionalProperties: false });
export const UserListEnvelope = envelope(pageSchema(UserSchema));

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
    twoFactorRequired: Type.Boolean({
      description:
        "true while this user must enrol two-factor login before anything else (an owner in live).",
    }),
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
    transferReference: Type.Union([Type.String(), Type.Null()], {
      description:
        "A bank transfer's reference, what the customer writes in the transfer's note; kept after the payment ends, when nextAction no longer carries it. Null for PromptPay.",
    }),
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
        refundsCount: Type.Integer(),
        refundsAmount: Type.String(),
        netAmount: Type.String(),
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
