/**
 * Where SCB posts payment confirmations (CONTRACT 15):
 * `POST /providers/scb/confirmations/{SCB_CALLBACK_TOKEN}`, registered only when
 * SATANG_PROVIDER=scb. The token keeps strangers out (a wrong one answers 404, compared in
 * constant time); it is not what makes a payment count: scb-collection.ts checks every
 * confirmation with SCB's inquiry before anything is credited. The answer is SCB's
 * acknowledgment, `{ resCode: "00", resDesc: "success", transactionId }`. Each confirmation with
 * the right token is recorded as an inbound exchange for the operator (scb-inbound.ts).
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { Type } from "typebox";
import { AppError } from "../lib/errors.ts";
import type { LifecycleContext } from "./context.ts";
import { isCallbackToken } from "./scb-collection.ts";
import { receiveRecordedConfirmation } from "./scb-inbound.ts";

const ConfirmationAck = Type.Object({
  resCode: Type.String(),
  resDesc: Type.String(),
  transactionId: Type.String(),
});

export function scbConfirmationRoutes(ctx: LifecycleContext): FastifyPluginAsync {
  return async (plugin) => {
    if (!ctx.scb || !ctx.config.scb) return;
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      "/scb/confirmations/:token",
      {
        schema: {
          tags: ["providers"],
          summary: "SCB payment confirmation (checked with SCB's inquiry before anything is credited)",
          params: Type.Object({ token: Type.String() }),
          response: { 200: ConfirmationAck },
        },
      },
      async (request) => {
        if (!isCallbackToken(ctx, request.params.token)) {
          throw new AppError("RESOURCE_NOT_FOUND", "Resource not found");
        }
        return receiveRecordedConfirmation(ctx, { rawBody: request.rawBody, headers: request.headers });
      },
    );
  };
}
