/**
 * What `satang serve` tells the person who started it, and the short window between binding the
 * port and finishing the first-start bootstrap.
 *
 * The port is bound before bootstrap runs, so a start that cannot bind (port taken) fails before
 * any one-time credential is generated: the next successful start is the one that prints them.
 * Requests arriving while bootstrap runs answer 503 SERVICE_UNAVAILABLE with Retry-After.
 */
import type { FastifyInstance } from "fastify";
import { type Config, ConfigError } from "./config.ts";
import { errorBody } from "./http/envelope.ts";
import { AppError } from "./lib/errors.ts";

const STARTING_RETRY_AFTER_S = 1;

/** Progress lines of a start, printed before the store is usable. */
export function storeProgress(config: Pick<Config, "databaseUrl">): { opening: string; migrating: string } {
  return {
    opening: config.databaseUrl
      ? "Satang: connecting to PostgreSQL…\n"
      : "Satang: opening the embedded database (up to a minute the first time)…\n",
    migrating: "Satang: applying migrations…\n",
  };
}

/** Answers every request with 503 until the returned function is called. Before listen. */
export function holdRequestsUntilStarted(app: FastifyInstance): () => void {
  let started = false;
  // Callback style: once started, every request passes with no promise made for it. A request
  // answered here is not passed on (`done` is not called).
  app.addHook("onRequest", (_request, reply, done) => {
    if (started) return done();
    reply.header("Retry-After", String(STARTING_RETRY_AFTER_S));
    reply.code(503).send(
      errorBody(
        new AppError("SERVICE_UNAVAILABLE", "The service is starting; retry shortly", {
          retryAfter: STARTING_RETRY_AFTER_S,
        }),
      ),
    );
  });
  return () => {
    started = true;
  };
}

/**
 * Printed by every successful start: where the API, /docs and /dashboard are, and the payout
 * desk's page when withdraws are paid by hand (SATANG_PAYOUTS=manual).
 */
export function addressesMessage(
  config: Pick<Config, "env" | "publicBaseUrl" | "payouts">,
  listening: string,
): string {
  const configured = config.publicBaseUrl.replace(/\/+$/, "");
  // PORT=0 asks for any free port: the base URL derived from it names no real port, so the
  // addresses are given on the one actually bound.
  const base = /:0$/.test(configured) ? listening : configured;
  const places: [label: string, url: string][] = [
    ["API", `${base}/api/v1`],
    ["Docs", `${base}/docs`],
    ["Dashboard", `${base}/dashboard`],
  ];
  if (config.payouts === "manual") places.push(["Payout desk", `${base}/dashboard/payout-desk`]);
  if (config.env === "sandbox") places.push(["Start page", `${base}/`]);
  const width = Math.max(...places.map(([label]) => label.length));
  const lines = [
    `Satang (${config.env}) is listening on ${listening}`,
    ...places.map(([label, url]) => `  ${label.padEnd(width)}  ${url}`),
  ];
  // Customers' payment links and the notice URLs registered with the banks start with it.
  if (config.env === "live" && !configured.startsWith("https://")) {
    lines.push(
      `Warning: PUBLIC_BASE_URL is ${configured}, not https: customers' payment links and the notice ` +
        "URLs registered with the banks start with it. Set it to the public https origin behind your " +
        "TLS proxy (docs/DEPLOYMENT.md).",
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A port that cannot be bound, said plainly: which address, and which setting chooses another.
 * Other errors pass through unchanged.
 */
export function explainBindError(error: unknown, host: string, port: number, setting: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") {
    return new ConfigError(
      `${host}:${port} is already in use by another process. Stop it, or set ${setting} to a free port. ` +
        "Nothing was created: the next successful start prints the first-start credentials.",
    );
  }
  if (code === "EACCES" || code === "EADDRNOTAVAIL") {
    return new ConfigError(`Cannot listen on ${host}:${port} (${code}): choose another HOST or ${setting}.`);
  }
  return error;
}
