/**
 * What every service needs, built once at start and passed down (tests build their own).
 * `clock` is the business clock (record timestamps, expiry, windows); `wallClock` is real time
 * for authentication tolerance and rate-limit windows, which the sandbox test clock never moves.
 */
import type { Kysely } from "kysely";
import type { Config } from "./config.ts";
import type { DatabaseKind } from "./db/connect.ts";
import type { Database } from "./db/types.ts";
import type { Clock } from "./lib/clock.ts";
import type { SecretBox } from "./lib/crypto.ts";

export interface Deps {
  config: Config;
  db: Kysely<Database>;
  storeKind: DatabaseKind;
  clock: Clock;
  wallClock: Clock;
  secrets: SecretBox;
}
