/** Requests signed with a merchant's key (v2), for `app.inject`. */
import { signRequest } from "@satang/sdk";
import type { Credentials } from "./harness.ts";

/** A v2-signed request: a JSON `body` for POST, none for GET. */
export function signedInject(
  credentials: Credentials,
  method: "GET" | "POST",
  path: string,
  body = "",
): { method: "GET" | "POST"; url: string; payload?: string; headers: Record<string, string> } {
  const headers: Record<string, string> = {
    ...signRequest({ ...credentials, body, method, path, version: "v2" }),
  };
  if (method === "GET") return { method, url: path, headers };
  return { method, url: path, payload: body, headers: { ...headers, "content-type": "application/json" } };
}

/** A v2-signed create payment with `body`. */
export const signedCreate = (credentials: Credentials, body: string) =>
  signedInject(credentials, "POST", "/api/v1/payments", body);
