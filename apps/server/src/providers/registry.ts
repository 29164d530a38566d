/**
 * The connectors of a deployment, by name, in SATANG_PROVIDER's order (CONTRACT 15). This file
 * and config.ts are the only places outside `providers/<name>/` that name a connector: the
 * lifecycle, jobs, routes and CLI reach every connector through this registry and the port
 * (providers/port.ts).
 */
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

export { createSimulatedConnector, type SimulatedConnector } from "./simulated/connector.ts";
