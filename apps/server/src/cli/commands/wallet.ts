/**
 * `satang wallet adjust`: an operator's credit or debit of a merchant's wallet, with a reason
 * kept in the ledger.
 */
import type { Command } from "commander";
import { formatThb, parseWireFigure } from "../../lib/money.ts";
import { adminClient } from "../client.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult } from "../options.ts";

/** A wire figure as people read it: "100000.00 satang (1000.00 THB)"; anything else as it came. */
function figure(value: unknown): string {
  const satang = parseWireFigure(value);
  return satang === null ? String(value) : `${String(value)} satang (${formatThb(satang)} THB)`;
}

interface AdjustFlags extends OutputOptions {
  merchant: string;
  amount: string;
  reason: string;
  idempotencyKey?: string;
}

/** Adds `wallet adjust` to the program. */
export function registerWalletCommands(program: Command, { io }: CommandContext): void {
  const wallet = program.command("wallet").description("operator adjustments of a merchant's wallet");
  clientFlags(
    wallet.command("adjust").description("credit (+) or debit (-) a merchant's wallet, with a reason"),
  )
    .requiredOption("--merchant <id>", "merchant id")
    .requiredOption("--amount <amount>", 'signed amount in satang, e.g. "100000.00" or "-2500.00"')
    .requiredOption("--reason <text>", "why; kept in the ledger")
    .option(
      "--idempotency-key <key>",
      "a key of your own for this adjustment: run again with the same key and flags, it answers the adjustment made and moves no money",
    )
    .action(async (flags: AdjustFlags) => {
      const { data, headers } = await adminClient(flags, io.env).answer<Record<string, unknown>>(
        "POST",
        `/merchants/${encodeURIComponent(flags.merchant)}/wallet/adjustments`,
        {
          amount: flags.amount,
          reason: flags.reason,
          ...(flags.idempotencyKey === undefined ? {} : { idempotencyKey: flags.idempotencyKey }),
        },
      );
      printResult(io, flags, data, () =>
        headers.get("idempotent-replayed") === "true"
          ? `Already adjusted with key ${String(data.idempotencyKey)}: no money moved now. The adjustment it made: ` +
            `${String(data.merchantId)} by ${figure(data.amount)}, available then ${figure(data.balanceAfter)}`
          : `Adjusted wallet of ${String(data.merchantId)} by ${figure(data.amount)}: available ${figure(data.balanceAfter)}` +
            (flags.idempotencyKey === undefined ? "" : ` (key ${flags.idempotencyKey})`),
      );
    });
}
