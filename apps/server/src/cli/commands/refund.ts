/**
 * `satang refund create|show|list|cancel`: a merchant's refunds (CONTRACT 16) from the command
 * line, with the merchant's API key like `trigger` and `listen`: the same public API (through
 * the SDK) a merchant's own code calls.
 */
import type { Refund, Satang } from "@satang/sdk";
import { InvalidInputError, satangToBaht } from "@satang/sdk";
import type { Command } from "commander";
import { type CliIo, type CommandContext, EXIT_OK } from "../io.ts";
import { reportDevError } from "../report.ts";
import { type DevFlags, devClient, devFlags } from "./dev-options.ts";

const HELP_AFTER = `
Amounts are in satang, as in the API: "25000.00" is 250.00 THB.
Without --amount the whole payment is refunded (what it has left to refund must cover it).

Examples:
  satang refund create 0b8f2c4e-6d1a-4f3b-9c7e-5a2d8e1f4b60 --amount 25000.00 --reference return-1042 --reason "Returned"
  satang refund list --payment 0b8f2c4e-6d1a-4f3b-9c7e-5a2d8e1f4b60
  satang refund cancel 5c1e7a93-2b4d-4e8f-a6c0-3d9b1f2e7a84`;

interface CreateFlags extends DevFlags {
  amount?: string;
  reference: string;
  reason?: string;
}

function line(refund: Refund): string {
  const reason = refund.failureReason ? ` (${refund.failureReason})` : "";
  return `${refund.id}  ${refund.status.padEnd(10)} ${satangToBaht(refund.amount)} THB  payment ${refund.paymentId}  ${refund.referenceId}${reason}`;
}

function print(io: CliIo, flags: DevFlags, data: unknown, text: string): void {
  io.stdout(flags.json ? `${JSON.stringify(data)}\n` : `${text}\n`);
}

/**
 * A create without --amount asks for the payment's whole amount; when earlier refunds leave less,
 * the refusal names an amount the user never typed: say where it came from and what to pass.
 */
function hintWholeAmount(io: CliIo, error: unknown, asked: string): void {
  if (!(error instanceof InvalidInputError)) return;
  const refundable = (error.metadata as { refundable?: unknown } | undefined)?.refundable;
  if (typeof refundable !== "string") return;
  io.stderr(
    `satang: without --amount the payment's whole amount (${satangToBaht(asked)} THB) is asked for; ` +
      `it has ${satangToBaht(refundable)} THB left to refund` +
      (refundable === "0.00" ? ".\n" : `: pass --amount ${refundable} to refund that.\n`),
  );
}

/** Runs one subcommand: its errors are reported with the developer commands' hints. */
function action<A extends unknown[]>(
  { io, finish }: CommandContext,
  run: (satang: Satang, ...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const flags = args.at(-2) as DevFlags;
    try {
      await run(devClient(flags, io.env).satang, ...args);
      finish({ exitCode: EXIT_OK });
    } catch (error) {
      finish({ exitCode: reportDevError(error, io, Boolean(flags.json), flags.url) });
    }
  };
}

/** Adds the `refund` group to the program. */
export function registerRefundCommands(program: Command, context: CommandContext): void {
  const { io } = context;
  const refund = program
    .command("refund")
    .description("refund a succeeded payment, and see or cancel refunds");
  refund.addHelpText("after", HELP_AFTER);
  devFlags(
    refund
      .command("create")
      .description("refund a succeeded payment, in whole or in part")
      .argument("<paymentId>", "the payment to refund")
      .option("--amount <satang>", "amount in satang (default: the payment's whole amount)")
      .requiredOption("--reference <referenceId>", "your reference, unique among your refunds (required)")
      .option("--reason <text>", "why the money goes back"),
  ).action(
    action(context, async (satang, paymentId: string, flags: CreateFlags) => {
      const amount = flags.amount ?? (await satang.payments.retrieve(paymentId)).amount;
      const created = await satang.refunds
        .create(paymentId, {
          amount,
          referenceId: flags.reference,
          ...(flags.reason === undefined ? {} : { reason: flags.reason }),
        })
        .catch((error: unknown) => {
          if (flags.amount === undefined) hintWholeAmount(io, error, amount);
          throw error;
        });
      print(
        io,
        flags,
        created,
        `Refund ${created.id} of ${satangToBaht(created.amount)} THB is ${created.status}`,
      );
    }),
  );
  devFlags(refund.command("show").description("show one refund").argument("<id>", "refund id")).action(
    action(context, async (satang, id: string, flags: DevFlags) => {
      const found = await satang.refunds.retrieve(id);
      print(io, flags, found, line(found));
    }),
  );
  devFlags(
    refund
      .command("list")
      .description("list refunds, newest first")
      .option("--payment <paymentId>", "only this payment's"),
  ).action(
    action(context, async (satang, flags: DevFlags & { payment?: string }) => {
      const page = await satang.refunds.list(flags.payment ? { paymentId: flags.payment } : {});
      print(io, flags, page, page.data.length === 0 ? "No refunds" : page.data.map(line).join("\n"));
    }),
  );
  devFlags(
    refund.command("cancel").description("cancel a pending refund").argument("<id>", "refund id"),
  ).action(
    action(context, async (satang, id: string, flags: DevFlags) => {
      const canceled = await satang.refunds.cancel(id);
      print(io, flags, canceled, `Refund ${canceled.id} is now ${canceled.status}`);
    }),
  );
}
