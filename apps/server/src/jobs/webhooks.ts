/**
 * The webhook delivery job: each run starts sending what fits in the process's free slots and
 * returns without waiting for the sends (events/delivery.ts); between runs it waits for a send
 * to finish or the poll interval, whichever comes first; a stop drains the sends and closes the
 * kept-alive connections.
 */
import type { DeliveryDispatcher } from "../events/delivery.ts";
import { WEBHOOK_POLL_INTERVAL_MS } from "../lib/limits.ts";
import type { Job } from "./runner.ts";

export const webhookDeliveryJob: Job<{ dispatcher: DeliveryDispatcher }> = {
  name: "webhook-delivery",
  intervalMs: WEBHOOK_POLL_INTERVAL_MS,
  runOnce: (ctx) => ctx.dispatcher.dispatch(),
  drain: (ctx) => ctx.dispatcher.close(),
  idle: (ctx, ms) => ctx.dispatcher.idle(ms),
};
