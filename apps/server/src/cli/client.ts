/**
 * The CLI's client of the operator API. Operator commands go through HTTP rather than opening
 * the database, because the embedded store belongs to the running server process.
 *
 * Where to connect: --url, else SATANG_URL, else http://HOST:PORT from the environment.
 * Which token: --token, else ADMIN_TOKEN, else DATA_DIR/admin-token (written at first start in
 * sandbox).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config.ts";
import { ADMIN_TOKEN_FILE, DEFAULT_DATA_DIR } from "../data-dir.ts";

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The server answered with an error envelope: exit code 1. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly metadata: Record<string, unknown> | undefined,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The server could not be reached at all: exit code 3. */
export class UnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
    /** Where the address came from, as `addressSource` says it. */
    readonly source: string = "",
  ) {
    super(unreachableMessage(url, reason, source));
    this.name = "UnreachableError";
  }
}

/**
 * Where this invocation's server address comes from, said so that a developer who forgot
 * SATANG_URL learns that the CLI fell back to a default.
 */
export function addressSource(options: ClientOptions, env: NodeJS.ProcessEnv): string {
  if (options.url) return "the address given with --url";
  if (env.SATANG_URL) return "the address in SATANG_URL";
  return "the default http://HOST:PORT (127.0.0.1:3000 unless HOST or PORT say otherwise), because SATANG_URL is not set";
}

/** What to say when nothing answers at `url`: where that address came from and how to change it. */
export function unreachableMessage(url: string, reason: string, source: string): string {
  return (
    `Cannot reach the Satang server at ${url} (${reason})${source ? `; that is ${source}` : ""}. ` +
    "Is it running? Start it with `npm start` (or `npx satang serve`), or set SATANG_URL to the " +
    "server's address (e.g. SATANG_URL=https://sandbox.example.com), or pass --url."
  );
}

export const REQUEST_TIMEOUT_MS = 30_000;

export interface ClientOptions {
  url?: string | undefined;
  token?: string | undefined;
}

function checkedUrl(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL such as http://127.0.0.1:3000, got "${raw}"`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(`${name} must use http or https, got "${parsed.protocol}"`);
  }
  return raw.replace(/\/+$/, "");
}

/** The server's base URL for this invocation. */
export function resolveBaseUrl(options: ClientOptions, env: NodeJS.ProcessEnv): string {
  if (options.url) return checkedUrl("--url", options.url);
  if (env.SATANG_URL) return checkedUrl("SATANG_URL", env.SATANG_URL);
  const port = env.PORT || "3000";
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) {
    throw new ConfigError(`PORT must be a whole number between 0 and 65535, got "${port}"`);
  }
  let host = env.HOST || "127.0.0.1";
  // A server listening on every interface is reached on the loopback one.
  if (host === "0.0.0.0") host = "127.0.0.1";
  if (host === "::") host = "::1";
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** The operator token for this invocation, or a usage error saying where to put one. */
export function resolveToken(options: ClientOptions, env: NodeJS.ProcessEnv): string {
  if (options.token) return options.token;
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const file = join(env.DATA_DIR || DEFAULT_DATA_DIR, ADMIN_TOKEN_FILE);
  if (existsSync(file)) {
    const token = readFileSync(file, "utf8").trim();
    if (token !== "") return token;
  }
  const where = env.DATA_DIR ? "" : " (or set DATA_DIR to the data directory the server was started with)";
  throw new UsageError(
    `No admin token: pass --token, set ADMIN_TOKEN, or start the sandbox server once so that ${file} exists${where}.`,
  );
}

export interface AdminClient {
  baseUrl: string;
  call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  /** As `call`, with the answer's headers (some answers say more in them: Idempotent-Replayed). */
  answer<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ data: T; headers: Headers }>;
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export function adminClient(options: ClientOptions, env: NodeJS.ProcessEnv): AdminClient {
  const baseUrl = resolveBaseUrl(options, env);
  const token = resolveToken(options, env);
  const client: AdminClient = {
    baseUrl,
    async call<T>(method: string, path: string, body?: unknown): Promise<T> {
      return (await client.answer<T>(method, path, body)).data;
    },
    async answer<T>(method: string, path: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
      let response: Response;
      try {
        response = await fetch(`${baseUrl}/admin/v1${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: "application/json",
            // The tool the operator works with, kept with what the operator records.
            "x-satang-client": "cli",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (error) {
        throw new UnreachableError(baseUrl, describeFailure(error), addressSource(options, env));
      }
      const text = await response.text();
      let envelope: { success?: boolean; data?: unknown; error?: Record<string, unknown> } | undefined;
      try {
        envelope = JSON.parse(text);
      } catch {
        envelope = undefined;
      }
      if (envelope?.success === true) return { data: envelope.data as T, headers: response.headers };
      if (envelope?.success === false && envelope.error) {
        const error = envelope.error;
        throw new ApiError(
          response.status,
          String(error.code ?? "UNKNOWN_ERROR"),
          String(error.message ?? "The server refused the request"),
          error.metadata as Record<string, unknown> | undefined,
        );
      }
      throw new ApiError(
        response.status,
        "UNEXPECTED_RESPONSE",
        `${baseUrl} answered HTTP ${response.status} without a Satang envelope: is it a Satang server?`,
        undefined,
      );
    },
  };
  return client;
}
