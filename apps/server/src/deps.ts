/**
 * What every service needs, built once at start and passed down (tests build their own).
 * `clock` is the business clock (record timestamps, expiry, windows); `wallClock` is real time
 * for authentication tolerance and rate-limit windows, which the sandbox test clock never moves.
 */
import type { Kysely } from "kysely";
import type { Config } from "./config.ts";
import type { DatabaseKind } from "./db/connect.ts";
import type { Database } from "./db/types.ts";
import type { WebhookOverrides } from "./events/settings.ts";
import type { Clock } from "./lib/clock.ts";
import type { SecretBox } from "./lib/crypto.ts";
import type { Provider } from "./providers/provider.ts";

export interface Deps {
  config: Config;
  db: Kysely<Database>;
  storeKind: DatabaseKind;
  clock: Clock;
  wallClock: Clock;
  secrets: SecretBox;
  /**
   * Webhook delivery settings that tests change (timeout, DNS resolver, concurrency). Unset in
   * production, where events/settings.ts supplies the limits of lib/limits.ts and system DNS.
   */
  webhooks?: WebhookOverrides;
  /**
   * The payment and payout provider. Unset means the deployment's own (providers/registry.ts):
   * the simulated bank in sandbox. Tests set it to a provider that fails on purpose.
   */
  provider?: Provider;
}
