/**
 * The operator API (CONTRACT 2), mounted under /admin/v1: merchants and their integrations.
 * Each route is a schema, the operator check and one service call. Ids that are not UUIDs
 * answer 404 like unknown ones, since they cannot name a record either.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import type { Deps } from "../deps.ts";
import { rejectUnparsedBody } from "../http/body.ts";
import { ok, page } from "../http/envelope.ts";
import {
  createIntegration,
  integrationView,
  listIntegrations,
  revokeIntegration,
} from "../integrations/service.ts";
import { PAGE_SIZE_DEFAULT } from "../lib/limits.ts";
import { createMerchant, getMerchant, merchantView, updateMerchant } from "../merchants/service.ts";
import { adminAuthentication } from "./auth.ts";
import {
  CreatedIntegrationEnvelope,
  CreateIntegrationBody,
  CreateMerchantBody,
  IdParams,
  IntegrationEnvelope,
  IntegrationListEnvelope,
  MerchantEnvelope,
  merchantInputOf,
  PageQuery,
  UpdateMerchantBody,
} from "./schemas.ts";

const TAGS = ["admin"];

export function adminRoutes(deps: Deps): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // The operator check runs before the body is looked at, so an unauthenticated caller learns
    // nothing from validation errors.
    app.addHook("preValidation", adminAuthentication(deps));
    app.addHook("preValidation", rejectUnparsedBody);

    app.post(
      "/merchants",
      {
        schema: {
          tags: TAGS,
          summary: "Create a merchant",
          body: CreateMerchantBody,
          response: { 201: MerchantEnvelope },
        },
      },
      async (request, reply) => {
        const merchant = await createMerchant(deps, merchantInputOf(request.body));
        return reply.code(201).send(ok(merchantView(merchant)));
      },
    );

    app.get(
      "/merchants/:id",
      {
        schema: {
          tags: TAGS,
          summary: "Retrieve a merchant with its wallet status and limits",
          params: IdParams,
          response: { 200: MerchantEnvelope },
        },
      },
      async (request) => {
        const merchant = await getMerchant(deps, request.params.id);
        return ok(merchantView(merchant));
      },
    );

    app.patch(
      "/merchants/:id",
      {
        schema: {
          tags: TAGS,
          summary: "Change a merchant: null removes a limit, the threshold, the account or the PromptPay id",
          params: IdParams,
          body: UpdateMerchantBody,
          response: { 200: MerchantEnvelope },
        },
      },
      async (request) => {
        const merchant = await updateMerchant(deps, request.params.id, merchantInputOf(request.body));
        return ok(merchantView(merchant));
      },
    );

    app.post(
      "/merchants/:id/integrations",
      {
        schema: {
          tags: TAGS,
          summary: "Create an API key and secret for a merchant (the secret is shown only here)",
          params: IdParams,
          body: CreateIntegrationBody,
          response: { 201: CreatedIntegrationEnvelope },
        },
        // Every field is optional, so a POST without a body means "all defaults" rather than an
        // error. This runs after the operator check and the body-parse check of the plugin.
        preValidation: async (request) => {
          if (request.body === undefined) (request as { body: unknown }).body = {};
        },
      },
      async (request, reply) => {
        const body = request.body;
        const created = await createIntegration(deps, request.params.id, {
          name: body.name ?? null,
          redirectUrl: body.redirectUrl ?? null,
          requireSignatureV2: body.requireSignatureV2 ?? false,
        });
        return reply.code(201).send(ok(created));
      },
    );

    app.get(
      "/merchants/:id/integrations",
      {
        schema: {
          tags: TAGS,
          summary: "List a merchant's integrations, revoked ones included, never their secrets",
          params: IdParams,
          querystring: PageQuery,
          response: { 200: IntegrationListEnvelope },
        },
      },
      async (request) => {
        const pageNumber = request.query.page ?? 1;
        const limit = request.query.limit ?? PAGE_SIZE_DEFAULT;
        const { records, total } = await listIntegrations(deps, request.params.id, pageNumber, limit);
        return ok(page(records, total, pageNumber, limit));
      },
    );

    app.delete(
      "/integrations/:id",
      {
        schema: {
          tags: TAGS,
          summary: "Revoke an integration: its key stops working at once",
          params: IdParams,
          response: { 200: IntegrationEnvelope },
        },
      },
      async (request) => {
        const revoked = await revokeIntegration(deps, request.params.id);
        return ok(integrationView(revoked));
      },
    );
  };
}
