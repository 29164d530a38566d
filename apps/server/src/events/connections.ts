/**
 * Keep-alive connections for webhook sends: one HTTP agent per origin and vetted address, so
 * consecutive deliveries to one endpoint reuse a connection instead of opening one (and a TLS
 * session) each time.
 *
 * The key includes the address the URL check passed (events/url-guard.ts), so a reused
 * connection always leads to an address that was vetted for this very attempt: when the host
 * starts resolving elsewhere, the attempt gets another agent and a new connection. Idle
 * connections close after WEBHOOK_IDLE_CONNECTION_MS (below the common 5 s keep-alive of
 * servers, so the receiver rarely closes one just as it is reused); at most
 * WEBHOOK_CONNECTION_POOLS_MAX agents are kept, the least recently used one is closed first.
 * How many sockets are open at once is bounded by the dispatcher's slots, not here.
 */
import http from "node:http";
import https from "node:https";
import { WEBHOOK_CONNECTION_POOLS_MAX, WEBHOOK_IDLE_CONNECTION_MS } from "../lib/limits.ts";
import type { VettedTarget } from "./url-guard.ts";

export class ConnectionPools {
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly max: number = WEBHOOK_CONNECTION_POOLS_MAX) {}

  agentFor(target: VettedTarget): http.Agent {
    const key = `${target.url.protocol}//${target.host}:${target.url.port}|${target.address}`;
    let agent = this.agents.get(key);
    if (agent !== undefined) {
      this.agents.delete(key);
    } else {
      const options = { keepAlive: true, timeout: WEBHOOK_IDLE_CONNECTION_MS, scheduling: "lifo" as const };
      agent = target.url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
      if (this.agents.size >= this.max) this.evictOldest();
    }
    this.agents.set(key, agent);
    return agent;
  }

  /** Closes every kept connection (at shutdown); agents are made again when needed. */
  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private evictOldest(): void {
    const oldest = this.agents.keys().next();
    if (oldest.done) return;
    // Requests in flight on its sockets finish; only idle sockets close at once.
    const agent = this.agents.get(oldest.value);
    this.agents.delete(oldest.value);
    for (const sockets of Object.values(agent?.freeSockets ?? {})) {
      for (const socket of sockets ?? []) socket.destroy();
    }
  }
}
