/**
 * `satang integration create|list|update|revoke`: a merchant's API keys through the operator API.
 */
import type { Command } from "commander";
import { adminClient, UsageError } from "../client.ts";
import { formatCreatedIntegration, formatIntegration, formatIntegrationList } from "../format.ts";
import type { CommandContext } from "../io.ts";
import { clientFlags, type OutputOptions, printResult, wholeNumber } from "../options.ts";

interface CreateFlags extends OutputOptions {
  merchant: string;
  name?: string;
  redirectUrl?: string;
  requireV2?: boolean;
}

interface ListFlags extends OutputOptions {
  merchant: string;
  page?: number;
  limit?: number;
}

interface IntegrationPage {
  data: Record<string, unknown>[];
  total: number;
  page: number;
  totalPages: number;
}

function registerCreate(integration: Command, { io }: CommandContext): void {
  clientFlags(integration.command("create").description("create an API key and secret for a merchant"))
    .requiredOption("--merchant <id>", "merchant id")
    .option("--name <name>", "a name to recognise the integration by")
    .option("--redirect-url <url>", "where the hosted payment page sends the customer afterwards")
    .option("--require-v2", "refuse v1 signatures for this key")
    .action(async (flags: CreateFlags) => {
      const body: Record<string, unknown> = {};
      if (flags.name !== undefined) body.name = flags.name;
      if (flags.redirectUrl !== undefined) body.redirectUrl = flags.redirectUrl;
      if (flags.requireV2) body.requireSignatureV2 = true;
      const path = `/merchants/${encodeURIComponent(flags.merchant)}/integrations`;
      const data = await adminClient(flags, io.env).call("POST", path, body);
      printResult(io, flags, data, () => formatCreatedIntegration(data));
    });
}

function registerList(integration: Command, { io }: CommandContext): void {
  clientFlags(integration.command("list").description("list a merchant's integrations (never secrets)"))
    .requiredOption("--merchant <id>", "merchant id")
    .option("--page <n>", "page number", wholeNumber)
    .option("--limit <n>", "page size (1-100)", wholeNumber)
    .action(async (flags: ListFlags) => {
      const query = new URLSearchParams();
      if (flags.page !== undefined) query.set("page", String(flags.page));
      if (flags.limit !== undefined) query.set("limit", String(flags.limit));
      const suffix = query.size > 0 ? `?${query.toString()}` : "";
      const path = `/merchants/${encodeURIComponent(flags.merchant)}/integrations${suffix}`;
      const data = await adminClient(flags, io.env).call<IntegrationPage>("GET", path);
      printResult(io, flags, data, () => formatIntegrationList(data));
    });
}

interface UpdateFlags extends OutputOptions {
  name?: string;
  redirectUrl?: string;
  clearRedirectUrl?: boolean;
  requireV2?: boolean;
  allowV1?: boolean;
}

function registerUpdate(integration: Command, { io }: CommandContext): void {
  clientFlags(
    integration
      .command("update")
      .description("change an integration: its name, redirect URL, or whether it requires signature v2"),
  )
    .argument("<id>", "integration id")
    .option("--name <name>", "a name to recognise the integration by")
    .option("--redirect-url <url>", "where the hosted payment page sends the customer afterwards")
    .option("--clear-redirect-url", "remove the redirect URL")
    .option("--require-v2", "refuse v1 signatures for this key from its next request")
    .option("--allow-v1", "accept v1 signatures again")
    .action(async (id: string, flags: UpdateFlags) => {
      if (flags.requireV2 && flags.allowV1) throw new UsageError("give --require-v2 or --allow-v1, not both");
      if (flags.redirectUrl !== undefined && flags.clearRedirectUrl) {
        throw new UsageError("give --redirect-url or --clear-redirect-url, not both");
      }
      const body: Record<string, unknown> = {};
      if (flags.name !== undefined) body.name = flags.name;
      if (flags.redirectUrl !== undefined) body.redirectUrl = flags.redirectUrl;
      if (flags.clearRedirectUrl) body.redirectUrl = null;
      if (flags.requireV2) body.requireSignatureV2 = true;
      if (flags.allowV1) body.requireSignatureV2 = false;
      if (Object.keys(body).length === 0) {
        throw new UsageError(
          "nothing to change: give --name, --redirect-url, --clear-redirect-url, --require-v2 or --allow-v1",
        );
      }
      const data = await adminClient(flags, io.env).call(
        "PATCH",
        `/integrations/${encodeURIComponent(id)}`,
        body,
      );
      printResult(io, flags, data, () => formatIntegration(data));
    });
}

function registerRevoke(integration: Command, { io }: CommandContext): void {
  clientFlags(
    integration.command("revoke").description("revoke an integration: its key stops working at once"),
  )
    .argument("<id>", "integration id")
    .action(async (id: string, flags: OutputOptions) => {
      const data = await adminClient(flags, io.env).call("DELETE", `/integrations/${encodeURIComponent(id)}`);
      printResult(
        io,
        flags,
        data,
        () => `${formatIntegration(data)}\n\nIts API key no longer authenticates.`,
      );
    });
}

/** Adds `integration create|list|update|revoke` to the program. */
export function registerIntegrationCommands(program: Command, context: CommandContext): void {
  const integration = program.command("integration").description("create, list, change and revoke API keys");
  registerCreate(integration, context);
  registerList(integration, context);
  registerUpdate(integration, context);
  registerRevoke(integration, context);
}
