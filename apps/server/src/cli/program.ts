/**
 * The `satang` command line: `serve`, `worker`, `migrate`, and operator commands that wrap the
 * admin API.
 *
 * Exit codes: 0 success, 1 the API refused the request (its code and message are printed),
 * 2 usage or configuration error, 3 the server could not be reached.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { ConfigError, loadConfig } from "../config.ts";
import type { RunningServer, RunningWorker } from "../server.ts";
import {
  type AdminClient,
  ApiError,
  adminClient,
  type ClientOptions,
  UnreachableError,
  UsageError,
} from "./client.ts";
import { registerDevCommands } from "./dev.ts";
import {
  formatCreatedIntegration,
  formatIntegration,
  formatIntegrationList,
  formatMerchant,
} from "./format.ts";
import { addUserCommands } from "./users.ts";

export const EXIT_OK = 0;
export const EXIT_API_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNREACHABLE = 3;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
}

/** Either the command finished with an exit code, or it started a server or worker that keeps running. */
export type CliOutcome = { exitCode: number } | { server: RunningServer } | { worker: RunningWorker };

interface OutputOptions extends ClientOptions {
  json?: boolean;
}

/** "none" removes an optional setting (a limit, the threshold, the PromptPay id). */
function orNone(value: string): string | null {
  return value.toLowerCase() === "none" ? null : value;
}

function wholeNumber(value: string): number {
  if (!/^[0-9]{1,6}$/.test(value)) throw new InvalidArgumentError("expected a whole number");
  return Number(value);
}

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
}

/** The admin API body of `merchant create` / `merchant update` flags. */
export function merchantBody(flags: MerchantFlags, update: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.dailyLimit !== undefined) body.dailyWithdrawLimit = orNone(flags.dailyLimit);
  if (flags.monthlyLimit !== undefined) body.monthlyWithdrawLimit = orNone(flags.monthlyLimit);
  if (flags.settlementDelayHours !== undefined) body.settlementDelayHours = flags.settlementDelayHours;
  const account = [flags.collectionBankCode, flags.collectionAccountNumber, flags.collectionAccountName];
  const given = account.filter((part) => part !== undefined).length;
  if (given > 0 && given < account.length) {
    throw new UsageError(
      "--collection-bank-code, --collection-account-number and --collection-account-name go together: give all three",
    );
  }
  if (given === account.length) {
    body.collectionAccount = {
      bankCode: flags.collectionBankCode,
      accountNumber: flags.collectionAccountNumber,
      accountName: flags.collectionAccountName,
    };
  }
  if (flags.clearCollectionAccount) {
    if (given > 0)
      throw new UsageError("--clear-collection-account cannot be combined with --collection-* flags");
    body.collectionAccount = null;
  }
  if (flags.promptpayId !== undefined)
    body.promptpayId = update ? orNone(flags.promptpayId) : flags.promptpayId;
  if (flags.promptpayReuse !== undefined) body.promptpayReuse = flags.promptpayReuse;
  if (flags.walletStatus !== undefined) body.walletStatus = flags.walletStatus;
  if (flags.verificationThreshold !== undefined) {
    body.withdrawVerificationThreshold = orNone(flags.verificationThreshold);
  }
  if (flags.status !== undefined) body.status = flags.status;
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

function clientFlags(command: Command): Command {
  return command
    .option("--url <url>", "server address (default: SATANG_URL, else http://HOST:PORT)")
    .option("--token <token>", "admin token (default: ADMIN_TOKEN, else DATA_DIR/admin-token)")
    .option("--json", "print the machine-readable data object");
}

function printResult(io: CliIo, flags: OutputOptions, data: unknown, friendly: () => string): void {
  io.stdout(flags.json ? `${JSON.stringify(data, null, 2)}\n` : `${friendly()}\n`);
}

/** Reports a failure the way its exit code promises and returns that code. */
function report(error: unknown, io: CliIo, json: boolean): number {
  if (error instanceof CommanderError) {
    // Commander has already printed its message (or the help text).
    return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  }
  if (error instanceof ConfigError || error instanceof UsageError) {
    io.stderr(`satang: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof UnreachableError) {
    io.stderr(`satang: ${error.message}\n`);
    return EXIT_UNREACHABLE;
  }
  if (error instanceof ApiError) {
    if (json) {
      const body = { code: error.code, message: error.message, metadata: error.metadata ?? null };
      io.stdout(`${JSON.stringify({ error: body }, null, 2)}\n`);
    }
    const field = typeof error.metadata?.field === "string" ? ` (field: ${error.metadata.field})` : "";
    io.stderr(`Error ${error.code}: ${error.message}${field}\n`);
    if (error.code === "INVALID_CREDENTIALS") {
      io.stderr("Check the admin token: --token, ADMIN_TOKEN, or DATA_DIR/admin-token.\n");
    }
    return EXIT_API_ERROR;
  }
  const code = (error as NodeJS.ErrnoException).code;
  // AggregateError (several addresses tried) can carry an empty message and only a code.
  const message = (error instanceof Error ? error.message : String(error)) || code || "unknown error";
  if (code === "EADDRINUSE") {
    io.stderr(`satang: ${message}: another process already listens there. Stop it, or set PORT.\n`);
  } else if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") {
    io.stderr(
      `satang: cannot connect to the database named by DATABASE_URL (${message}). Is PostgreSQL running?\n`,
    );
  } else {
    io.stderr(`satang: ${message}\n`);
  }
  return EXIT_API_ERROR;
}

/**
 * Runs one command. The server modules (fastify, the database drivers) are loaded only by the
 * commands that need them, so operator commands start quickly.
 */
export async function runCli(args: string[], io: CliIo): Promise<CliOutcome> {
  let outcome: CliOutcome = { exitCode: EXIT_OK };
  const client = (flags: OutputOptions): AdminClient => adminClient(flags, io.env);

  const program = new Command("satang")
    .description("Satang payments gateway: run the server and manage merchants")
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .showHelpAfterError("(run with --help for usage)");

  program
    .command("serve")
    .description("serve the API (and run the background workers unless --no-workers)")
    .option("--no-workers", "serve requests only; run the workers in another process")
    .action(async (flags: { workers: boolean }) => {
      const config = loadConfig(io.env);
      const { startServer } = await import("../server.ts");
      const server = await startServer(config, { handleSignals: true, workers: flags.workers });
      outcome = { server };
    });

  program
    .command("worker")
    .description("run the background workers only, no HTTP (pair with `serve --no-workers`)")
    .action(async () => {
      const config = loadConfig(io.env);
      const { startWorker } = await import("../server.ts");
      const worker = await startWorker(config, { handleSignals: true });
      outcome = { worker };
    });

  program
    .command("migrate")
    .description("apply pending database migrations and exit")
    .option("--json", "print the machine-readable result")
    .action(async (flags: { json?: boolean }) => {
      const config = loadConfig(io.env);
      const [{ openConfiguredStore }, { migrateToLatest }] = await Promise.all([
        import("../server.ts"),
        import("../db/migrate.ts"),
      ]);
      const store = await openConfiguredStore(config);
      try {
        const { applied } = await migrateToLatest(store.db);
        printResult(io, flags, { applied }, () =>
          applied.length === 0
            ? "The database is up to date: no migration to apply."
            : `Applied ${applied.length} migration(s):\n${applied.map((name) => `  ${name}`).join("\n")}`,
        );
      } finally {
        await store.close();
      }
    });

  const merchant = program.command("merchant").description("create, show and change merchants");

  merchantFlags(
    clientFlags(merchant.command("create").description("create a merchant")).requiredOption(
      "--name <name>",
      "merchant name",
    ),
    false,
  ).action(async (flags: MerchantFlags) => {
    const data = await client(flags).call("POST", "/merchants", merchantBody(flags, false));
    printResult(io, flags, data, () => formatMerchant(data));
  });

  clientFlags(merchant.command("get").description("show a merchant").argument("<id>", "merchant id")).action(
    async (id: string, flags: OutputOptions) => {
      const data = await client(flags).call("GET", `/merchants/${encodeURIComponent(id)}`);
      printResult(io, flags, data, () => formatMerchant(data));
    },
  );

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
    .action(async (id: string, flags: MerchantFlags) => {
      const body = merchantBody(flags, true);
      if (Object.keys(body).length === 0) throw new UsageError("nothing to change: give at least one option");
      const data = await client(flags).call("PATCH", `/merchants/${encodeURIComponent(id)}`, body);
      printResult(io, flags, data, () => formatMerchant(data));
    });

  const integration = program.command("integration").description("create, list and revoke API keys");

  clientFlags(integration.command("create").description("create an API key and secret for a merchant"))
    .requiredOption("--merchant <id>", "merchant id")
    .option("--name <name>", "a name to recognise the integration by")
    .option("--redirect-url <url>", "where the hosted payment page sends the customer afterwards")
    .option("--require-v2", "refuse v1 signatures for this key")
    .action(
      async (
        flags: OutputOptions & { merchant: string; name?: string; redirectUrl?: string; requireV2?: boolean },
      ) => {
        const body: Record<string, unknown> = {};
        if (flags.name !== undefined) body.name = flags.name;
        if (flags.redirectUrl !== undefined) body.redirectUrl = flags.redirectUrl;
        if (flags.requireV2) body.requireSignatureV2 = true;
        const data = await client(flags).call(
          "POST",
          `/merchants/${encodeURIComponent(flags.merchant)}/integrations`,
          body,
        );
        printResult(io, flags, data, () => formatCreatedIntegration(data));
      },
    );

  clientFlags(integration.command("list").description("list a merchant's integrations (never secrets)"))
    .requiredOption("--merchant <id>", "merchant id")
    .option("--page <n>", "page number", wholeNumber)
    .option("--limit <n>", "page size (1-100)", wholeNumber)
    .action(async (flags: OutputOptions & { merchant: string; page?: number; limit?: number }) => {
      const query = new URLSearchParams();
      if (flags.page !== undefined) query.set("page", String(flags.page));
      if (flags.limit !== undefined) query.set("limit", String(flags.limit));
      const suffix = query.size > 0 ? `?${query.toString()}` : "";
      const data = await client(flags).call<{
        data: Record<string, unknown>[];
        total: number;
        page: number;
        totalPages: number;
      }>("GET", `/merchants/${encodeURIComponent(flags.merchant)}/integrations${suffix}`);
      printResult(io, flags, data, () => formatIntegrationList(data));
    });

  clientFlags(
    integration.command("revoke").description("revoke an integration: its key stops working at once"),
  )
    .argument("<id>", "integration id")
    .action(async (id: string, flags: OutputOptions) => {
      const data = await client(flags).call("DELETE", `/integrations/${encodeURIComponent(id)}`);
      printResult(
        io,
        flags,
        data,
        () => `${formatIntegration(data)}\n\nIts API key no longer authenticates.`,
      );
    });

  const wallet = program.command("wallet").description("operator adjustments of a merchant's wallet");

  clientFlags(
    wallet.command("adjust").description("credit (+) or debit (-) a merchant's wallet, with a reason"),
  )
    .requiredOption("--merchant <id>", "merchant id")
    .requiredOption("--amount <amount>", 'signed amount in satang, e.g. "100000.00" or "-2500.00"')
    .requiredOption("--reason <text>", "why; kept in the ledger")
    .action(async (flags: OutputOptions & { merchant: string; amount: string; reason: string }) => {
      const data = await client(flags).call<Record<string, unknown>>(
        "POST",
        `/merchants/${encodeURIComponent(flags.merchant)}/wallet/adjustments`,
        { amount: flags.amount, reason: flags.reason },
      );
      printResult(
        io,
        flags,
        data,
        () =>
          `Adjusted wallet of ${String(data.merchantId)} by ${String(data.amount)} satang: available ${String(data.balanceAfter)}`,
      );
    });

  const withdraw = program
    .command("withdraw")
    .description("approve or reject withdraws awaiting verification");
  for (const [action, description] of [
    ["approve", "approve a withdraw awaiting verification (it becomes pending)"],
    ["reject", "reject a withdraw awaiting verification (it is canceled and its hold released)"],
  ] as const) {
    clientFlags(withdraw.command(action).description(description))
      .argument("<id>", "withdraw id")
      .action(async (id: string, flags: OutputOptions) => {
        const data = await client(flags).call<Record<string, unknown>>(
          "POST",
          `/withdraws/${encodeURIComponent(id)}/${action}`,
        );
        printResult(io, flags, data, () => `Withdraw ${String(data.id)} is now ${String(data.status)}`);
      });
  }

  addUserCommands(program, io);
  registerDevCommands(program, io, (exitCode) => {
    outcome = { exitCode };
  });

  try {
    await program.parseAsync(args, { from: "user" });
  } catch (error) {
    return { exitCode: report(error, io, args.includes("--json")) };
  }
  return outcome;
}
