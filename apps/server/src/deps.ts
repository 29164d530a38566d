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
import type { PaymentCollector } from "./payments/collector.ts";
import type { Provider } from "./providers/provider.ts";
import { createSimulatedConnector } from "./providers/registry.ts";
import type { SandboxBank } from "./providers/sandbox-bank.ts";
import { createScbConnector, type ScbConnector } from "./providers/scb/connector.ts";
import { ScbProvider } from "./providers/scb/provider.ts";
import type { ScbRecorder } from "./providers/scb/recorder.ts";
import { DatabaseRecorder } from "./providers/scb/store.ts";

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
  /** The sandbox's simulated bank (simulate routes, its callback route); undefined in live. */
  simulator: SandboxBank | undefined;
  /** The SCB connector, when SATANG_PROVIDER=scb: confirmations, reconciliation, payouts. */
  scb: ScbConnector | undefined;
  /** Where live PromptPay payments are paid (SCB's bill payment QR); undefined otherwise. */
  collector: PaymentCollector | undefined;
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
  /** Where SCB exchanges are recorded; the `scb_exchanges` table unless a test keeps them. */
  scbRecorder?: ScbRecorder;
  /** The store's reachability probe (Store.reachable). */
  databaseReachable?: (timeoutMs: number) => Promise<boolean>;
  databaseDump?: (() => Promise<Blob>) | undefined;
}

/**
 * The provider payouts go to. Sandbox: the simulated bank. SATANG_PROVIDER=scb: SCB's credit
 * transfer, unless SATANG_PAYOUTS=manual (the payout desk pays, and the payout worker leaves
 * pending withdraws alone). A configuration with no provider has none (built by hand: live
 * refuses to start without SATANG_PROVIDER).
 */
function payoutProvider(
  config: Config,
  simulator: Provider | undefined,
  scb: ScbProvider | undefined,
): Provider | undefined {
  if (config.provider === "scb") return config.payouts === "manual" ? undefined : scb;
  return simulator;
}

/** The SCB connector and its `Provider`, built once for the process when SCB is configured. */
function scbOf(
  input: DepsInput,
  wallClock: Clock,
): { connector: ScbConnector; provider: ScbProvider } | undefined {
  const settings = input.config.provider === "scb" ? input.config.scb : undefined;
  if (!settings) return undefined;
  const connector = createScbConnector(settings, {
    clock: wallClock,
    recorder: input.scbRecorder ?? new DatabaseRecorder(input.db),
  });
  const provider = new ScbProvider({
    db: input.db,
    clock: wallClock,
    collection: connector.collection,
    payouts: connector.payouts,
    reconcileIntervalMs: settings.reconcileIntervalMs,
  });
  return { connector, provider };
}

export function buildDeps(input: DepsInput): Deps {
  const { config, db, secrets } = input;
  const clock = input.clock ?? systemClock;
  const wallClock = input.wallClock ?? systemClock;
  const webhooks = webhookSettings(config, input.webhooks);
  const sandboxBank =
    config.env === "sandbox" ? createSimulatedConnector({ db, clock, wallClock, secrets }) : undefined;
  const scb = scbOf(input, wallClock);
  const collection = scb?.connector.collection;
  return {
    config,
    db,
    storeKind: input.storeKind,
    clock,
    wallClock,
    secrets,
    webhooks,
    dispatcher: new DeliveryDispatcher({ db, wallClock, secrets, webhooks }),
    provider: input.provider ?? payoutProvider(config, sandboxBank?.payouts, scb?.provider),
    simulator: sandboxBank?.bank,
    scb: scb?.connector,
    collector: collection
      ? { qrPayload: (ref1, amountSatang) => collection.instruction({ ref1, amountSatang }).qrPayload }
      : undefined,
    apiKeys: cachedApiKeys(apiKeysOf(db), changeFeedOf(db), { clock: wallClock }),
    databaseReachable: input.databaseReachable,
    databaseDump: input.databaseDump,
  };
}
