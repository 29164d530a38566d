/**
 * Registration of `satang trigger <event>`: creates and simulates, in the sandbox, what produces
 * an event (cli/trigger.ts does the work). It reports its own errors, with the developer
 * commands' hints, and records the exit code.
 */
import { EVENT_TYPES, type EventType } from "@satang/sdk";
import { Argument, type Command, InvalidArgumentError } from "commander";
import { type CommandContext, EXIT_OK } from "../io.ts";
import { reportDevError } from "../report.ts";
import { runTrigger } from "../trigger.ts";
import { type DevFlags, devClient, devFlags } from "./dev-options.ts";

const HELP_AFTER = `
What each event takes:
  payment.received     a PromptPay payment, paid by the simulated customer
  payment.failed       a PromptPay payment, failed by the simulated bank
  payment.expired      a PromptPay payment expiring in 5 minutes, then the test clock moved 5 minutes on
                       and put back where it was (see \`satang clock\`)
  payment.canceled     a PromptPay payment, canceled
  withdraw.processing  a withdraw the simulated bank takes
  withdraw.paid        a withdraw taken, then paid
  withdraw.failed      a withdraw the simulated bank fails
  withdraw.canceled    a withdraw, canceled
  refund.processing    a paid payment refunded, the refund taken by the simulated bank
  refund.succeeded     a paid payment refunded, the refund paid to the customer
  refund.failed        a paid payment refunded, the refund failed by the simulated bank
  refund.canceled      a paid payment refunded, the refund canceled while pending
Withdraws need funds: when the wallet is short, a simulated payment is settled
into it first (which also emits payment.received).

Examples:
  satang trigger payment.received
  satang trigger withdraw.paid --amount 50000.00 --json
  satang trigger refund.succeeded`;

function satangAmount(value: string): string {
  if (!/^[0-9]{1,13}(\.0{1,2})?$/.test(value) || /^0+(\.0+)?$/.test(value)) {
    throw new InvalidArgumentError('expected an amount in satang such as "10000.00" (100.00 THB)');
  }
  return value;
}

/** Adds `trigger` to the program. */
export function registerTriggerCommand(program: Command, { io, finish }: CommandContext): void {
  devFlags(
    program
      .command("trigger")
      .description("create and simulate, in the sandbox, what produces an event")
      .addArgument(new Argument("<event>", "the event to produce").choices(EVENT_TYPES))
      .option("--amount <satang>", 'amount in satang (default "10000.00", that is 100.00 THB)', satangAmount),
  )
    .addHelpText("after", HELP_AFTER)
    .action(async (event: EventType, flags: DevFlags & { amount?: string }) => {
      try {
        const { satang } = devClient(flags, io.env);
        await runTrigger({
          satang,
          event,
          amount: flags.amount ?? "10000.00",
          json: Boolean(flags.json),
          io,
        });
        finish({ exitCode: EXIT_OK });
      } catch (error) {
        finish({ exitCode: reportDevError(error, io, Boolean(flags.json), flags.url) });
      }
    });
}
