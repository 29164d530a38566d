/**
 * Body parsing that keeps the raw text: signatures are computed over the bytes exactly as
 * sent, never over a re-serialized object. A body that is not a JSON object is not refused
 * here but remembered, so authentication still runs first and the refusal comes after it.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../lib/errors.ts";
import { BODY_SIZE_MAX_BYTES } from "../lib/limits.ts";

declare module "fastify" {
  interface FastifyRequest {
    rawBody: string;
    bodyError: AppError | undefined;
  }
}

export function installBodyParsing(app: FastifyInstance): void {
  app.decorateRequest("rawBody", "");
  app.decorateRequest("bodyError", undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/json",
    { parseAs: "string", bodyLimit: BODY_SIZE_MAX_BYTES },
    (request, body, done) => {
      const text = body as string;
      request.rawBody = text;
      if (text.trim() === "") {
        done(null, undefined);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        request.bodyError = new AppError("VALIDATION_ERROR", "Request body is not valid JSON", {
          field: "body",
        });
        done(null, undefined);
        return;
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
        request.bodyError = new AppError("VALIDATION_ERROR", "Request body must be a JSON object", {
          field: "body",
        });
        done(null, undefined);
        return;
      }
      done(null, parsed);
    },
  );
  app.addContentTypeParser(
    "*",
    { parseAs: "string", bodyLimit: BODY_SIZE_MAX_BYTES },
    (request, body, done) => {
      request.rawBody = body as string;
      if ((body as string).length > 0) {
        request.bodyError = new AppError("VALIDATION_ERROR", "Content-Type must be application/json", {
          field: "Content-Type",
        });
      }
      done(null, undefined);
    },
  );
}

/** Throws the remembered body error; runs after authentication. */
export async function rejectUnparsedBody(request: FastifyRequest): Promise<void> {
  if (request.bodyError) throw request.bodyError;
}
