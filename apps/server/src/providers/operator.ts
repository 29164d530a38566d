/**
 * What a connector shows the operator, beside the port it offers the lifecycle (port.ts): its
 * own routes under /admin/v1 (the provider exchanges it recorded, a payment found by the
 * reference the provider shows), its `satang <name> ...` commands, and its day book (what it
 * saw paid in on a Bangkok day, for the daily report). Each connector defines these in its
 * folder; the registry lists them, and the admin plugin, the CLI and the daily report use them
 * without knowing which connectors there are.
 */
import type { FastifyPluginAsync } from "fastify";
import type { Db } from "../db/handles.ts";
import type { ViewContext } from "../payments/view.ts";

/** What a connector's operator routes are given: the store, and how payments are shown. */
export interface OperatorRoutesContext {
  db: Db;
  config: ViewContext;
}

/** A connector's operator routes, mounted under /admin/v1 behind the operator's credentials. */
export type OperatorRoutes = (ctx: OperatorRoutesContext) => FastifyPluginAsync;

/** How an option's value is checked before any request leaves. */
export type CommandOptionValue = "whole_number" | "date" | { oneOf: readonly string[] };

export interface CommandOptionSpec {
  /** As commander takes them: `--payment <id>`, or `--unreadable` for a flag without a value. */
  flags: string;
  description: string;
  /** The query parameter of the request it sets (a flag sets it to `true`). */
  query: string;
  value?: CommandOptionValue;
  required?: boolean;
}

/**
 * How an answer is printed without --json, by the CLI's own formatters (cli/format.ts):
 * - `exchange_list`, `exchange`: provider exchanges, with the references the connector records
 *   (label, field) and, for one exchange, the ids it names;
 * - `payment`: a payment found by the provider's reference, under the connector's label;
 * - `daily_report`: the operator's report of one day (GET /admin/v1/reports/daily).
 */
export type CommandOutput =
  | { kind: "exchange_list"; noun: string; references: readonly (readonly [string, string])[] }
  | {
      kind: "exchange";
      references: readonly (readonly [string, string])[];
      details: readonly (readonly [string, string])[];
    }
  | { kind: "payment"; referenceLabel: string; referenceField: string }
  | { kind: "daily_report" };

/** One `satang <group> <name>` command: a GET of the operator API, printed one way or as JSON. */
export interface ConnectorCommandSpec {
  name: string;
  description: string;
  argument?: { name: string; description: string };
  /** In the order `--help` lists them. */
  options: readonly CommandOptionSpec[];
  /** The path below /admin/v1; `{argument}` is replaced by the argument, percent-encoded. */
  path: string;
  output: CommandOutput;
}

/** A connector's group of commands: `satang <name> ...`. */
export interface ConnectorCommandGroup {
  name: string;
  description: string;
  commands: readonly ConnectorCommandSpec[];
}

/** A count of transactions and their sum. */
export interface Figure {
  count: number;
  amountSatang: bigint;
}

/** A connector's daily sweep of one date: how far it got. */
export interface DaySweep {
  status: "running" | "finished";
  asked: number;
  found: number;
  lastError: string | null;
}

/**
 * What a connector saw paid in on one Bangkok day: every transaction of that date it has seen
 * (notifications, the reconciler, its sweep), those credited to a payment, and its sweep of the
 * date when it sweeps days (undefined when it does not, or has not started that date).
 */
export interface DayBook {
  transactions(db: Db, date: string): Promise<{ paidIn: Figure; credited: Figure }>;
  sweep?(db: Db, date: string): Promise<DaySweep | undefined>;
}
