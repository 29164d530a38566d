/**
 * `satang <connector> ...`: each connector's operator commands (the provider exchanges it
 * recorded, a payment by the reference the provider shows, the day's figures), as the connector
 * describes them in its folder and the registry lists them (providers/registry.ts
 * `CONNECTOR_COMMANDS`). Every one is a GET of the operator API, printed as lines a person reads
 * or, with --json, as the API's data object.
 */
import { type Command, InvalidArgumentError, Option } from "commander";
import type { CommandOptionValue, CommandOutput, ConnectorCommandSpec } from "../../providers/operator.ts";
import { CONNECTOR_COMMANDS } from "../../providers/registry.ts";
import { adminClient } from "../client.ts";
import {
  type DailyReportData,
  formatDailyReport,
  formatExchange,
  formatExchangeList,
  formatProviderPayment,
} from "../format.ts";
import type { CliIo, CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult, wholeNumber } from "../options.ts";

function dateOption(value: string): string {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(value)) throw new InvalidArgumentError("expected YYYY-MM-DD");
  return value;
}

function oneOfOption(choices: readonly string[]): (value: string) => string {
  return (value) => {
    if (!choices.includes(value)) {
      throw new InvalidArgumentError(`expected ${choices.map((c) => `"${c}"`).join(" or ")}`);
    }
    return value;
  };
}

function parserOf(value: CommandOptionValue): (raw: string) => unknown {
  if (value === "whole_number") return wholeNumber;
  if (value === "date") return dateOption;
  return oneOfOption(value.oneOf);
}

/** The answer as lines a person reads, by the connector's chosen shape. */
function friendly(output: CommandOutput, data: unknown): string {
  switch (output.kind) {
    case "exchange_list":
      return formatExchangeList(data as Parameters<typeof formatExchangeList>[0], output);
    case "exchange":
      return formatExchange(data as Record<string, unknown>, output);
    case "payment":
      return formatProviderPayment(data as Record<string, unknown>, {
        label: output.referenceLabel,
        field: output.referenceField,
      });
    case "daily_report":
      return formatDailyReport(data as DailyReportData);
  }
}

function registerCommand(group: Command, spec: ConnectorCommandSpec, io: CliIo): void {
  // The client flags come first in `--help`, then the command's own.
  const command = clientFlags(group.command(spec.name).description(spec.description));
  if (spec.argument) command.argument(`<${spec.argument.name}>`, spec.argument.description);
  const options = spec.options.map((described) => {
    const option = new Option(described.flags, described.description);
    if (described.value) option.argParser(parserOf(described.value));
    if (described.required) option.makeOptionMandatory();
    command.addOption(option);
    return { option, query: described.query };
  });
  command.action(async (...args: unknown[]) => {
    const argument = spec.argument ? (args[0] as string) : undefined;
    const flags = (spec.argument ? args[1] : args[0]) as OutputOptions & Record<string, unknown>;
    const query = new URLSearchParams();
    for (const { option, query: name } of options) {
      const value = flags[option.attributeName()];
      if (value !== undefined) query.set(name, String(value));
    }
    const path = spec.path.replace("{argument}", encodeURIComponent(argument ?? ""));
    const suffix = query.size > 0 ? `?${query}` : "";
    const data = await adminClient(flags, io.env).call("GET", `${path}${suffix}`);
    printResult(io, flags, data, () => friendly(spec.output, data));
  });
}

/** Adds each connector's group (`satang <name> exchanges`, ...) to the program. */
export function registerConnectorCommands(program: Command, { io }: CommandContext): void {
  for (const connector of CONNECTOR_COMMANDS) {
    const group = program.command(connector.name).description(connector.description);
    for (const spec of connector.commands) registerCommand(group, spec, io);
  }
}
