/**
 * Where connectors' providers post their notices (CONTRACT 15):
 * `POST /providers/{name}/confirmations/{token}`, `name` a connector of the deployment
 * (providers/registry.ts) and `token` its callback token (each connector's setting, config.ts).
 * An unknown name or a wrong token answers 404 (compared in constant time). What a notice does
 * is notices.ts's; the answer is the connector's acknowledgment, the body its provider expects
 * back. Registered only when a connector takes notices.
 */
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginAsync } from "fastify";
import { Type } from "typebox";
import { AppError } from "../lib/errors.ts";
import type { CollectionsContext } from "./collections.ts";
import { noticeConnector, receiveNotice, takesNotices } from "./notices.ts";

export function noticeRoutes(ctx: CollectionsContext): FastifyPluginAsync {
  return async (plugin) => {
    if (!takesNotices(ctx.connectors.all)) return;
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      "/:name/confirmations/:token",
      {
        schema: {
          tags: ["providers"],
          summary: "A connector's payment notice (checked with the provider before anything is credited)",
          params: Type.Object({ name: Type.String(), token: Type.String() }),
        },
      },
      async (request) => {
        const connector = noticeConnector(ctx, request.params.name, request.params.token);
        if (!connector) throw new AppError("RESOURCE_NOT_FOUND", "Resource not found");
        // Bytes that are not UTF-8 carry no notice (http/body.ts keeps no text of them).
        if (request.rawBytes !== undefined && request.bodyError) throw request.bodyError;
        return receiveNotice(ctx, connector, { rawBody: request.rawBody, headers: request.headers });
      },
    );
  };
}
