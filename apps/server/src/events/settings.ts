/**
 * The settings of webhook delivery: the limits of lib/limits.ts and system DNS, with the
 * overrides a test passes in `deps.webhooks` (a short timeout, a resolver that maps made-up
 * names to chosen addresses, other concurrency limits).
 */
import { lookup } from "node:dns/promises";
import type { Deps } from "../deps.ts";
import {
  WEBHOOK_IN_FLIGHT_MAX,
  WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX,
  WEBHOOK_RETRY_JITTER_FRACTION,
  WEBHOOK_TIMEOUT_MS,
} from "../lib/limits.ts";

export interface ResolvedAddress {
  address: string;
  /** 4 or 6. */
  family: number;
}

/** Every address a host name resolves to (A and AAAA records). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface WebhookOverrides {
  /** Whole-attempt timeout: DNS, connect and the response headers. */
  timeoutMs?: number;
  resolve?: Resolver;
  /** Most deliveries this process sends at once. */
  maxInFlight?: number;
  /** Most deliveries sent to one endpoint at once (counted across processes via leases). */
  perEndpointInFlight?: number;
  /** Random number in [0, 1) for retry jitter. */
  random?: () => number;
}

export interface WebhookSettings {
  timeoutMs: number;
  resolve: Resolver;
  maxInFlight: number;
  perEndpointInFlight: number;
  random: () => number;
  jitterFraction: number;
  allowLoopback: boolean;
  requireHttps: boolean;
}

/**
 * System DNS through getaddrinfo, the same resolver a plain connect would use, so the check
 * sees what the operating system would connect to. `verbatim` keeps the order it returns.
 */
export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family,
  }));

export function webhookSettings(deps: Deps): WebhookSettings {
  const overrides = deps.webhooks ?? {};
  return {
    timeoutMs: overrides.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
    resolve: overrides.resolve ?? systemResolver,
    maxInFlight: overrides.maxInFlight ?? WEBHOOK_IN_FLIGHT_MAX,
    perEndpointInFlight: overrides.perEndpointInFlight ?? WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX,
    random: overrides.random ?? Math.random,
    jitterFraction: WEBHOOK_RETRY_JITTER_FRACTION,
    allowLoopback: deps.config.env === "sandbox" && deps.config.webhookAllowLoopback,
    requireHttps: deps.config.env === "live",
  };
}
