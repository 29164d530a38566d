/**
 * `scb-exchange-retention` (exchanges.ts): deletes recorded exchanges older than
 * SCB_EXCHANGE_RETENTION_DAYS, a batch per run and again at once while it finds some, then looks
 * again an hour later. It runs whatever the connectors, so exchanges recorded before SCB was
 * switched off are trimmed too.
 */
import { PROVIDER_EXCHANGE_RETENTION_JOB_INTERVAL_MS } from "../../lib/limits.ts";
import type { ConnectorJob } from "../port.ts";
import { type ExchangeRetentionContext, pruneScbExchanges } from "./exchanges.ts";

export const scbExchangeRetentionJob: ConnectorJob<ExchangeRetentionContext> = {
  name: "scb-exchange-retention",
  intervalMs: PROVIDER_EXCHANGE_RETENTION_JOB_INTERVAL_MS,
  runOnce: (ctx) => pruneScbExchanges(ctx),
};
