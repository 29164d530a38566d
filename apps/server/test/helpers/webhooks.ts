/**
 * Test helpers for webhooks: a local receiver that verifies every delivery with the
 * `standardwebhooks` library (the verifier merchants use, independent of our signing code), a
 * canary listener that counts connections, a resolver with made-up names, and a way to write
 * events through the outbox the way the lifecycle services do.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { sql } from "kysely";
import { Webhook } from "standardwebhooks";
import type { EventRow, EventType } from "../../src/db/types.ts";
import type { Deps } from "../../src/deps.ts";
import { recordEvent } from "../../src/events/outbox.ts";
import type { ResolvedAddress, Resolver } from "../../src/events/settings.ts";
import type { Clock } from "../../src/lib/clock.ts";
import { newId } from "../../src/lib/ids.ts";

export interface ReceivedDelivery {
  headers: Record<string, string>;
  body: string;
  /** The id, type and object of the verified payload; undefined when verification failed. */
  payload:
    | { id: string; type: string; createdAt: string; data: { object: Record<string, unknown> } }
    | undefined;
  verifyError: string | undefined;
  /** How many `v1,` signatures the header carried. */
  signatureCount: number;
}

export type Responder = (request: IncomingMessage, response: ServerResponse, body: string) => void;

export interface Receiver {
  url: string;
  port: number;
  /** The secrets verification accepts: any one of them must verify. */
  secrets: string[];
  received: ReceivedDelivery[];
  /** Requests that arrived and have not been answered yet. */
  open: number;
  maxOpen: number;
  /** Answers the next requests with these statuses (then 200). */
  respondWith(...statuses: number[]): void;
  /** Replaces the answer logic entirely. */
  handle(responder: Responder): void;
  /** Resolves when `count` deliveries have arrived. */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs `Webhook.verify` as if the real time were `clock.now()`: the library checks the
 * timestamp against Date.now(), and tests move the service's wall clock by hours.
 */
export function verifyAt(
  clock: Clock | undefined,
  secret: string,
  body: string,
  headers: Record<string, string>,
): unknown {
  const realNow = Date.now;
  if (clock) Date.now = () => clock.now().getTime();
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    Date.now = realNow;
  }
}

function flatHeaders(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") out[name] = value;
  }
  return out;
}

export async function startReceiver(options: { clock?: Clock; path?: string } = {}): Promise<Receiver> {
  const statuses: number[] = [];
  let responder: Responder | undefined;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const receiver: Receiver = {
    url: "",
    port: 0,
    secrets: [],
    received: [],
    open: 0,
    maxOpen: 0,
    respondWith: (...codes) => statuses.push(...codes),
    handle: (next) => {
      responder = next;
    },
    waitFor: (count) =>
      receiver.received.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    receiver.open += 1;
    receiver.maxOpen = Math.max(receiver.maxOpen, receiver.open);
    response.on("close", () => {
      receiver.open -= 1;
    });
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = flatHeaders(request);
      let payload: ReceivedDelivery["payload"];
      let verifyError: string | undefined = "no secret matched";
      for (const secret of receiver.secrets) {
        try {
          payload = verifyAt(options.clock, secret, body, headers) as ReceivedDelivery["payload"];
          verifyError = undefined;
          break;
        } catch (error) {
          verifyError = (error as Error).message;
        }
      }
      const signatureCount = (headers["webhook-signature"] ?? "")
        .split(" ")
        .filter((s) => s.startsWith("v1,")).length;
      receiver.received.push({ headers, body, payload, verifyError, signatureCount });
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (responder) {
        responder(request, response, body);
        return;
      }
      response.statusCode = statuses.shift() ?? 200;
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  receiver.port = typeof address === "object" && address ? address.port : 0;
  receiver.url = `http://127.0.0.1:${receiver.port}${options.path ?? "/hooks"}`;
  return receiver;
}

/** A TCP listener that only counts connections: nothing must ever reach it. */
export interface Canary {
  port: number;
  connections: number;
  close(): Promise<void>;
}

export async function startCanary(): Promise<Canary> {
  const sockets = new Set<import("node:net").Socket>();
  const canary: Canary = {
    port: 0,
    connections: 0,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server: TcpServer = createTcpServer((socket) => {
    canary.connections += 1;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  canary.port = typeof address === "object" && address ? address.port : 0;
  return canary;
}

/** A resolver over a fixed table; names it does not know fail like NXDOMAIN. */
export function tableResolver(
  table: Record<string, string[]>,
): Resolver & { table: Record<string, string[]> } {
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    const addresses = resolve.table[hostname.toLowerCase()];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  resolve.table = table;
  return resolve;
}

/** Writes an event the way a lifecycle transition does: through recordEvent in a transaction. */
export async function writeEvent(
  deps: Pick<Deps, "db" | "clock">,
  merchantId: string,
  type: EventType,
  object: Record<string, unknown> = {},
  occurredAt: Date = deps.clock.now(),
): Promise<EventRow> {
  const objectType = type.startsWith("payment.") ? "payment" : "withdraw";
  const record = { id: newId(), status: type.split(".")[1], updatedAt: occurredAt.toISOString(), ...object };
  return deps.db
    .transaction()
    .execute((trx) => recordEvent(trx, { merchantId, type, objectType, object: record, occurredAt }));
}

/** Ends every pending delivery, so one test's retries never reach the next test's receivers. */
export async function cancelPendingDeliveries(deps: Pick<Deps, "db">): Promise<void> {
  await sql`
    update webhook_deliveries
    set status = 'canceled', completed_at = now(), next_attempt_at = null, lease_id = null, leased_until = null
    where status = 'pending'
  `.execute(deps.db);
}
