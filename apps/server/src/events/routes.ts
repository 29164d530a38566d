/**
 * The webhook endpoints API under /api/v1/webhook-endpoints and the events API under
 * /api/v1/events (CONTRACT 12). HMAC authentication runs before these handlers (app.ts); each
 * route is its schema and one service call.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { Deps } from "../deps.ts";
import { authOf } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
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
} from "./schemas.ts";
import { getEvent, listEvents, redeliverEvent } from "./service.ts";

/** A POST without a body is validated as `{}`, so only extra fields are refused. */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export function webhookEndpointRoutes(deps: Deps): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ["webhooks"];

    app.post(
      "/",
      {
        schema: {
          tags,
          summary: "Create webhook endpoint",
          description:
            "201 with the endpoint and its signing secret (whsec_...), shown only here. Events are " +
            "POSTed to the URL following the Standard Webhooks specification.",
          body: CreateEndpointBody,
          response: { 201: EndpointWithSecretEnvelope },
        },
      },
      async (request, reply) => {
        reply.code(201);
        return ok(await createEndpoint(deps, authOf(request), request.body));
      },
    );

    app.get(
      "/",
      {
        schema: {
          tags,
          summary: "List webhook endpoints",
          description: "Newest first. Secrets are never listed.",
          querystring: PageQuery,
          response: { 200: EndpointListEnvelope },
        },
      },
      async (request) => ok(await listEndpoints(deps, authOf(request), request.query)),
    );

    app.get(
      "/:id",
      {
        schema: {
          tags,
          summary: "Retrieve webhook endpoint",
          params: EndpointIdParams,
          response: { 200: EndpointEnvelope },
        },
      },
      async (request) => ok(await getEndpoint(deps, authOf(request), request.params.id)),
    );

    app.delete(
      "/:id",
      {
        schema: {
          tags,
          summary: "Delete webhook endpoint",
          description: "Stops deliveries to it at once; its pending deliveries are canceled.",
          params: EndpointIdParams,
          response: { 200: EndpointEnvelope },
        },
      },
      async (request) => ok(await deleteEndpoint(deps, authOf(request), request.params.id)),
    );

    app.post(
      "/:id/rotate-secret",
      {
        preValidation: emptyBodyAsObject,
        schema: {
          tags,
          summary: "Rotate the signing secret",
          description:
            "200 with the new secret, shown only here. For 24 hours deliveries carry two signatures, " +
            "one per secret, so receivers can switch over without failing verification.",
          params: EndpointIdParams,
          body: EmptyBody,
          response: { 200: EndpointWithSecretEnvelope },
        },
      },
      async (request) => ok(await rotateEndpointSecret(deps, authOf(request), request.params.id)),
    );
  };
}

export function eventRoutes(deps: Deps): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ["events"];

    app.get(
      "/",
      {
        schema: {
          tags,
          summary: "List events",
          description: "Newest first (sortOrder=asc for oldest first); ties are broken by id.",
          querystring: ListEventsQuery,
          response: { 200: EventListEnvelope },
        },
      },
      async (request) => ok(await listEvents(deps, authOf(request), request.query)),
    );

    app.get(
      "/:id",
      {
        schema: {
          tags,
          summary: "Retrieve event with its deliveries",
          description: "The event as webhooks send it, plus every delivery and its attempt log.",
          params: EventIdParams,
          response: { 200: EventEnvelope },
        },
      },
      async (request) => ok(await getEvent(deps, authOf(request), request.params.id)),
    );

    app.post(
      "/:id/redeliver",
      {
        preValidation: emptyBodyAsObject,
        schema: {
          tags,
          summary: "Redeliver event",
          description:
            "202: schedules a new delivery, sent at once, to every endpoint that subscribes to the " +
            "event now, or to the one endpointId. 409 STATE_CONFLICT when no endpoint subscribes.",
          params: EventIdParams,
          body: RedeliverBody,
          response: { 202: RedeliveryEnvelope },
        },
      },
      async (request, reply) => {
        reply.code(202);
        return ok(await redeliverEvent(deps, authOf(request), request.params.id, request.body));
      },
    );
  };
}
