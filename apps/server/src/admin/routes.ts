/**
 * The operator API (CONTRACT 2), mounted under /admin/v1: merchants and their integrations.
 * Each route is a schema and one service call; the operator check runs before the body is
 * looked at, in the scope app.ts mounts every operator route in. Ids that are not UUIDs
 * answer 404 like unknown ones, since they cannot name a record either.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { getBalance } from "../balance/service.ts";
import { emptyBodyAsObject } from "../http/body.ts";
import { ok, page } from "../http/envelope.ts";
import { documented } from "../http/openapi-errors.ts";
import type { App } from "../http/typed-app.ts";
import {
  createIntegration,
  type IntegrationContext,
  integrationRevoked,
  integrationView,
  listIntegrations,
  revokeIntegration,
  updateIntegration,
} from "../integrations/service.ts";
import { notFound } from "../lib/errors.ts";
import { PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import {
  createMerchant,
  getMerchant,
  type MerchantContext,
  merchantView,
  updateMerchant,
} from "../merchants/service.ts";
import {
  CreatedIntegrationEnvelope,
  CreateIntegrationBody,
  CreateMerchantBody,
  IdParams,
  IntegrationEnvelope,
  IntegrationListEnvelope,
  MerchantEnvelope,
  MerchantWithWalletEnvelope,
  merchantInputOf,
  PageQuery,
  UpdateIntegrationBody,
  UpdateMerchantBody,
} from "./schemas.ts";

const merchantMissing = documented("No merchant has this id", notFound("Merchant"));
const integrationMissing = documented("No integration has this id", notFound("Integration"));
const integrationRevokedExample = documented("The integration is revoked", integrationRevoked());

const TAGS = ["admin"];

export function adminRoutes(ctx: MerchantContext & IntegrationContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();

    createMerchantRoute(app, ctx);
    retrieveMerchantRoute(app, ctx);
    updateMerchantRoute(app, ctx);
    createIntegrationRoute(app, ctx);
    listIntegrationsRoute(app, ctx);
    updateIntegrationRoute(app, ctx);
    revokeIntegrationRoute(app, ctx);
  };
}

function createMerchantRoute(app: App, ctx: MerchantContext & IntegrationContext): void {
  app.post(
    "/merchants",
    {
      schema: {
        tags: TAGS,
        summary: "Create a merchant",
        operationId: "createMerchant",
        body: CreateMerchantBody,
        response: { 201: MerchantEnvelope },
      },
    },
    async (request, reply) => {
      const merchant = await createMerchant(ctx, merchantInputOf(request.body));
      return reply.code(201).send(ok(merchantView(merchant)));
    },
  );
}

function retrieveMerchantRoute(app: App, ctx: MerchantContext & IntegrationContext): void {
  app.get(
    "/merchants/:id",
    {
      schema: {
        tags: TAGS,
        summary: "Retrieve a merchant with its wallet (balance and status) and limits",
        operationId: "retrieveMerchant",
        params: IdParams,
        "x-errors": [merchantMissing],
        response: { 200: MerchantWithWalletEnvelope },
      },
    },
    async (request) => {
      const merchant = await getMerchant(ctx, request.params.id);
      return ok({ ...merchantView(merchant), wallet: await getBalance(ctx, merchant) });
    },
  );
}

function updateMerchantRoute(app: App, ctx: MerchantContext & IntegrationContext): void {
  app.patch(
    "/merchants/:id",
    {
      schema: {
        tags: TAGS,
        summary: "Change a merchant: null removes a limit, the threshold, the account or the PromptPay id",
        operationId: "updateMerchant",
        params: IdParams,
        "x-errors": [merchantMissing],
        body: UpdateMerchantBody,
        response: { 200: MerchantEnvelope },
      },
    },
    async (request) => {
      const merchant = await updateMerchant(ctx, request.params.id, merchantInputOf(request.body));
      return ok(merchantView(merchant));
    },
  );
}

function createIntegrationRoute(app: App, ctx: MerchantContext & IntegrationContext): void {
  app.post(
    "/merchants/:id/integrations",
    {
      schema: {
        tags: TAGS,
        summary: "Create an API key and secret for a merchant (the secret is shown only here)",
        operationId: "createIntegration",
        params: IdParams,
        "x-errors": [merchantMissing],
        body: CreateIntegrationBody,
        response: { 201: CreatedIntegrationEnvelope },
      },
      // Every field is optional, so a POST without a body means "all defaults" rather than an
      // error. This runs after the operator check and the body-parse check of the plugin.
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const body = request.body;
      const created = await createIntegration(ctx, request.params.id, {
        name: body.name ?? null,
        redirectUrl: body.redirectUrl ?? null,
        requireSignatureV2: body.requireSignatureV2 ?? false,
      });
      return reply.code(201).send(ok(created));
    },
  );
}

function listIntegrationsRoute(app: App, ctx: MerchantContext & IntegrationContext): void {
  app.get(
    "/merchants/:id/integrations",
    {
      schema: {
        tags: TAGS,
        summary: "List a merchant's integrations, revoked ones included, never their secrets",
        operationId: "listIntegrations",
        params: IdParams,
        "x-errors": [merchantMissing],
        querystring: PageQuery,
        response: { 200: IntegrationListEnvelope },
      },
    },
    async (request) => {
      const pageNumber = request.query.page ?? 1;
      const limit = request.query.limit ?? PAGE_SIZE_DEFAULT;
      const { records, total } = await listIntegrations(ctx, request.params.id, pageNumber, limit);
      return ok(page(records, total, pageNumber, limit));
    },
  );
}

function updateIntegrationRoute(app: App, ctx: MerchantContext & IntegrationContext): void {
  app.patch(
    "/integrations/:id",
    {
      schema: {
        tags: TAGS,
        summary: "Change an integration: its name, redirectUrl, or requireSignatureV2",
        operationId: "updateIntegration",
        description:
          "requireSignatureV2: true refuses v1 signatures for the key from its next request on " +
          "this process and within a second on every other (CONTRACT 3). A revoked integration is " +
          "409 STATE_CONFLICT (reason revoked).",
        params: IdParams,
        "x-errors": [integrationMissing, integrationRevokedExample],
        body: UpdateIntegrationBody,
        response: { 200: IntegrationEnvelope },
      },
    },
    async (request) => {
      const { name, redirectUrl, requireSignatureV2 } = request.body;
      const updated = await updateIntegration(ctx, request.params.id, {
        name,
        redirectUrl,
        requireSignatureV2,
      });
      return ok(integrationView(updated));
    },
  );
}

function revokeIntegrationRoute(app: App, ctx: MerchantContext & IntegrationContext): void {
  app.delete(
    "/integrations/:id",
    {
      schema: {
        tags: TAGS,
        summary: "Revoke an integration: its key stops working at once",
        operationId: "revokeIntegration",
        params: IdParams,
        "x-errors": [integrationMissing],
        response: { 200: IntegrationEnvelope },
      },
    },
    async (request) => {
      const revoked = await revokeIntegration(ctx, request.params.id);
      return ok(integrationView(revoked));
    },
  );
}
