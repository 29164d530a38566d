/**
 * The composition root: everything a process needs, built once from its configuration and its
 * store by `buildDeps`, which `satang serve`, `satang worker` (server.ts) and the tests'
 * harness all use. The provider, the webhook dispatcher and the API key lookup are made here
 * and nowhere else; every module below receives the few handles it uses (its own `...Context`
 * type), which this object satisfies.
 *
 * `clock` is the business clock (record timestamps, expiry, windows); `wallClock` is real time
 * for authentication tolerance, rate-limit windows and webhook timing, which the sandbox test
 * clock never moves.
 */
import type { Kysely } from "kysely";
import type { Config } from "./config.ts";
import { changeFeedOf } from "./db/changes.ts";
import type { DatabaseKind } from "./db/connect.ts";
import type { Database } from "./db/types.ts";
import { DeliveryDispatcher } from "./events/delivery.ts";
import { type WebhookOverrides, type WebhookSettings, webhookSettings } from "./events/settings.ts";
import type { ApiKeys } from "./http/auth.ts";
import { cachedApiKeys } from "./http/auth-cache.ts";
import { apiKeysOf } from "./integrations/store.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import type { SecretBox } from "./lib/crypto.ts";
import type { Connector } from "./providers/port.ts";
import type { Provider } from "./providers/provider.ts";
import {
  buildConnectors,
  type ConnectorDeps,
  type Connectors,
  connectorsOf,
  createSandboxBank,
  type ExchangeRecorder,
  reconcileIntervalOf,
} from "./providers/registry.ts";
import { Router, type RouterOptions } from "./providers/routing/router.ts";
import { SharedBreakers } from "./providers/routing/shared.ts";
import type { SandboxBank } from "./providers/sandbox-bank.ts";

export interface Deps {
  config: Config;
  db: Kysely<Database>;
  storeKind: DatabaseKind;
  clock: Clock;
  wallClock: Clock;
  secrets: SecretBox;
  /** Webhook delivery settings: the limits of lib/limits.ts and system DNS, unless overridden. */
  webhooks: WebhookSettings;
  /** This process's webhook sender: the slots it counts are this process's in-flight sends. */
  dispatcher: DeliveryDispatcher;
  /** Where payouts go; undefined when the deployment has no payout provider. */
  provider: Provider | undefined;
  /** The provider holding a payout already sent, by its name (lifecycle/context.ts). */
  heldPayouts: (name: string) => Provider | undefined;
  /** The sandbox's simulated bank (simulate routes, its callback route); undefined in live. */
  simulator: SandboxBank | undefined;
  /**
   * The deployment's live connectors, in SATANG_PROVIDER's order (providers/registry.ts): their
   * notices, the collections reconciler, the QR of a live payment, payouts. Empty in sandbox.
   */
  connectors: Connectors;
  /** How often the collections reconciler first asks about a live payment. */
  reconcileIntervalMs: number;
  /**
   * Which live connector takes a new payment: SATANG_PROVIDER's order, a circuit breaker each
   * (docs/providers/routing.md). Undefined with the simulated bank and when no connector is behind the port.
   */
  router: Router | undefined;
  /**
   * The API keys as HMAC authentication looks them up: cached in memory and forgotten when a
   * merchant or integration changes on any process (http/auth-cache.ts).
   */
  apiKeys: ApiKeys;
  /** /readyz's probe: the store's own, which does not wait behind the pool (db/connect.ts). */
  databaseReachable: ((timeoutMs: number) => Promise<boolean>) | undefined;
  /** A consistent copy of the embedded database (GET /admin/v1/backup); absent on PostgreSQL. */
  databaseDump: (() => Promise<Blob>) | undefined;
}

export interface DepsInput {
  config: Config;
  db: Kysely<Database>;
  storeKind: DatabaseKind;
  secrets: SecretBox;
  /** The business clock; the system clock unless a test moves its own. */
  clock?: Clock;
  /** Real time; the system clock unless a test moves its own. */
  wallClock?: Clock;
  /** Webhook settings a test changes (timeout, DNS resolver, concurrency). */
  webhooks?: WebhookOverrides;
  /** A payout provider instead of the deployment's own (tests: one that fails on purpose). */
  provider?: Provider;
  /** Where connectors' exchanges are recorded; their own table unless a test keeps them. */
  exchangeRecorder?: ExchangeRecorder;
  /**
   * Builds the live connectors instead of the configured ones (tests: fakes, a connector made to
   * fail), from the same handles the registry gives its own.
   */
  liveConnectors?: (handles: ConnectorDeps) => readonly Connector[];
  /** Router settings a test shortens (the instruct timeout, the breaker's numbers). */
  routing?: Omit<RouterOptions, "clock">;
  /** The store's reachability probe (Store.reachable). */
  databaseReachable?: (timeoutMs: number) => Promise<boolean>;
  databaseDump?: (() => Promise<Blob>) | undefined;
}

/**
 * The provider payouts go to. Sandbox: the simulated bank. Live: the first connector that pays
 * out (none when SATANG_PAYOUTS=manual: the payout desk pays, and the payout worker leaves
 * pending withdraws alone). A configuration with no provider has none (built by hand: live
 * refuses to start without SATANG_PROVIDER).
 */
function payoutProvider(
  simulator: Provider | undefined,
  connectors: readonly Connector[],
): Provider | undefined {
  if (connectors.length > 0) return connectors.find((c) => c.payouts)?.payouts;
  return simulator;
}

/** The router over the live connectors, or undefined when there are none (the sandbox). */
function routerOf(input: DepsInput, connectors: readonly Connector[], wallClock: Clock): Router | undefined {
  if (connectors.length === 0) return undefined;
  // A failed read keeps the last one (the next is 2 s later); a failed write leaves the other
  // processes to their own breakers, as before this was shared.
  const shared = new SharedBreakers({ db: input.db, clock: wallClock });
  return new Router(connectors, { clock: wallClock, shared, ...input.routing });
}

export function buildDeps(input: DepsInput): Deps {
  const { config, db, secrets } = input;
  const clock = input.clock ?? systemClock;
  const wallClock = input.wallClock ?? systemClock;
  const webhooks = webhookSettings(config, input.webhooks);
  const sandboxBank =
    config.env === "sandbox" ? createSandboxBank({ db, clock, wallClock, secrets }) : undefined;
  const handles: ConnectorDeps = { db, clock: wallClock, exchangeRecorder: input.exchangeRecorder };
  const built = input.liveConnectors?.(handles) ?? buildConnectors(config, handles);
  const router = routerOf(input, built, wallClock);
  // What the collections flow asks of a connector feeds its breaker too (router.observed).
  const connectors = router ? router.observed() : built;
  return {
    config,
    db,
    storeKind: input.storeKind,
    clock,
    wallClock,
    secrets,
    webhooks,
    dispatcher: new DeliveryDispatcher({ db, wallClock, secrets, webhooks }),
    provider: input.provider ?? payoutProvider(sandboxBank?.payouts, connectors),
    heldPayouts: (name) => connectors.find((c) => c.name === name)?.heldPayouts,
    simulator: sandboxBank?.bank,
    connectors: connectorsOf(connectors),
    reconcileIntervalMs: reconcileIntervalOf(config),
    router,
    apiKeys: cachedApiKeys(apiKeysOf(db), changeFeedOf(db), { clock: wallClock }),
    databaseReachable: input.databaseReachable,
    databaseDump: input.databaseDump,
  };
}
