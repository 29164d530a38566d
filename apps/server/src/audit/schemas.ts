/**
 * Schemas of the audit log's lists: the operator's GET /admin/v1/audit-log (CONTRACT 2) and the
 * dashboard's own entries of a merchant. Written once for validation, types and OpenAPI.
 */
import { type Static, Type } from "typebox";
import { envelopeSchema } from "../http/envelope.ts";
import {
  dateFromProperty,
  dateToProperty,
  limitProperty,
  pageProperty,
  pageSchema,
  sortByProperty,
  sortOrderProperty,
} from "../http/list-query.ts";

/**
 * The one field the audit log sorts by: the section 11 list parameters include sortBy, and the
 * time of an entry is the only order that means something for a log.
 */
export const AUDIT_SORT_FIELDS = ["createdAt"] as const;
export type AuditSortField = (typeof AUDIT_SORT_FIELDS)[number];

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** The filters both lists take, in the order their errors are reported. */
const filterProperties = {
  page: Type.Optional(pageProperty),
  limit: Type.Optional(limitProperty),
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 254,
      description:
        "Entries of this actor: an operator token's name, admin-token, or a dashboard user's email.",
    }),
  ),
  action: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "Entries of this action, such as recordPayoutOutcome or createApiKey.",
    }),
  ),
  recordId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: "Entries about this record (a withdraw, an integration, a merchant, ...).",
    }),
  ),
  dateFrom: Type.Optional(dateFromProperty),
  dateTo: Type.Optional(dateToProperty),
  sortBy: Type.Optional(sortByProperty(AUDIT_SORT_FIELDS, "createdAt")),
  sortOrder: Type.Optional(sortOrderProperty),
};

export const AuditLogQuery = Type.Object(
  {
    ...filterProperties,
    merchantId: Type.Optional(
      Type.String({
        format: "uuid",
        description: "Entries about this merchant's records.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type AuditLogQuery = Static<typeof AuditLogQuery>;

/** The dashboard's list: always the session's merchant. */
export const MerchantAuditLogQuery = Type.Object(filterProperties, { additionalProperties: false });
export type MerchantAuditLogQuery = Static<typeof MerchantAuditLogQuery>;

export const AuditEntrySchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  createdAt: Type.String({ format: "date-time" }),
  actorKind: Type.Union(
    [Type.Literal("admin_token"), Type.Literal("operator_token"), Type.Literal("dashboard_user")],
    {
      description: "admin_token (the bootstrap ADMIN_TOKEN), operator_token (a named one) or dashboard_user.",
    },
  ),
  actorId: nullable(Type.String({ format: "uuid", description: "The operator token's or the user's id." })),
  actorName: Type.String({
    description: "The operator token's name, admin-token, or the dashboard user's email.",
    examples: ["somchai"],
  }),
  via: Type.Union(
    [Type.Literal("api"), Type.Literal("cli"), Type.Literal("desk"), Type.Literal("dashboard")],
    {
      description: "The tool used: the operator API, the CLI, the payout desk, or the dashboard.",
    },
  ),
  action: Type.String({ examples: ["recordPayoutOutcome"] }),
  recordType: Type.String({ examples: ["withdraw"] }),
  recordId: nullable(Type.String({ examples: ["5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84"] })),
  merchantId: nullable(Type.String({ format: "uuid" })),
  requestId: Type.String({
    description: "The X-Request-Id of the request: an id the service made (never one the caller sent)",
    examples: ["3f0c9a52-6d1e-4b7a-9c2f-8e5d1a7b4c60"],
  }),
  clientAddress: Type.String({ description: "The client's IP address.", examples: ["203.0.113.7"] }),
});
export type AuditEntry = Static<typeof AuditEntrySchema>;

export const AuditLogEnvelope = envelopeSchema(pageSchema(AuditEntrySchema));

/**
 * An entry as a merchant's dashboard shows it: the operator's network address is the operator's
 * business, not the merchant's, so an operator's entry carries none (its actor's name stays:
 * who acted on the merchant's record is the merchant's to know).
 */
export const MerchantAuditEntrySchema = Type.Object({
  ...AuditEntrySchema.properties,
  clientAddress: nullable(
    Type.String({
      description: "The client's IP address for the merchant's own users' actions; null for an operator's.",
      examples: ["203.0.113.7"],
    }),
  ),
});
export type MerchantAuditEntry = Static<typeof MerchantAuditEntrySchema>;

export const MerchantAuditLogEnvelope = envelopeSchema(pageSchema(MerchantAuditEntrySchema));
