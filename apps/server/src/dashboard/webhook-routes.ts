/**
 * Webhook endpoints managed from the dashboard: create (the secret is in that answer only),
 * rotate the secret, disable and enable, delete, and send a test event. Each route calls the same service as the
 * public /api/v1/webhook-endpoints route (events/endpoints.ts), with the same body schemas, so
 * URL rules, limits and refusals are exactly the API's. Registered inside dashboardApiRoutes,
 * whose session hook guards them; another merchant's endpoint is 404 like a missing one.
 */
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointContext,
  rotateEndpointSecret,
  updateEndpoint,
} from "../events/endpoints.ts";
import {
  CreateEndpointBody,
  EmptyBody,
  EndpointEnvelope,
  EndpointIdParams,
  EndpointWithSecretEnvelope,
  UpdateEndpointBody,
} from "../events/schemas.ts";
import { sendTestEvent } from "../events/test-event.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok } from "../http/envelope.ts";
import type { App } from "../http/typed-app.ts";
import { TestEventEnvelope } from "./schemas.ts";
import { sessionOf } from "./sessions.ts";

export function webhookEndpointRoutes(app: App, ctx: EndpointContext): void {
  app.post(
    "/webhook-endpoints",
    { schema: { body: CreateEndpointBody, response: { 201: EndpointWithSecretEnvelope } } },
    async (request, reply) => {
      const created = await createEndpoint(ctx, sessionOf(request).merchant, request.body);
      // The secret is in this response only; nothing between here and the browser keeps it.
      return reply.code(201).send(ok(created));
    },
  );
  app.post(
    "/webhook-endpoints/:id/rotate-secret",
    {
      preValidation: emptyBodyAsObject,
      schema: { params: EndpointIdParams, body: EmptyBody, response: { 200: EndpointWithSecretEnvelope } },
    },
    async (request) => ok(await rotateEndpointSecret(ctx, sessionOf(request).merchant, request.params.id)),
  );
  app.patch(
    "/webhook-endpoints/:id",
    { schema: { params: EndpointIdParams, body: UpdateEndpointBody, response: { 200: EndpointEnvelope } } },
    async (request) =>
      ok(await updateEndpoint(ctx, sessionOf(request).merchant, request.params.id, request.body)),
  );
  app.delete(
    "/webhook-endpoints/:id",
    { schema: { params: EndpointIdParams, response: { 200: EndpointEnvelope } } },
    async (request) => ok(await deleteEndpoint(ctx, sessionOf(request).merchant, request.params.id)),
  );
  app.post(
    "/webhook-endpoints/:id/test",
    {
      preValidation: emptyBodyAsObject,
      schema: { params: EndpointIdParams, body: EmptyBody, response: { 200: TestEventEnvelope } },
    },
    async (request) => ok(await sendTestEvent(ctx, sessionOf(request).merchant, request.params.id)),
  );
}
