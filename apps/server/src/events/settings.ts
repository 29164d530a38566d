/**
 * The settings of webhook delivery: the limits of lib/limits.ts and system DNS, with the
 * overrides a test passes when it builds the process's dependencies (a short timeout, a
 * resolver that maps made-up names to chosen addresses, other concurrency limits).
 */
import { lookup } from "node:dns/promises";
import type { Config } from "../config.ts";
import {
  WEBHOOK_FAST_ANSWER_MS,
  WEBHOOK_IN_FLIGHT_MAX,
  WEBHOOK_IN_FLIGHT_PER_ENDPOINT_INITIAL,
  WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX,
  WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MIN,
  WEBHOOK_LEASE_MS,
  WEBHOOK_LEASE_RENEW_MS,
  WEBHOOK_RETRY_JITTER_FRACTION,
  WEBHOOK_TIMEOUT_MS,
} from "../lib/limits.ts";
import type { ConcurrencyBounds } from "./concurrency.ts";

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
  /**
   * Most deliveries sent to one endpoint at once (counted across processes via leases): the
   * ceiling of its adaptive limit. The limit starts at the smaller of this and the default start.
   */
  perEndpointInFlight?: number;
  /** Where an endpoint's adaptive limit starts. */
  perEndpointInitial?: number;
  /** How long a claim holds a delivery without renewal, and how often it is renewed. */
  leaseMs?: number;
  leaseRenewMs?: number;
  /** Random number in [0, 1) for retry jitter. */
  random?: () => number;
}

export interface WebhookSettings {
  timeoutMs: number;
  resolve: Resolver;
  maxInFlight: number;
  /** The adaptive per-endpoint concurrency (events/concurrency.ts). */
  perEndpoint: ConcurrencyBounds;
  leaseMs: number;
  leaseRenewMs: number;
  random: () => number;
  jitterFraction: number;
  allowLoopback: boolean;
  requireHttps: boolean;
}

/**
 * System DNS through getaddrinfo, the same resolver a plain connect would use, so the check
 * sees what the operating system would connect to. `verbatim` keeps the order it returns.
 */
const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family,
  }));

function perEndpointBounds(overrides: WebhookOverrides): ConcurrencyBounds {
  const max = overrides.perEndpointInFlight ?? WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MAX;
  const min = Math.min(WEBHOOK_IN_FLIGHT_PER_ENDPOINT_MIN, max);
  const initial = Math.min(overrides.perEndpointInitial ?? WEBHOOK_IN_FLIGHT_PER_ENDPOINT_INITIAL, max);
  return { min, initial: Math.max(initial, min), max, fastMs: WEBHOOK_FAST_ANSWER_MS };
}

export function webhookSettings(
  config: Pick<Config, "env" | "webhookAllowLoopback">,
  overrides: WebhookOverrides = {},
): WebhookSettings {
  return {
    timeoutMs: overrides.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
    resolve: overrides.resolve ?? systemResolver,
    maxInFlight: overrides.maxInFlight ?? WEBHOOK_IN_FLIGHT_MAX,
    perEndpoint: perEndpointBounds(overrides),
    leaseMs: overrides.leaseMs ?? WEBHOOK_LEASE_MS,
    leaseRenewMs: overrides.leaseRenewMs ?? WEBHOOK_LEASE_RENEW_MS,
    random: overrides.random ?? Math.random,
    jitterFraction: WEBHOOK_RETRY_JITTER_FRACTION,
    allowLoopback: config.env === "sandbox" && config.webhookAllowLoopback,
    requireHttps: config.env === "live",
  };
}
