/**
 * The webhook endpoints API under /api/v1/webhook-endpoints and the events API under
 * /api/v1/events (CONTRACT 12). HMAC authentication runs before these handlers (app.ts); each
 * route is its schema and one service call.
 */

import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { merchantOf } from "../http/auth.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import { documented } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointContext,
  endpointNotFound,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from "./endpoints.ts";
import {
  CreateEndpointBody,
  EmptyBody,
  EndpointEnvelope,
  EndpointIdParams,
  EndpointListEnvelope,
  EndpointWithSecretEnvelope,
  EventEnvelope,
  EventIdParams,
  EventListEnvelope,
  ListEventsQuery,
  PageQuery,
  RedeliverBody,
  RedeliveryEnvelope,
  UpdateEndpointBody,
} from "./schemas.ts";
import {
  type EventContext,
  endpointDisabled,
  endpointNotSubscribed,
  eventNotFound,
  getEvent,
  listEvents,
  noSubscribedEndpoint,
  redeliverEvent,
} from "./service.ts";

const endpointMissing = documented("No webhook endpoint of this merchant has this id", endpointNotFound());
const eventMissing = documented("No event of this merchant has this id", eventNotFound());

const ENDPOINT_TAGS = ["webhooks"];
const EVENT_TAGS = ["events"];

export function webhookEndpointRoutes(ctx: EndpointContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    createEndpointRoute(app, ctx);
    listEndpointsRoute(app, ctx);
    retrieveEndpointRoute(app, ctx);
    updateEndpointRoute(app, ctx);
    deleteEndpointRoute(app, ctx);
    rotateSecretRoute(app, ctx);
  };
}

export function eventRoutes(ctx: EventContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    listEventsRoute(app, ctx);
    retrieveEventRoute(app, ctx);
    redeliverRoute(app, ctx);
  };
}

function createEndpointRoute(app: App, ctx: EndpointContext): void {
  app.post(
    "/",
    {
      schema: {
        tags: ENDPOINT_TAGS,
        summary: "Create webhook endpoint",
        operationId: "createWebhookEndpoint",
        description:
          "201 with the endpoint and its signing secret (whsec_...), shown only here. Events are " +
          "POSTed to the URL following the Standard Webhooks specification.",
        body: CreateEndpointBody,
        response: { 201: EndpointWithSecretEnvelope },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return ok(await createEndpoint(ctx, merchantOf(request), request.body));
    },
  );
}

function listEndpointsRoute(app: App, ctx: EndpointContext): void {
  app.get(
    "/",
    {
      schema: {
        tags: ENDPOINT_TAGS,
        summary: "List webhook endpoints",
        operationId: "listWebhookEndpoints",
        description: "Newest first. Secrets are never listed.",
        querystring: PageQuery,
        response: { 200: EndpointListEnvelope },
      },
    },
    async (request) => ok(await listEndpoints(ctx, merchantOf(request), request.query)),
  );
}

function retrieveEndpointRoute(app: App, ctx: EndpointContext): void {
  app.get(
    "/:id",
    {
      schema: {
        tags: ENDPOINT_TAGS,
        summary: "Retrieve webhook endpoint",
        operationId: "retrieveWebhookEndpoint",
        params: EndpointIdParams,
        "x-errors": [endpointMissing],
        response: { 200: EndpointEnvelope },
      },
    },
    async (request) => ok(await getEndpoint(ctx, merchantOf(request), request.params.id)),
  );
}

function updateEndpointRoute(app: App, ctx: EndpointContext): void {
  app.patch(
    "/:id",
    {
      schema: {
        tags: ENDPOINT_TAGS,
        summary: "Disable or enable webhook endpoint",
        operationId: "updateWebhookEndpoint",
        description:
          '{ "disabled": true } stops deliveries to the endpoint at once (its pending deliveries are ' +
          "canceled, and no event is queued for it while it is disabled) and keeps its URL, secret " +
          'and history; { "disabled": false } enables it again for the events made from then on. ' +
          "Missed events can be redelivered by event id. Repeating either is harmless.",
        params: EndpointIdParams,
        body: UpdateEndpointBody,
        "x-errors": [endpointMissing],
        response: { 200: EndpointEnvelope },
      },
    },
    async (request) => ok(await updateEndpoint(ctx, merchantOf(request), request.params.id, request.body)),
  );
}

function deleteEndpointRoute(app: App, ctx: EndpointContext): void {
  app.delete(
    "/:id",
    {
      schema: {
        tags: ENDPOINT_TAGS,
        summary: "Delete webhook endpoint",
        operationId: "deleteWebhookEndpoint",
        description: "Stops deliveries to it at once; its pending deliveries are canceled.",
        params: EndpointIdParams,
        "x-errors": [endpointMissing],
        response: { 200: EndpointEnvelope },
      },
    },
    async (request) => ok(await deleteEndpoint(ctx, merchantOf(request), request.params.id)),
  );
}

function rotateSecretRoute(app: App, ctx: EndpointContext): void {
  app.post(
    "/:id/rotate-secret",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags: ENDPOINT_TAGS,
        summary: "Rotate the signing secret",
        operationId: "rotateWebhookEndpointSecret",
        description:
          "200 with the new secret, shown only here. For 24 hours deliveries carry two signatures, " +
          "one per secret, so receivers can switch over without failing verification.",
        params: EndpointIdParams,
        "x-errors": [endpointMissing],
        body: EmptyBody,
        response: { 200: EndpointWithSecretEnvelope },
      },
    },
    async (request) => ok(await rotateEndpointSecret(ctx, merchantOf(request), request.params.id)),
  );
}

function listEventsRoute(app: App, ctx: EventContext): void {
  app.get(
    "/",
    {
      schema: {
        tags: EVENT_TAGS,
        summary: "List events",
        operationId: "listEvents",
        description: "Newest first (sortOrder=asc for oldest first); ties are broken by id.",
        querystring: ListEventsQuery,
        response: { 200: EventListEnvelope },
      },
    },
    async (request) => ok(await listEvents(ctx, merchantOf(request), request.query)),
  );
}

function retrieveEventRoute(app: App, ctx: EventContext): void {
  app.get(
    "/:id",
    {
      schema: {
        tags: EVENT_TAGS,
        summary: "Retrieve event with its deliveries",
        operationId: "retrieveEvent",
        description: "The event as webhooks send it, plus every delivery and its attempt log.",
        params: EventIdParams,
        "x-errors": [eventMissing],
        response: { 200: EventEnvelope },
      },
    },
    async (request) => ok(await getEvent(ctx, merchantOf(request), request.params.id)),
  );
}

function redeliverRoute(app: App, ctx: EventContext): void {
  app.post(
    "/:id/redeliver",
    {
      preValidation: emptyBodyAsObject,
      schema: {
        tags: EVENT_TAGS,
        summary: "Redeliver event",
        operationId: "redeliverEvent",
        description:
          "202: schedules a new delivery, sent at once, to every endpoint that subscribes to the " +
          "event now, or to the one endpointId. 409 STATE_CONFLICT when no endpoint subscribes.",
        params: EventIdParams,
        "x-errors": [
          eventMissing,
          documented("The endpointId names no webhook endpoint of this merchant", endpointNotFound()),
          documented(
            "The endpointId's endpoint does not subscribe to the event's type",
            endpointNotSubscribed("payment.received"),
          ),
          documented("No endpoint subscribes to the event's type", noSubscribedEndpoint("payment.received")),
          documented("The endpointId's endpoint is disabled", endpointDisabled()),
        ],
        body: RedeliverBody,
        response: { 202: RedeliveryEnvelope },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return ok(await redeliverEvent(ctx, merchantOf(request), request.params.id, request.body));
    },
  );
}
