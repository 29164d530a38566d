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

/** Every control and format character, line breaks and tabs included (values, below). */
const VALUE_UNSAFE = /[\p{Cc}\p{Cf}]/gu;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

/**
 * Characters a terminal acts on or hides: controls (C0, DEL, C1) but the line break and the
 * tab, and format characters (zero-width and direction marks). Text from the server (names,
 * reasons, descriptions) may hold them.
 */
const TERMINAL_UNSAFE = /(?![\n\t])[\p{Cc}\p{Cf}]/gu;

/**
 * Text as a person's terminal may show it: each character of TERMINAL_UNSAFE written as its
 * `\u` escape, so an escape sequence in a name cannot rewrite the screen or hide itself.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_UNSAFE, escaped);
}

/**
 * Every string inside `value` with its control and format characters escaped, line breaks and
 * tabs included: a value's own line break would start a row of its own in a listing (a name
 * "x\nsk_test_... active" would read as a second record). Changed in place, so the summary
 * built from the same object prints the escaped values.
 */
function escapeValuesInPlace(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (typeof item === "string") value[i] = item.replace(VALUE_UNSAFE, escaped);
      else escapeValuesInPlace(item);
    });
  } else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    for (const [key, item] of Object.entries(record)) {
      if (typeof item === "string") record[key] = item.replace(VALUE_UNSAFE, escaped);
      else escapeValuesInPlace(item);
    }
  }
}

/** The API's data object with --json (for scripts), else the friendly summary. */
export function printResult(io: CliIo, flags: OutputOptions, data: unknown, friendly: () => string): void {
  if (flags.json) {
    io.stdout(`${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  escapeValuesInPlace(data);
  io.stdout(`${terminalSafe(friendly())}\n`);
}
