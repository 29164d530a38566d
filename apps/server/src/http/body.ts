/**
 * Body parsing that keeps the raw text: signatures are computed over the bytes exactly as
 * sent, never over a re-serialized object. A body that is not a JSON object is not refused
 * here but remembered, so authentication still runs first and the refusal comes after it.
 *
 * Bytes that are not UTF-8 are the exception: they are refused at once (400 VALIDATION_ERROR,
 * before authentication), since no signature can be checked over text that has no characters.
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

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The body's text, decoded strictly: invalid UTF-8 is refused rather than replaced. */
function decode(body: Buffer): string {
  try {
    return strictUtf8.decode(body);
  } catch {
    throw new AppError("VALIDATION_ERROR", "Request body is not valid UTF-8", { field: "body" });
  }
}

/** A body that does not parse as JSON. */
export function invalidJsonBody(): AppError<"VALIDATION_ERROR"> {
  return new AppError("VALIDATION_ERROR", "Request body is not valid JSON", { field: "body" });
}

export function installBodyParsing(app: FastifyInstance): void {
  app.decorateRequest("rawBody", "");
  app.decorateRequest("bodyError", undefined);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/json",
    { parseAs: "buffer", bodyLimit: BODY_SIZE_MAX_BYTES },
    (request, body, done) => {
      let text: string;
      try {
        text = decode(body as Buffer);
      } catch (error) {
        done(error as AppError, undefined);
        return;
      }
      request.rawBody = text;
      if (text.trim() === "") {
        done(null, undefined);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        request.bodyError = invalidJsonBody();
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
    { parseAs: "buffer", bodyLimit: BODY_SIZE_MAX_BYTES },
    (request, body, done) => {
      try {
        request.rawBody = decode(body as Buffer);
      } catch (error) {
        done(error as AppError, undefined);
        return;
      }
      if (request.rawBody.length > 0) {
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

/**
 * For routes whose body is optional or empty (cancel, rotate, redeliver): an absent body is
 * validated as `{}`, so only fields that should not be there are refused. Runs as a route's
 * own preValidation hook, after the scope's authentication and `rejectUnparsedBody`.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
