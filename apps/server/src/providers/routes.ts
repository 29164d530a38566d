/**
 * Where providers send their callbacks: POST /providers/sandbox/callbacks for the simulated
 * bank (registered in sandbox only). No merchant credentials: the provider's own signature over
 * the raw body is the authentication, checked before anything in the body is trusted.
 *
 * A callback the service refuses (the transition is not allowed) is still answered 200 with
 * `result: "refused"`: it was received and recorded, and a provider retrying it would only be
 * refused again. A duplicate is answered 200 with the first delivery's result.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import type { Deps } from "../deps.ts";
import { ok } from "../http/envelope.ts";
import { receiveProviderCallback } from "../lifecycle/callbacks.ts";
import { CallbackResultEnvelope } from "../sandbox/schemas.ts";
import { sandboxProvider } from "./registry.ts";

export function providerCallbackRoutes(deps: Deps): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    if (deps.config.env !== "sandbox") return;

    app.post(
      "/sandbox/callbacks",
      {
        schema: {
          tags: ["providers"],
          summary: "Callback of the sandbox provider (signed with Sandbox-Signature)",
          response: { 200: CallbackResultEnvelope },
        },
      },
      async (request) => {
        const outcome = await receiveProviderCallback(deps, sandboxProvider(deps), {
          headers: request.headers,
          rawBody: request.rawBody,
        });
        return ok({
          callbackId: outcome.callbackId,
          duplicate: outcome.duplicate,
          result: outcome.result,
          reason: outcome.reason,
        });
      },
    );
  };
}
