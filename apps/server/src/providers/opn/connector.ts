/**
 * The Opn Payments connector of a deployment (CONTRACT 15, docs/providers/opn.md): one client,
 * PromptPay collection, and payouts unless the operator's payout desk pays withdraws.
 */
import type { OpnConfig } from "../../config.ts";
import type { Db } from "../../db/handles.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Connector } from "../port.ts";
import { OpnClient } from "./client.ts";
import { OpnCollection } from "./collection.ts";
import { OPN_PROVIDER_NAME, OpnPayouts } from "./payouts.ts";

export { OPN_PROVIDER_NAME } from "./payouts.ts";

export interface OpnConnectorDeps {
  db: Db;
  /** Real time (Deps.wallClock): Opn's signature timestamps and a recipient's waiting are Opn's time. */
  clock: Clock;
  /** False when SATANG_PAYOUTS=manual (the payout desk pays) or another connector pays out. */
  payouts?: boolean;
  /** How long a lost transfer create must stay absent from Opn's list before it is sent again. */
  settleMs?: number;
  fetch?: typeof fetch;
}

/** A lost create lands, if at all, within its call's timeout: twice that is the settle time. */
function defaultSettleMs(config: OpnConfig): number {
  return Math.max(60_000, 2 * config.requestTimeoutMs);
}

export function createOpnConnector(config: OpnConfig, deps: OpnConnectorDeps): Connector {
  const client = new OpnClient({
    baseUrl: config.apiBaseUrl,
    secretKey: config.secretKey,
    timeoutMs: config.requestTimeoutMs,
    fetch: deps.fetch,
  });
  // Built whoever takes new payouts: the transfers Opn holds already are still asked about.
  const payouts = new OpnPayouts(
    client,
    deps.db,
    { recipientVerifyMaxMs: config.recipientVerifyMaxMs, settleMs: deps.settleMs ?? defaultSettleMs(config) },
    deps.clock,
  );
  return {
    name: OPN_PROVIDER_NAME,
    callbackToken: config.callbackToken,
    collection: new OpnCollection(client, { webhookSecret: config.webhookSecret }, deps.clock),
    payouts: deps.payouts === false ? undefined : payouts,
    heldPayouts: payouts,
  };
}
