/**
 * The SDK wired to an app in this process: a fetch that hands each request to `app.inject`, so
 * tests go through the SDK's real signing, envelope and error handling without a socket.
 */
import { type FetchLike, Satang, type SatangConfig } from "@satang/sdk";
import type { FastifyInstance } from "fastify";
import type { Credentials } from "./harness.ts";

export function injectFetch(app: FastifyInstance): FetchLike {
  return async (input, init) => {
    const url = new URL(input);
    const raw = await app.inject({
      method: (init.method ?? "GET") as "GET",
      url: url.pathname + url.search,
      headers: init.headers as Record<string, string>,
      ...(typeof init.body === "string" ? { payload: init.body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(raw.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) headers.append(name, String(item));
    }
    return new Response(raw.rawPayload, { status: raw.statusCode, headers });
  };
}

/**
 * A client for `credentials` on `app`. Retries are off unless asked for, so a test sees exactly
 * what the server answered; the retry tests turn them on with their own fetch.
 */
export function sdkClient(
  app: FastifyInstance,
  credentials: Pick<Credentials, "apiKey" | "apiSecret">,
  options: Partial<SatangConfig> = {},
): Satang {
  return new Satang({
    apiKey: credentials.apiKey,
    apiSecret: credentials.apiSecret,
    baseUrl: "http://satang.test",
    fetch: injectFetch(app),
    maxRetries: 0,
    ...options,
  });
}
