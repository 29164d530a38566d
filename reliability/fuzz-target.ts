/**
 * Sending a request to any route of an in-process service with the credentials its scope wants:
 * HMAC v2 signatures for the merchant API, the operator token for /admin, a dashboard session
 * for /dashboard/api and logout, nothing for login, the hosted page and the operations routes.
 */
import { signRequest } from "@satang/sdk";
import type { LightMyRequestResponse } from "fastify";
import type { CatalogRoute } from "../apps/server/src/http/route-catalog.ts";
import { ADMIN_TOKEN, type TestService } from "../apps/server/test/helpers/harness.ts";

export type RouteGroup = "public" | "admin" | "dashboard" | "hosted" | "operations";

export function routeGroup(url: string): RouteGroup {
  if (url.startsWith("/api/v1/auth/") || url.startsWith("/dashboard")) return "dashboard";
  if (url.startsWith("/api/v1/openapi")) return "operations";
  if (url.startsWith("/api/v1/")) return "public";
  if (url.startsWith("/admin/v1/")) return "admin";
  if (url.startsWith("/pay/")) return "hosted";
  return "operations";
}

export interface Target {
  svc: TestService;
  dashboardToken: string;
}

export interface OutgoingRequest {
  method: string;
  /** Path with parameters filled in (already URL-encoded) and the query string. */
  url: string;
  /** A JSON value to send, or `{ raw }` to send exact text. */
  body?: unknown;
  raw?: string;
}

function credentialHeaders(
  target: Target,
  request: OutgoingRequest,
  payload: string,
): Record<string, string> {
  const path = request.url;
  if (path.startsWith("/admin/")) return { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (path.startsWith("/dashboard/api/") || path.startsWith("/api/v1/auth/logout")) {
    return { authorization: `Bearer ${target.dashboardToken}` };
  }
  if (path.startsWith("/api/v1/") && !path.startsWith("/api/v1/auth/")) {
    const { apiKey, apiSecret } = target.svc.credentials;
    return {
      ...signRequest({ apiKey, apiSecret, body: payload, method: request.method, path, version: "v2" }),
    };
  }
  return {};
}

export async function send(target: Target, request: OutgoingRequest): Promise<LightMyRequestResponse> {
  const payload = request.raw ?? (request.body === undefined ? "" : JSON.stringify(request.body));
  const headers: Record<string, string> = {
    ...credentialHeaders(target, request, payload),
    ...(payload !== "" ? { "content-type": "application/json" } : {}),
  };
  return target.svc.app.inject({ method: request.method as "GET", url: request.url, payload, headers });
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses with URIError) is sent as
 * the three bytes it would take in UTF-8 (`\ud800` -> `%ED%A0%80`): invalid UTF-8 in the path,
 * as a hostile client can send it.
 */
export function encodeSegment(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(LONE_SURROGATE)) {
    const unit = match[0].charCodeAt(0);
    const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
    out += encodeURIComponent(text.slice(last, match.index));
    out += bytes.map((byte) => `%${byte.toString(16).toUpperCase()}`).join("");
    last = match.index + 1;
  }
  return out + encodeURIComponent(text.slice(last));
}

/** `/payments/:payment_id` with `{ payment_id: "x y" }` -> `/payments/x%20y`. */
export function fillPath(route: CatalogRoute, params: Record<string, unknown>): string {
  return route.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    encodeSegment(String(params[name] ?? "x")),
  );
}

export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query || Object.keys(query).length === 0) return "";
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) search.append(key, typeof value === "string" ? value : JSON.stringify(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}
