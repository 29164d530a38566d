/**
 * `scb-exchange-retention` (exchanges.ts): deletes recorded exchanges older than
 * SCB_EXCHANGE_RETENTION_DAYS, a batch per run and again at once while it finds some, then looks
 * again an hour later. It runs whatever the connectors, so exchanges recorded before SCB was
 * switched off are trimmed too.
 */
import type { Config } from "../../config.ts";
import type { Db } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import {
  PROVIDER_EXCHANGE_RETENTION_BATCH_SIZE,
  PROVIDER_EXCHANGE_RETENTION_JOB_INTERVAL_MS,
} from "../../lib/limits.ts";
import type { ConnectorJob } from "../port.ts";
import { deleteExchangesBefore } from "./store.ts";

const DAY_MS = 86_400_000;

/** What the retention job uses: the store, real time (exchanges are stamped with it), the setting. */
export interface ExchangeRetentionContext {
  db: Db;
  wallClock: Clock;
  config: Pick<Config, "scbExchangeRetentionDays">;
}

/**
 * Deletes one batch of exchanges older than SCB_EXCHANGE_RETENTION_DAYS and says how many; the
 * job runner calls it again at once while it finds some.
 */
export function pruneScbExchanges(
  ctx: ExchangeRetentionContext,
  batchSize: number = PROVIDER_EXCHANGE_RETENTION_BATCH_SIZE,
): Promise<number> {
  const before = new Date(ctx.wallClock.now().getTime() - ctx.config.scbExchangeRetentionDays * DAY_MS);
  return deleteExchangesBefore(ctx.db, before, batchSize);
}

export const scbExchangeRetentionJob: ConnectorJob<ExchangeRetentionContext> = {
  name: "scb-exchange-retention",
  intervalMs: PROVIDER_EXCHANGE_RETENTION_JOB_INTERVAL_MS,
  runOnce: (ctx) => pruneScbExchanges(ctx),
};
