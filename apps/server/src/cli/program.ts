/**
 * The `satang` command line: `serve`, `worker`, `migrate`, operator commands that wrap the admin
 * API, and the developer commands `listen` and `trigger`. Each command group lives in its own
 * file under commands/ and is added here by its registration function; this file only
 * assembles the program, runs it, and reports what failed.
 *
 * Exit codes: 0 success, 1 the API refused the request (its code and message are printed),
 * 2 usage or configuration error, 3 the server could not be reached.
 */
import { Command } from "commander";
import { registerBackupCommands } from "./commands/backup.ts";
import { registerClockCommands } from "./commands/clock.ts";
import { registerConnectorCommands } from "./commands/connector.ts";
import { registerExportCommand } from "./commands/export.ts";
import { registerIntegrationCommands } from "./commands/integration.ts";
import { registerListenCommand } from "./commands/listen.ts";
import { registerMerchantCommands } from "./commands/merchant.ts";
import { registerOperatorCommands } from "./commands/operator.ts";
import { registerPaymentCommands } from "./commands/payment.ts";
import { registerPayoutCommands } from "./commands/payouts.ts";
import { registerRefundCommands } from "./commands/refund.ts";
import { registerServerCommands } from "./commands/serve.ts";
import { registerTriggerCommand } from "./commands/trigger.ts";
import { registerUndecidedCommands } from "./commands/undecided.ts";
import { registerUserCommands } from "./commands/user.ts";
import { registerWalletCommands } from "./commands/wallet.ts";
import { registerWithdrawCommands } from "./commands/withdraw.ts";
import { type CliIo, type CliOutcome, type CommandContext, EXIT_OK } from "./io.ts";
import { reportError } from "./report.ts";

// The type of the io `runCli` takes, for callers that run the CLI in-process (tests).
export type { CliIo } from "./io.ts";

/** The command groups, in the order `satang --help` lists them. */
const COMMAND_GROUPS: Array<(program: Command, context: CommandContext) => void> = [
  registerServerCommands,
  registerMerchantCommands,
  registerIntegrationCommands,
  registerWalletCommands,
  registerWithdrawCommands,
  registerPayoutCommands,
  registerPaymentCommands,
  registerRefundCommands,
  // After the withdraw, payouts and refund groups, which it adds to.
  registerUndecidedCommands,
  registerConnectorCommands,
  registerUserCommands,
  registerOperatorCommands,
  registerListenCommand,
  registerTriggerCommand,
  registerClockCommands,
  registerExportCommand,
  registerBackupCommands,
];

/** The whole program; commander's own output (help, usage errors) goes through `io`. */
function buildProgram(context: CommandContext): Command {
  const { io } = context;
  const program = new Command("satang")
    .description("Satang payments gateway: run the server and manage merchants")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .showHelpAfterError("(run with --help for usage)")
    .hook("preAction", refuseEmptyArguments);
  for (const register of COMMAND_GROUPS) register(program, context);
  return program;
}

/**
 * An argument or an option's value given as an empty or blank string (`satang withdraw approve
 * ""`, `--merchant "  "`, an unset shell variable in quotes, a zero-width space pasted alone) is
 * a usage mistake (exit 2) before anything is sent: sent, it would only come back as a "not
 * found" of the API. Nothing takes an empty value on purpose: what a command can clear has a flag
 * of its own (`--clear-redirect-url`).
 */
function refuseEmptyArguments(_program: Command, command: Command): void {
  // Blank: nothing but white space and invisible format characters (a zero-width space, a BOM).
  const blank = (value: unknown) => typeof value === "string" && value.replace(/[\s\p{Cf}]/gu, "") === "";
  for (const [i, argument] of command.registeredArguments.entries()) {
    if (blank(command.args[i])) {
      command.error(`error: argument '${argument.name()}' is empty`, {
        exitCode: 2,
        code: "satang.emptyArgument",
      });
    }
  }
  for (const option of command.options) {
    const key = option.attributeName();
    if (command.getOptionValueSource(key) === "cli" && blank(command.getOptionValue(key))) {
      command.error(`error: option '${option.long ?? option.flags}' is empty`, {
        exitCode: 2,
        code: "satang.emptyArgument",
      });
    }
  }
}

/**
 * Runs one command. The server modules (fastify, the database drivers) are loaded only by the
 * commands that need them, so operator commands start quickly.
 */
export async function runCli(args: string[], io: CliIo): Promise<CliOutcome> {
  let outcome: CliOutcome = { exitCode: EXIT_OK };
  const program = buildProgram({
    io,
    finish: (next) => {
      outcome = next;
    },
  });
  try {
    await program.parseAsync(args, { from: "user" });
  } catch (error) {
    return { exitCode: reportError(error, io, args.includes("--json")) };
  }
  return outcome;
}
