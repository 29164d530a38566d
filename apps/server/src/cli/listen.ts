/**
 * `satang listen`: forwards a merchant's events to a local URL, each signed with Standard
 * Webhooks under a local signing secret, like `stripe listen`.
 *
 * Two ways to learn of events:
 * - endpoint: a local HTTP listener on 127.0.0.1 and a temporary webhook endpoint on the server
 *   pointing at it. The server's own delivery worker sends each event there (the real delivery
 *   path, retries included); the listener verifies the server's signature with the endpoint's
 *   secret, forwards, and answers the server with the forward's outcome. The endpoint is deleted
 *   on Ctrl-C. Needs a server on this machine (sandbox allows loopback webhook URLs). The
 *   endpoint is checked every 2 s: deleted by someone else, the command stops with exit status
 *   1 and says so; disabled, it says that nothing arrives until it is enabled.
 * - poll: reads GET /api/v1/events every few seconds and forwards what is new. Works with any
 *   server the API key can reach, and without its workers.
 *
 * The local signing secret is derived from the API secret, so it stays the same from one run to
 * the next and the developer configures their handler once (Stripe's CLI does the same).
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect } from "node:net";
import { hostname } from "node:os";
import {
  ConnectionError,
  type EventType,
  InvalidCredentialsError,
  ResourceNotFoundError,
  type Satang,
  SatangError,
  type SatangEvent,
  ValidationError,
} from "@satang/sdk";
import { WEBHOOK_TIMEOUT_MS } from "../lib/limits.ts";
import { UsageError } from "./client.ts";
import type { CliIo } from "./io.ts";

export type ListenMode = "auto" | "endpoint" | "poll";

export interface ListenOptions {
  satang: Satang;
  baseUrl: string;
  apiSecret: string;
  forwardTo: string;
  events: Array<EventType | "*">;
  signingSecret?: string | undefined;
  mode: ListenMode;
  pollIntervalMs: number;
  /** How often endpoint mode checks that its endpoint still exists and is enabled. */
  endpointCheckIntervalMs?: number;
  json: boolean;
  io: CliIo;
  /** Resolves when the command should stop; by default on SIGINT or SIGTERM. */
  stopped?: Promise<void>;
}

/** The description that marks endpoints this command created, so stale ones can be found. */
const DESCRIPTION_PREFIX = "satang listen";
const LISTEN_PATH = "/satang-listen";
/** Events read per poll; more pages are read when every event on one is new. */
const POLL_PAGE_SIZE = 100;
const POLL_PAGES_MAX = 10;
const BODY_MAX_BYTES = 1024 * 1024;
/**
 * Endpoint mode asks the server this often whether its endpoint is still there. Deleting it (from
 * the dashboard, the API, or another `satang listen` cleaning up) stops every delivery, and
 * nothing else would tell this process: without the check it would wait in silence.
 */
const ENDPOINT_CHECK_INTERVAL_MS = 2_000;
/** Standard Webhooks secrets carry at least 24 random bytes (CONTRACT 12). */
const SIGNING_SECRET_BYTES_MIN = 24;

/** `whsec_` + base64 of HMAC-SHA256(API secret, a fixed label): stable per integration, reveals nothing of the secret. */
export function derivedSigningSecret(apiSecret: string): string {
  const key = createHmac("sha256", apiSecret).update("satang listen signing secret v1").digest();
  return `whsec_${key.toString("base64")}`;
}

export interface ForwardResult {
  status: number | undefined;
  error: string | undefined;
  durationMs: number;
}

/** POSTs the event body to the developer's URL with fresh Standard Webhooks headers. */
export async function forwardEvent(
  url: string,
  body: string,
  eventId: string,
  signingSecret: string,
  satang: Satang,
): Promise<ForwardResult> {
  const started = performance.now();
  const headers = satang.webhooks.testHeaders(body, signingSecret, { id: eventId });
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "user-agent": "satang-cli/listen" },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status, error: undefined, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      error instanceof Error && error.name === "TimeoutError"
        ? `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
    return { status: undefined, error: reason, durationMs: Math.round(performance.now() - started) };
  }
}

function objectId(event: SatangEvent): string {
  return event.data.object.id;
}

function printForward(options: ListenOptions, event: SatangEvent, result: ForwardResult): void {
  const { io } = options;
  if (options.json) {
    io.stdout(
      `${JSON.stringify({
        at: new Date().toISOString(),
        eventId: event.id,
        type: event.type,
        objectId: objectId(event),
        forwardedTo: options.forwardTo,
        status: result.status ?? null,
        error: result.error ?? null,
        durationMs: result.durationMs,
      })}\n`,
    );
    return;
  }
  const time = new Date().toISOString().slice(11, 19);
  const outcome =
    result.status !== undefined ? `[${result.status}]` : `[failed: ${result.error ?? "no answer"}]`;
  io.stdout(
    `${time}  --> ${event.type} ${event.id} (${event.type.split(".")[0]} ${objectId(event)})  <-- ${outcome} POST ${options.forwardTo} (${result.durationMs} ms)\n`,
  );
}

function note(options: ListenOptions, text: string): void {
  // Progress and warnings go to stderr so that stdout carries only one line per event.
  options.io.stderr(`${text}\n`);
}

function isLoopbackHost(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

function defaultStop(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      // A second Ctrl-C while cleaning up leaves at once.
      process.once("SIGINT", () => process.exit(130));
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_MAX_BYTES) {
        reject(new Error("body too large"));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    const done = (closed: boolean) => {
      socket.destroy();
      resolve(closed);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("connect", () => done(false));
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code === "ECONNREFUSED"));
  });
}

/**
 * Deletes endpoints an earlier `satang listen` on this host left behind when it was killed
 * without its Ctrl-C cleanup: marked by their description, pointing at a local port nothing
 * listens on any more. Endpoints of listeners on other hosts are never touched.
 */
async function removeStaleEndpoints(options: ListenOptions, marker: string): Promise<void> {
  const { satang } = options;
  const page = await satang.webhookEndpoints.list({ limit: 100 });
  for (const endpoint of page.data) {
    if (!endpoint.description?.startsWith(marker)) continue;
    const url = new URL(endpoint.url);
    if (url.hostname !== "127.0.0.1" || !(await portIsClosed(Number(url.port)))) continue;
    await satang.webhookEndpoints.delete(endpoint.id).catch(() => undefined);
    note(options, `Removed a stale webhook endpoint ${endpoint.id} left by an earlier satang listen.`);
  }
}

function printReady(options: ListenOptions, signingSecret: string, mode: string, detail: string): void {
  const events = options.events.includes("*") ? "all (*)" : options.events.join(", ");
  if (options.json) {
    options.io.stdout(
      `${JSON.stringify({ ready: true, mode, forwardTo: options.forwardTo, events: options.events, signingSecret })}\n`,
    );
    return;
  }
  options.io.stdout(
    [
      `Ready! Forwarding Satang events to ${options.forwardTo}`,
      `  signing secret  ${signingSecret}`,
      `                  (verify forwarded events with it; it stays the same for this API key)`,
      `  events          ${events}`,
      `  mode            ${detail}`,
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}

/**
 * The local listener the server delivers to: it waits until the endpoint's secret is known,
 * checks the server's signature with it, forwards, and answers with the forward's outcome.
 */
function deliveryListener(
  options: ListenOptions,
  signingSecret: string,
  endpointSecret: Promise<string>,
): Server {
  const { satang } = options;
  return createServer(async (request, response) => {
    if (request.method !== "POST" || !request.url?.startsWith(LISTEN_PATH)) {
      response.writeHead(404).end();
      return;
    }
    let body: string;
    try {
      body = await readBody(request);
    } catch {
      response.writeHead(413).end();
      return;
    }
    let event: SatangEvent;
    try {
      // A delivery can arrive between the endpoint's creation and our reading of its secret.
      event = satang.webhooks.verify(body, request.headers, await endpointSecret);
    } catch (error) {
      note(options, `Refused a request that the server did not sign: ${(error as Error).message}`);
      response.writeHead(400).end();
      return;
    }
    const result = await forwardEvent(options.forwardTo, body, event.id, signingSecret, satang);
    printForward(options, event, result);
    const forwarded = result.status !== undefined && result.status >= 200 && result.status < 300;
    // The forward's failure is the delivery's failure, so the server retries as it would in production.
    response.writeHead(forwarded ? 200 : 502, { "content-type": "application/json" }).end(
      JSON.stringify({
        forwardedTo: options.forwardTo,
        status: result.status ?? null,
        error: result.error ?? null,
      }),
    );
  });
}

/** Listens on a free loopback port and answers the URL the server should deliver to. */
async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return `http://127.0.0.1:${port}${LISTEN_PATH}`;
}

async function removeEndpoint(options: ListenOptions, endpointId: string): Promise<void> {
  try {
    await options.satang.webhookEndpoints.delete(endpointId);
    note(options, `Stopped. Removed the temporary webhook endpoint ${endpointId}.`);
  } catch (error) {
    note(
      options,
      `Could not remove the temporary webhook endpoint ${endpointId}: ${(error as Error).message}. ` +
        "The next satang listen on this machine removes it.",
    );
  }
}

/** The endpoint this process delivers through was deleted: nothing more can arrive. */
class EndpointGone extends Error {
  constructor(endpointId: string) {
    super(
      `The temporary webhook endpoint ${endpointId} was deleted (from the dashboard, the API, or ` +
        "another satang listen), so the server no longer sends events here. Stopped; run satang " +
        "listen again for a new endpoint.",
    );
    this.name = "EndpointGone";
  }
}

/**
 * Watches the endpoint until `stopped`: says when it is disabled or enabled again, and throws
 * EndpointGone as soon as it is deleted. Deleting it again or re-creating it behind the
 * developer's back would undo what someone chose to do, so the command stops instead, with a
 * non-zero exit status, and says why. A failed check (the server restarting) is said once and
 * tried again; refused credentials end the command like any other refusal.
 */
async function watchEndpoint(
  options: ListenOptions,
  endpointId: string,
  stopped: Promise<void>,
): Promise<void> {
  const interval = options.endpointCheckIntervalMs ?? ENDPOINT_CHECK_INTERVAL_MS;
  let stop = false;
  void stopped.then(() => {
    stop = true;
  });
  let disabled = false;
  let unreachable = false;
  while (!stop) {
    await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, interval))]);
    if (stop) return;
    let endpoint: { disabled?: boolean };
    try {
      endpoint = await options.satang.webhookEndpoints.retrieve(endpointId);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) throw new EndpointGone(endpointId);
      if (error instanceof InvalidCredentialsError || !(error instanceof SatangError)) throw error;
      if (!unreachable) {
        const why = error instanceof ConnectionError ? "the server cannot be reached" : error.message;
        note(options, `Could not check the webhook endpoint ${endpointId} (${why}); trying again.`);
      }
      unreachable = true;
      continue;
    }
    if (unreachable) note(options, `The server answers again; still forwarding.`);
    unreachable = false;
    if (endpoint.disabled === true && !disabled) {
      note(
        options,
        `The temporary webhook endpoint ${endpointId} was disabled: the server sends no events until ` +
          "it is enabled again (dashboard, or PATCH /api/v1/webhook-endpoints/{id}).",
      );
    } else if (endpoint.disabled !== true && disabled) {
      note(options, `The temporary webhook endpoint ${endpointId} was enabled again; forwarding.`);
    }
    disabled = endpoint.disabled === true;
  }
}

async function listenWithEndpoint(
  options: ListenOptions,
  signingSecret: string,
  stopped: Promise<void>,
): Promise<void> {
  let setSecret: (secret: string) => void = () => {};
  const endpointSecret = new Promise<string>((resolve) => {
    setSecret = resolve;
  });
  const server = deliveryListener(options, signingSecret, endpointSecret);
  const url = await listenOnLoopback(server);
  const marker = `${DESCRIPTION_PREFIX} on ${hostname()}`.slice(0, 200);
  let endpointId: string | undefined;
  try {
    await removeStaleEndpoints(options, marker);
    const endpoint = await options.satang.webhookEndpoints.create({
      url,
      events: options.events,
      description: `${marker} (pid ${process.pid}; temporary, removed when it stops)`,
    });
    endpointId = endpoint.id;
    setSecret(endpoint.secret);
    printReady(
      options,
      signingSecret,
      "endpoint",
      `temporary webhook endpoint ${endpoint.id} -> ${url} (removed when you stop)`,
    );
    try {
      await watchEndpoint(options, endpoint.id, stopped);
    } catch (error) {
      // A deleted endpoint has nothing left to remove.
      if (error instanceof EndpointGone) endpointId = undefined;
      throw error;
    }
  } finally {
    // A delivery still waiting for the secret is refused rather than left hanging.
    setSecret("");
    if (endpointId) await removeEndpoint(options, endpointId);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function wanted(options: ListenOptions, event: SatangEvent): boolean {
  return options.events.includes("*") || options.events.includes(event.type);
}

/** Events newer than those seen, oldest first; reads further pages while a whole page is new. */
async function newEvents(satang: Satang, seen: Set<string>): Promise<SatangEvent[]> {
  const fresh: SatangEvent[] = [];
  for (let page = 1; page <= POLL_PAGES_MAX; page += 1) {
    const result = await satang.events.list({ page, limit: POLL_PAGE_SIZE, sortOrder: "desc" });
    const unseen = result.data.filter((event) => !seen.has(event.id));
    fresh.push(...unseen);
    if (unseen.length < result.data.length || page >= result.totalPages) break;
  }
  return fresh.reverse();
}

async function listenByPolling(
  options: ListenOptions,
  signingSecret: string,
  stopped: Promise<void>,
): Promise<void> {
  const { satang } = options;
  let stop = false;
  void stopped.then(() => {
    stop = true;
  });
  // Events that exist already are history, not news: remember them without forwarding.
  const first = await satang.events.list({ limit: POLL_PAGE_SIZE, sortOrder: "desc" });
  const seen = new Set(first.data.map((event) => event.id));
  printReady(
    options,
    signingSecret,
    "poll",
    `polling GET /api/v1/events every ${options.pollIntervalMs / 1000} s`,
  );
  while (!stop) {
    await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs))]);
    if (stop) break;
    let events: SatangEvent[];
    try {
      events = await newEvents(satang, seen);
    } catch (error) {
      if (error instanceof SatangError && error.code !== "INVALID_CREDENTIALS") {
        note(options, `Polling failed (${error.message}); trying again.`);
        continue;
      }
      throw error;
    }
    for (const event of events) {
      seen.add(event.id);
      if (!wanted(options, event)) continue;
      printForward(
        options,
        event,
        await forwardEvent(options.forwardTo, JSON.stringify(event), event.id, signingSecret, satang),
      );
    }
  }
  note(options, "Stopped.");
}

export async function runListen(options: ListenOptions): Promise<void> {
  const signingSecret = options.signingSecret ?? derivedSigningSecret(options.apiSecret);
  // Fail on a malformed --signing-secret now rather than at the first event.
  const key = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(signingSecret)?.[1];
  if (!key || Buffer.from(key, "base64").length < SIGNING_SECRET_BYTES_MIN) {
    throw new UsageError(
      `--signing-secret must be whsec_ followed by base64 of at least ${SIGNING_SECRET_BYTES_MIN} bytes`,
    );
  }
  const stopped = options.stopped ?? defaultStop();

  let mode = options.mode;
  if (mode === "auto") mode = isLoopbackHost(options.baseUrl) ? "endpoint" : "poll";
  if (mode === "endpoint") {
    try {
      await listenWithEndpoint(options, signingSecret, stopped);
      return;
    } catch (error) {
      // A server that refuses loopback webhook URLs (live, or WEBHOOK_ALLOW_LOOPBACK=false) can
      // still be polled; an explicit --mode endpoint is an error instead.
      const refusedUrl = error instanceof ValidationError && error.metadata?.field === "url";
      if (!refusedUrl || options.mode === "endpoint") throw error;
      note(
        options,
        `The server refused a local webhook URL (${error.message}); polling the events API instead.`,
      );
    }
  }
  await listenByPolling(options, signingSecret, stopped);
}
