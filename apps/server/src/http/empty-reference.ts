/**
 * `GET /api/v1/{payments,withdraws}/by-reference/` with nothing after the slash. The router
 * ignores a trailing slash, so without this route the request would reach `/:id` with the id
 * "by-reference" and answer 404 RESOURCE_NOT_FOUND; interface.md makes a malformed reference
 * (it must be 1-255 characters) 400 VALIDATION_ERROR, the same answer as any other malformed one.
 *
 * A static segment outranks a parameter in the router, so the list (`/`) and retrieve by id
 * (`/:id`) are untouched. The route is left out of the OpenAPI document: it is the by-reference
 * operation with an empty parameter, not an operation of its own.
 */
import { fieldError } from "../lib/errors.ts";
import { REFERENCE_MESSAGE } from "./fields.ts";
import type { App } from "./typed-app.ts";

export function emptyReferenceRoute(app: App): void {
  app.get("/by-reference", { schema: { hide: true } }, async () => {
    throw fieldError("VALIDATION_ERROR", "referenceId", `referenceId ${REFERENCE_MESSAGE}`);
  });
}
