/**
 * `satang merchant clock advance|reset`: a merchant's sandbox test clock, moved by the operator
 * (POST /admin/v1/merchants/{id}/clock/advance and /clock/reset, CONTRACT 2 and 10) with the
 * operator token, where `satang clock` moves it with the merchant's own API key.
 */
import type { Command } from "commander";
import { adminClient } from "../client.ts";
import { offsetText } from "../clock.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult } from "../options.ts";
import { wholeSeconds } from "./clock.ts";

interface MerchantClock {
  merchantId: string;
  now: string;
  offsetSeconds: number;
}

/** The merchant's business time and how far it runs ahead, in the words `satang clock` uses. */
function clockText(clock: MerchantClock): string {
  return `Test clock of merchant ${clock.merchantId}: ${clock.now} (${offsetText(clock.offsetSeconds)})`;
}

/** Adds `clock advance|reset` under `merchant`. */
export function registerMerchantClockCommands(merchant: Command, { io }: CommandContext): void {
  const clock = merchant
    .command("clock")
    .description("move a merchant's sandbox test clock forward, or back to real time (sandbox only)");
  clientFlags(
    clock
      .command("advance")
      .description("move the merchant's business time forward; work that falls due is done first")
      .argument("<id>", "merchant id")
      .argument("<seconds>", "whole seconds, 1 to 31622400", wholeSeconds),
  ).action(async (id: string, seconds: number, flags: OutputOptions) => {
    const path = `/merchants/${encodeURIComponent(id)}/clock/advance`;
    const data = await adminClient(flags, io.env).call<MerchantClock>("POST", path, { seconds });
    printResult(io, flags, data, () => clockText(data));
  });
  clientFlags(
    clock
      .command("reset")
      .description("bring the merchant's clock back to real time; records keep their timestamps")
      .argument("<id>", "merchant id"),
  ).action(async (id: string, flags: OutputOptions) => {
    const path = `/merchants/${encodeURIComponent(id)}/clock/reset`;
    const data = await adminClient(flags, io.env).call<MerchantClock>("POST", path, {});
    printResult(io, flags, data, () => clockText(data));
  });
}
