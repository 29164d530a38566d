/**
 * Options and output shared by the operator commands: where the server is, the admin token,
 * --json, and how a result is printed.
 */
import { type Command, InvalidArgumentError } from "commander";
import type { ClientOptions } from "./client.ts";
import type { CliIo } from "./io.ts";

export interface OutputOptions extends ClientOptions {
  json?: boolean;
}

/** "none" removes an optional setting (a limit, the threshold, the PromptPay id). */
export function orNone(value: string): string | null {
  return value.toLowerCase() === "none" ? null : value;
}

export function wholeNumber(value: string): number {
  if (!/^[0-9]{1,6}$/.test(value)) throw new InvalidArgumentError("expected a whole number");
  return Number(value);
}

/** Adds --url, --token and --json, in that order, after the options the command already has. */
export function clientFlags(command: Command): Command {
  return command
    .option("--url <url>", "server address (default: SATANG_URL, else http://HOST:PORT)")
    .option("--token <token>", "admin token (default: ADMIN_TOKEN, else DATA_DIR/admin-token)")
    .option("--json", "print the machine-readable data object");
}

/** The API's data object with --json (for scripts), else the friendly summary. */
export function printResult(io: CliIo, flags: OutputOptions, data: unknown, friendly: () => string): void {
  io.stdout(flags.json ? `${JSON.stringify(data, null, 2)}\n` : `${friendly()}\n`);
}
