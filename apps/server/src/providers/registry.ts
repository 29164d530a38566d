/**
 * The connectors of a deployment, by name, in SATANG_PROVIDER's order (CONTRACT 15). This file
 * and config.ts are the only places outside `providers/<name>/` that name a connector: the
 * lifecycle, jobs, routes and CLI reach every connector through this registry and the port
 * (providers/port.ts).
 */
import type { ConnectorCommandGroup, DayBook, OperatorRoutes } from "./operator.ts";
import type { Connector } from "./port.ts";
import { SCB_COMMANDS } from "./scb/commands.ts";

export interface Connectors {
  /** Every live connector of the deployment, in failover order. */
  readonly all: readonly Connector[];
  byName(name: string): Connector | undefined;
}

export function connectorsOf(list: readonly Connector[]): Connectors {
  const byName = new Map(list.map((connector) => [connector.name, connector]));
  return { all: list, byName: (name) => byName.get(name) };
}

// What each connector shows the operator (operator.ts). Registered whatever SATANG_PROVIDER
// says: a deployment that stopped using a connector still shows what it recorded, and one that
// never used it shows empty lists. The routes and the day books are loaded when first used, so
// the CLI, which only needs the commands, does not load the server's modules.

/** The connector the OpenAPI document's examples name. */
export const EXAMPLE_CONNECTOR_NAME = "scb";

/** Each connector's operator routes under /admin/v1, registered by the admin plugin. */
export const CONNECTOR_OPERATOR_ROUTES: readonly (() => Promise<OperatorRoutes>)[] = [
  async () => (await import("./scb/operator-routes.ts")).scbOperatorRoutes,
];

/** Each connector's `satang <name> ...` commands, registered by cli/commands/connector.ts. */
export const CONNECTOR_COMMANDS: readonly ConnectorCommandGroup[] = [SCB_COMMANDS];

/** Each connector's day book: the daily report adds them up (lifecycle/daily-report.ts). */
export const CONNECTOR_DAY_BOOKS: readonly (() => Promise<DayBook>)[] = [
  async () => (await import("./scb/day-book.ts")).scbDayBook,
];
