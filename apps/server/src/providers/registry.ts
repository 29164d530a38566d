/**
 * The connectors of a deployment, by name, in SATANG_PROVIDER's order (CONTRACT 15). This file
 * and config.ts are the only places outside `providers/<name>/` that name a connector: the
 * lifecycle, jobs, routes and CLI reach every connector through this registry and the port
 * (providers/port.ts).
 *
 * - `buildConnectors` builds every live connector a list of names asks for, in that order; the
 *   first one that pays out takes the payouts, unless SATANG_PAYOUTS=manual (the payout desk).
 * - `connectorSecrets` lists every secret of every configured connector, for log redaction.
 * - `CONNECTOR_JOBS` are the jobs connectors keep for their own tables.
 */
import { type Config, liveProviderNames, type OpnConfig } from "../config.ts";
import type { Db } from "../db/handles.ts";
import type { Clock } from "../lib/clock.ts";
import type { ConnectorCommandGroup, DayBook, OperatorRoutes } from "./operator.ts";
import { createOpnConnector, OPN_PROVIDER_NAME } from "./opn/connector.ts";
import type { Connector, ConnectorJob } from "./port.ts";
import { SCB_COMMANDS } from "./scb/commands.ts";
import { createScbConnector, SCB_PROVIDER_NAME } from "./scb/connector.ts";
import type { ScbRecorder } from "./scb/recorder.ts";
import type { ExchangeRetentionContext } from "./scb/retention-job.ts";
import { scbExchangeRetentionJob } from "./scb/retention-job.ts";
import { DatabaseRecorder } from "./scb/store.ts";
import { UnreadableAnswers } from "./scb/unreadable.ts";

export interface Connectors {
  /** Every live connector of the deployment, in failover order. */
  readonly all: readonly Connector[];
  byName(name: string): Connector | undefined;
}

export function connectorsOf(list: readonly Connector[]): Connectors {
  const byName = new Map(list.map((connector) => [connector.name, connector]));
  return { all: list, byName: (name) => byName.get(name) };
}

/** Where a connector's exchanges with its provider are recorded (the operator's view). */
export type ExchangeRecorder = ScbRecorder;

/** The settings the connectors are built from. */
export type ConnectorSettings = Pick<Config, "provider" | "payouts" | "scb"> &
  Partial<Pick<Config, "providers" | "payoutProvider">> & {
    opn?: OpnConfig | undefined;
  };

export interface ConnectorDeps {
  db: Db;
  /** Real time (Deps.wallClock): every provider's own clock. */
  clock: Clock;
  /** Where exchanges are recorded; the connector's own table unless a test keeps them. */
  exchangeRecorder?: ExchangeRecorder | undefined;
  /** Told when an exchange record could not be kept. */
  onRecorderError?: (error: unknown) => void;
}

/**
 * The live connectors a configuration names, in SATANG_PROVIDER's failover order. `simulated`
 * (the sandbox's bank, providers/simulated/) is not among them: the sandbox keeps it as its
 * simulated bank (Deps.simulator).
 */
export function connectorNames(config: Pick<ConnectorSettings, "provider" | "providers">): string[] {
  return liveProviderNames(config);
}

/**
 * Builds every live connector `names` asks for, in that order. A name whose settings are absent
 * builds nothing. Payouts go to one connector: SATANG_PAYOUT_PROVIDER's, else the first that
 * pays out; none with SATANG_PAYOUTS=manual (the payout desk).
 */
export function buildConnectors(
  config: ConnectorSettings,
  deps: ConnectorDeps,
  names: readonly string[] = connectorNames(config),
): Connector[] {
  const built: Connector[] = [];
  let paying = config.payouts !== "manual";
  const pays = (name: string) => paying && (config.payoutProvider ?? name) === name;
  for (const name of names) {
    if (name === SCB_PROVIDER_NAME && config.scb) {
      const scb = createScbConnector(config.scb, {
        db: deps.db,
        clock: deps.clock,
        recorder: deps.exchangeRecorder ?? new DatabaseRecorder(deps.db),
        onRecorderError: deps.onRecorderError,
      });
      built.push(pays(name) ? scb : { ...scb, payouts: undefined });
    } else if (name === OPN_PROVIDER_NAME && config.opn) {
      built.push(createOpnConnector(config.opn, { db: deps.db, clock: deps.clock, payouts: pays(name) }));
    } else {
      continue;
    }
    if (built.at(-1)?.payouts) paying = false;
  }
  return built;
}

/** Without a connector's own setting, a live payment is first asked about this long after create. */
const RECONCILE_INTERVAL_DEFAULT_MS = 60_000;

/** How often the collections reconciler asks (SCB_RECONCILE_INTERVAL_S, or a minute). */
export function reconcileIntervalOf(config: Partial<Pick<ConnectorSettings, "scb">>): number {
  return config.scb?.reconcileIntervalMs ?? RECONCILE_INTERVAL_DEFAULT_MS;
}

/** Every secret of every configured connector: never printed in a log line. */
export function connectorSecrets(config: Partial<Pick<ConnectorSettings, "scb" | "opn">>): string[] {
  return [
    config.scb?.callbackToken,
    config.scb?.apiSecret,
    config.scb?.apiKey,
    config.opn?.secretKey,
    config.opn?.callbackToken,
    config.opn?.webhookSecret ?? undefined,
  ].filter((secret): secret is string => Boolean(secret));
}

/** Answers a connector could not read, which the process's logger is told of. */
export function unreadableAnswersOf(connectors: Connectors): UnreadableAnswers[] {
  return connectors.all.flatMap((c) =>
    "unreadable" in c && c.unreadable instanceof UnreadableAnswers ? [c.unreadable] : [],
  );
}

/** What the connectors' own jobs run with. */
export type ConnectorJobsContext = ExchangeRetentionContext;

/**
 * The jobs connectors keep for their own tables (each connector's file says what it does). They
 * run whatever SATANG_PROVIDER says, so what a connector recorded before it was switched off is
 * kept in bounds too.
 */
export const CONNECTOR_JOBS: readonly ConnectorJob<ConnectorJobsContext>[] = [scbExchangeRetentionJob];

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

/** Each connector's own metrics, appended to /metrics (SCB's unreadable answers); loaded when first asked. */
export async function connectorMetrics(db: Db): Promise<string> {
  return (await import("./scb/exchanges.ts")).unreadableAnswersMetric(db);
}
/** The sandbox's bank, the simulated connector (providers/simulated/): Deps.simulator. */
export {
  createSimulatedConnector as createSandboxBank,
  type SimulatedConnector as SandboxBankConnector,
} from "./simulated/connector.ts";
