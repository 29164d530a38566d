/**
 * `satang merchant create|get|update`: merchants through the operator API (/admin/v1/merchants);
 * `merchant clock advance|reset` is in merchant-clock.ts.
 */
import { type Command, Option } from "commander";
import { adminClient, UsageError } from "../client.ts";
import { formatMerchant } from "../format.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, orNone, printResult, wholeNumber } from "../options.ts";
import { registerMerchantClockCommands } from "./merchant-clock.ts";

interface MerchantFlags extends OutputOptions {
  name?: string;
  promptpayId?: string;
  promptpayReuse?: boolean;
  dailyLimit?: string;
  monthlyLimit?: string;
  settlementDelayHours?: number;
  collectionBankCode?: string;
  collectionAccountNumber?: string;
  collectionAccountName?: string;
  clearCollectionAccount?: boolean;
  walletStatus?: string;
  status?: string;
  verificationThreshold?: string;
  provider?: string;
}

/** The collection account of the flags: all three parts, none (undefined), or a usage error. */
function collectionAccount(flags: MerchantFlags): Record<string, unknown> | null | undefined {
  const account = [flags.collectionBankCode, flags.collectionAccountNumber, flags.collectionAccountName];
  const given = account.filter((part) => part !== undefined).length;
  if (given > 0 && given < account.length) {
    throw new UsageError(
      "--collection-bank-code, --collection-account-number and --collection-account-name go together: give all three",
    );
  }
  if (flags.clearCollectionAccount) {
    if (given > 0)
      throw new UsageError("--clear-collection-account cannot be combined with --collection-* flags");
    return null;
  }
  if (given === 0) return undefined;
  return {
    bankCode: flags.collectionBankCode,
    accountNumber: flags.collectionAccountNumber,
    accountName: flags.collectionAccountName,
  };
}

/** The admin API body of `merchant create` / `merchant update` flags. */
function merchantBody(flags: MerchantFlags, update: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.dailyLimit !== undefined) body.dailyWithdrawLimit = orNone(flags.dailyLimit);
  if (flags.monthlyLimit !== undefined) body.monthlyWithdrawLimit = orNone(flags.monthlyLimit);
  if (flags.settlementDelayHours !== undefined) body.settlementDelayHours = flags.settlementDelayHours;
  const account = collectionAccount(flags);
  if (account !== undefined) body.collectionAccount = account;
  if (flags.promptpayId !== undefined)
    body.promptpayId = update ? orNone(flags.promptpayId) : flags.promptpayId;
  if (flags.promptpayReuse !== undefined) body.promptpayReuse = flags.promptpayReuse;
  if (flags.walletStatus !== undefined) body.walletStatus = flags.walletStatus;
  if (flags.verificationThreshold !== undefined) {
    body.withdrawVerificationThreshold = orNone(flags.verificationThreshold);
  }
  if (flags.status !== undefined) body.status = flags.status;
  if (flags.provider !== undefined) body.provider = orNone(flags.provider);
  return body;
}

function merchantFlags(command: Command, update: boolean): Command {
  if (update) command.option("--name <name>", "new merchant name");
  return command
    .option(
      "--promptpay-id <id>",
      `PromptPay id QR codes pay to (mobile, national id or e-wallet id)${update ? '; "none" removes it' : ""}`,
    )
    .option("--promptpay-reuse", "return a still-valid PromptPay payment for the same customer and amount")
    .option("--no-promptpay-reuse", "always create a new PromptPay payment")
    .option(
      "--daily-limit <amount>",
      'daily withdraw limit in satang, e.g. "5000000.00"; "none" for no limit',
    )
    .option("--monthly-limit <amount>", 'monthly withdraw limit in satang; "none" for no limit')
    .option(
      "--settlement-delay-hours <hours>",
      "hours before succeeded payments reach the wallet",
      wholeNumber,
    )
    .option("--collection-bank-code <code>", "3-digit bank code of the account bank transfers are paid to")
    .option("--collection-account-number <number>", "that account's number")
    .option("--collection-account-name <name>", "that account's holder name");
}

function registerCreate(merchant: Command, { io }: CommandContext): void {
  merchantFlags(
    clientFlags(merchant.command("create").description("create a merchant")).requiredOption(
      "--name <name>",
      "merchant name",
    ),
    false,
  ).action(async (flags: MerchantFlags) => {
    const data = await adminClient(flags, io.env).call("POST", "/merchants", merchantBody(flags, false));
    printResult(io, flags, data, () => formatMerchant(data));
  });
}

function registerGet(merchant: Command, { io }: CommandContext): void {
  clientFlags(merchant.command("get").description("show a merchant").argument("<id>", "merchant id")).action(
    async (id: string, flags: OutputOptions) => {
      const data = await adminClient(flags, io.env).call("GET", `/merchants/${encodeURIComponent(id)}`);
      printResult(io, flags, data, () => formatMerchant(data));
    },
  );
}

function registerUpdate(merchant: Command, { io }: CommandContext): void {
  merchantFlags(
    clientFlags(merchant.command("update").description("change a merchant").argument("<id>", "merchant id")),
    true,
  )
    .option("--clear-collection-account", "remove the collection account")
    .addOption(
      new Option("--wallet-status <status>", "wallet status").choices(["active", "frozen", "closed"]),
    )
    .addOption(new Option("--status <status>", "merchant status").choices(["active", "disabled"]))
    .option(
      "--verification-threshold <amount>",
      'withdraws at or above this amount (satang) wait for approval; "none" for no threshold',
    )
    .option(
      "--provider <name>",
      'pin the merchant\'s new payments to one connector of SATANG_PROVIDER; "none" unpins',
    )
    .action(async (id: string, flags: MerchantFlags) => {
      const body = merchantBody(flags, true);
      if (Object.keys(body).length === 0) throw new UsageError("nothing to change: give at least one option");
      const path = `/merchants/${encodeURIComponent(id)}`;
      const data = await adminClient(flags, io.env).call("PATCH", path, body);
      printResult(io, flags, data, () => formatMerchant(data));
    });
}

/** Adds `merchant create|get|update|clock` to the program. */
export function registerMerchantCommands(program: Command, context: CommandContext): void {
  const merchant = program.command("merchant").description("create, show and change merchants");
  registerCreate(merchant, context);
  registerGet(merchant, context);
  registerUpdate(merchant, context);
  registerMerchantClockCommands(merchant, context);
}
