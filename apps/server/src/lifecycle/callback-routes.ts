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
import { ok } from "../http/envelope.ts";
import { receiveProviderCallback } from "./callbacks.ts";
import type { LifecycleContext } from "./context.ts";
import { CallbackResultEnvelope } from "./schemas.ts";

export function providerCallbackRoutes(ctx: LifecycleContext): FastifyPluginAsync {
  return async (plugin) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    // Only the sandbox's simulated bank sends callbacks today; live has no bank adapter yet.
    const bank = ctx.simulator;
    if (!bank) return;

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
        const outcome = await receiveProviderCallback(ctx, bank, {
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
