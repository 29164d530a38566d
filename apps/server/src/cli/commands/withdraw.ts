/**
 * `satang withdraw approve|reject`: the operator's decision on a withdraw waiting in
 * `awaiting_verification`.
 */
import type { Command } from "commander";
import { adminClient } from "../client.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult } from "../options.ts";

const DECISIONS = [
  ["approve", "approve a withdraw awaiting verification (it becomes pending)"],
  ["reject", "reject a withdraw awaiting verification (it is canceled and its hold released)"],
] as const;

/** Adds `withdraw approve` and `withdraw reject` to the program. */
export function registerWithdrawCommands(program: Command, { io }: CommandContext): void {
  const withdraw = program
    .command("withdraw")
    .description("approve or reject withdraws awaiting verification");
  for (const [action, description] of DECISIONS) {
    clientFlags(withdraw.command(action).description(description))
      .argument("<id>", "withdraw id")
      .action(async (id: string, flags: OutputOptions) => {
        const data = await adminClient(flags, io.env).call<Record<string, unknown>>(
          "POST",
          `/withdraws/${encodeURIComponent(id)}/${action}`,
        );
        printResult(io, flags, data, () => `Withdraw ${String(data.id)} is now ${String(data.status)}`);
      });
  }
}
