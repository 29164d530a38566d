/**
 * Request and response schemas of the webhook endpoints API and the events API (CONTRACT 12),
 * written once: they validate requests, type the handlers and feed the OpenAPI document.
 * Body properties are listed in the order their errors should be reported.
 */
import { type Static, Type } from "typebox";
import { EVENT_TYPES, WEBHOOK_DELIVERY_STATUSES } from "../db/types.ts";
import {
  dateFromProperty,
  dateToProperty,
  limitProperty,
  pageProperty,
  pageSchema,
  sortByProperty,
  sortOrderProperty,
  stringEnum,
} from "../http/list-query.ts";
import { URL_LENGTH_MAX, WEBHOOK_DESCRIPTION_LENGTH_MAX } from "../lib/limits.ts";
import { ATTEMPT_ERROR_CODES } from "./attempt-errors.ts";

export const ALL_EVENTS = "*";
const SUBSCRIBABLE = [...EVENT_TYPES, ALL_EVENTS] as const;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const timestamp = Type.String({ format: "date-time" });
const uuid = Type.String({ format: "uuid" });

export const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: URL_LENGTH_MAX,
      description:
        "Where events are POSTed. https (live requires it; sandbox also accepts http). Every address " +
        "the host resolves to must be public: loopback, private, link-local and metadata addresses " +
        "are refused (sandbox may allow loopback); a host that does not resolve is refused too, so the " +
        "example's `shop.example` (a reserved name) stands for your own host.",
      examples: ["https://shop.example/webhooks/satang"],
    }),
    events: Type.Array(stringEnum(SUBSCRIBABLE), {
      minItems: 1,
      maxItems: SUBSCRIBABLE.length,
      uniqueItems: true,
      description: `Event types to receive, or ["*"] for all: ${EVENT_TYPES.join(", ")}.`,
    }),
    // null, as the endpoint record shows an endpoint without one, is no description.
    description: Type.Optional(
      Type.Union([Type.String({ maxLength: WEBHOOK_DESCRIPTION_LENGTH_MAX }), Type.Null()]),
    ),
  },
  { additionalProperties: false },
);
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const UpdateEndpointBody = Type.Object(
  {
    disabled: Type.Boolean({
      description:
        "true disables the endpoint: events are not sent to it (none is queued for it while it is " +
        "disabled) and its pending deliveries are canceled. false enables it again: events from " +
        "then on are sent. Missed events can be sent with POST /api/v1/events/{id}/redeliver.",
    }),
  },
  { additionalProperties: false },
);
export type UpdateEndpointBody = Static<typeof UpdateEndpointBody>;

export const EndpointIdParams = Type.Object({
  id: Type.String({ description: "Webhook endpoint UUID" }),
});

export const EventIdParams = Type.Object({
  id: Type.String({ description: "Event UUID" }),
});

/** Rotate takes no body; an empty JSON object is accepted, any field is refused. */
export const EmptyBody = Type.Object({}, { additionalProperties: false });

export const RedeliverBody = Type.Object(
  {
    endpointId: Type.Optional(
      Type.String({
        format: "uuid",
        description: "Only this endpoint; by default every endpoint that subscribes to the event now.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type RedeliverBody = Static<typeof RedeliverBody>;

export { PageQuery } from "../http/list-query.ts";

export const ListEventsQuery = Type.Object({
  page: Type.Optional(pageProperty),
  limit: Type.Optional(limitProperty),
  type: Type.Optional(stringEnum(EVENT_TYPES)),
  dateFrom: Type.Optional(dateFromProperty),
  dateTo: Type.Optional(dateToProperty),
  // Events sort by when they happened; the field is taken so a list call written for the other
  // lists works here, and an unknown one is refused as there (CONTRACT 11).
  sortBy: Type.Optional(sortByProperty(["createdAt"], "createdAt")),
  sortOrder: Type.Optional(sortOrderProperty),
});
export type ListEventsQuery = Static<typeof ListEventsQuery>;

/** The dashboard's list of deliveries (CONTRACT 13): every endpoint's, filtered and paged. */
export const ListDeliveriesQuery = Type.Object({
  page: Type.Optional(pageProperty),
  limit: Type.Optional(limitProperty),
  status: Type.Optional(stringEnum(WEBHOOK_DELIVERY_STATUSES)),
  eventType: Type.Optional(stringEnum(EVENT_TYPES)),
  endpointId: Type.Optional(uuid),
  dateFrom: Type.Optional(dateFromProperty),
  dateTo: Type.Optional(dateToProperty),
  sortBy: Type.Optional(sortByProperty(["createdAt"], "createdAt")),
  sortOrder: Type.Optional(sortOrderProperty),
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

// Responses

const EndpointSchema = Type.Object({
  id: uuid,
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: nullable(Type.String()),
  disabled: Type.Boolean({
    description: "true while the endpoint is disabled: it receives no events until it is enabled again.",
  }),
  disabledAt: nullable({ ...timestamp, description: "When it was disabled; null while enabled." }),
  previousSecretExpiresAt: nullable(timestamp),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const EndpointWithSecretSchema = Type.Object({
  ...EndpointSchema.properties,
  secret: Type.String({
    description: "whsec_ + base64 of 32 random bytes. Shown only in this response: store it now.",
  }),
});

const EventSchema = Type.Object({
  id: uuid,
  type: stringEnum(EVENT_TYPES),
  createdAt: timestamp,
  data: Type.Object({
    object: Type.Unsafe<Record<string, unknown>>({
      type: "object",
      additionalProperties: true,
      description: "The full payment or withdraw record at the time of the event.",
    }),
  }),
});

const AttemptSchema = Type.Object({
  attemptNumber: Type.Integer({ minimum: 1 }),
  succeeded: Type.Boolean(),
  statusCode: nullable(Type.Integer()),
  durationMs: Type.Integer({ minimum: 0 }),
  error: nullable(Type.String()),
  errorCode: nullable(stringEnum(ATTEMPT_ERROR_CODES)),
  responseExcerpt: nullable(Type.String({ description: "The start of the receiver's answer, at most 1 KB" })),
  startedAt: timestamp,
  finishedAt: timestamp,
  nextRetryAt: nullable(timestamp),
});

/** What a delivery says of itself, in the event's page and in the list of every delivery. */
const deliveryOutcome = {
  status: stringEnum(WEBHOOK_DELIVERY_STATUSES),
  attemptCount: Type.Integer({ minimum: 0 }),
  nextAttemptAt: nullable(timestamp),
  lastStatusCode: nullable(Type.Integer()),
  lastError: nullable(Type.String()),
  createdAt: timestamp,
  completedAt: nullable(timestamp),
};

const DeliverySchema = Type.Object({
  id: uuid,
  endpointId: uuid,
  ...deliveryOutcome,
  attempts: Type.Array(AttemptSchema),
});

/** A delivery in the list of every delivery: its event's type and its endpoint's address beside it. */
const ListedDeliverySchema = Type.Object({
  id: uuid,
  eventId: uuid,
  eventType: stringEnum(EVENT_TYPES),
  endpointId: uuid,
  endpointUrl: Type.String(),
  ...deliveryOutcome,
});

const EventWithDeliveriesSchema = Type.Object({
  ...EventSchema.properties,
  deliveries: Type.Array(DeliverySchema),
});

const RedeliverySchema = Type.Object({
  eventId: uuid,
  deliveries: Type.Array(DeliverySchema),
});

const envelope = <T extends Parameters<typeof Type.Object>[0][string]>(data: T) =>
  Type.Object({ success: Type.Literal(true), data });

export const EndpointEnvelope = envelope(EndpointSchema);
export const EndpointWithSecretEnvelope = envelope(EndpointWithSecretSchema);
export const EndpointListEnvelope = envelope(pageSchema(EndpointSchema));
export const EventEnvelope = envelope(EventWithDeliveriesSchema);
export const EventListEnvelope = envelope(pageSchema(EventSchema));
export const DeliveryListEnvelope = envelope(pageSchema(ListedDeliverySchema));
export const RedeliveryEnvelope = envelope(RedeliverySchema);
