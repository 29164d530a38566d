/**
 * The connectors of a deployment, by name, in SATANG_PROVIDER's order (CONTRACT 15). This file
 * and config.ts are the only places outside `providers/<name>/` that name a connector: the
 * lifecycle, jobs, routes and CLI reach every connector through this registry and the port
 * (providers/port.ts).
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/handles.ts";
import type { Clock } from "../lib/clock.ts";
import { createOpnConnector } from "./opn/connector.ts";
import type { Connector } from "./port.ts";

export interface Connectors {
  /** Every live connector of the deployment, in failover order. */
  readonly all: readonly Connector[];
  byName(name: string): Connector | undefined;
}

export function connectorsOf(list: readonly Connector[]): Connectors {
  const byName = new Map(list.map((connector) => [connector.name, connector]));
  return { all: list, byName: (name) => byName.get(name) };
}

/** What building the live connectors needs from the composition root. */
export interface ConnectorsInput {
  config: Config;
  db: Db;
  /** Real time: providers' signatures and waits are their time, not the business clock's. */
  wallClock: Clock;
}

/**
 * The live connectors of a deployment, built in SATANG_PROVIDER's order: the one place a
 * connector's name meets its constructor. Only the connector named by SATANG_PAYOUT_PROVIDER pays
 * withdraws, and none does when SATANG_PAYOUTS=manual. Connectors not yet behind the port are not
 * in the list; the sandbox (`simulated`) has none.
 */
export function liveConnectors(input: ConnectorsInput): Connector[] {
  const { config } = input;
  const list: Connector[] = [];
  for (const name of config.providers ?? (config.provider ? [config.provider] : [])) {
    const pays = config.payouts !== "manual" && config.payoutProvider === name;
    if (name === "opn" && config.opn) {
      list.push(createOpnConnector(config.opn, { db: input.db, clock: input.wallClock, payouts: pays }));
    }
  }
  return list;
}
