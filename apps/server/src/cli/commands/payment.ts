/**
 * `satang payment find --merchant-reference <ref>`: the operator's search for payments by the
 * merchant's own reference (merchantReference or invoiceNo at create; CONTRACT 6: stored,
 * searchable by the operator, never in records), through `GET /admin/v1/payments`.
 */
import type { Command } from "commander";
import { adminClient } from "../client.ts";
import { formatPaymentSearch, type PaymentSearchPage } from "../format.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult, wholeNumber } from "../options.ts";

interface FindFlags extends OutputOptions {
  merchantReference: string;
  merchant?: string;
  page?: number;
  limit?: number;
}

/** Adds `payment find` to the program. */
export function registerPaymentCommands(program: Command, { io }: CommandContext): void {
  const payment = program.command("payment").description("find payments of any merchant (operator)");
  clientFlags(
    payment
      .command("find")
      .description("payments whose merchantReference (or invoiceNo) is exactly this, newest first")
      .requiredOption("--merchant-reference <reference>", "the merchant's own reference of the payment")
      .option("--merchant <id>", "only this merchant's payments")
      .option("--page <n>", "page number (default 1)", wholeNumber)
      .option("--limit <n>", "payments per page (default 10, at most 100)", wholeNumber),
  ).action(async (flags: FindFlags) => {
    const query = new URLSearchParams({ merchantReference: flags.merchantReference });
    if (flags.merchant !== undefined) query.set("merchantId", flags.merchant);
    if (flags.page !== undefined) query.set("page", String(flags.page));
    if (flags.limit !== undefined) query.set("limit", String(flags.limit));
    const data = await adminClient(flags, io.env).call<PaymentSearchPage>("GET", `/payments?${query}`);
    printResult(io, flags, data, () => formatPaymentSearch(data, flags.merchantReference));
  });
}
