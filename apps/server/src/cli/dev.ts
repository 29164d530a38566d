/**
 * Developer commands in the style of Stripe's CLI, for a merchant's developer working against a
 * sandbox: `satang listen --forward-to URL` forwards events, signed, to a local URL, and
 * `satang trigger <event>` creates and simulates what produces an event. Both talk to the public
 * API through the SDK with the merchant's API key, never with the operator token.
 *
 * Exit codes as for every command: 0 success, 1 the API refused, 2 usage, 3 unreachable.
 */
import { ConnectionError, EVENT_TYPES, type EventType, Satang, SatangError } from "@satang/sdk";
import { Argument, type Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { ConfigError } from "../config.ts";
import { resolveBaseUrl, UsageError } from "./client.ts";
import { type ListenMode, runListen } from "./listen.ts";
import type { CliIo } from "./program.ts";
import { runTrigger } from "./trigger.ts";

const EXIT_OK = 0;
const EXIT_API_ERROR = 1;
const EXIT_USAGE = 2;
const EXIT_UNREACHABLE = 3;

export interface DevFlags {
  apiKey?: string;
  apiSecret?: string;
  url?: string;
  json?: boolean;
}

/** The SDK client for this invocation: flags first, then SATANG_API_KEY / SATANG_API_SECRET. */
export function devClient(flags: DevFlags, env: NodeJS.ProcessEnv): { satang: Satang; baseUrl: string } {
  const apiKey = flags.apiKey ?? env.SATANG_API_KEY;
  const apiSecret = flags.apiSecret ?? env.SATANG_API_SECRET;
  if (!apiKey || !apiSecret) {
    throw new UsageError(
      "No API credentials: pass --api-key and --api-secret, or set SATANG_API_KEY and SATANG_API_SECRET " +
        "(the demo merchant's are printed at the sandbox's first start; `satang integration create` makes new ones).",
    );
  }
  const baseUrl = resolveBaseUrl({ url: flags.url }, env);
  return { satang: new Satang({ apiKey, apiSecret, baseUrl }), baseUrl };
}

function devFlags(command: Command): Command {
  return command
    .option("--api-key <key>", "the integration's API key (default: SATANG_API_KEY)")
    .option("--api-secret <secret>", "its secret (default: SATANG_API_SECRET)")
    .option("--url <url>", "server address (default: SATANG_URL, else http://HOST:PORT)")
    .option("--json", "machine-readable output: one JSON object per line");
}

/** Prints a failure of a developer command and returns its exit code. */
export function reportDevError(error: unknown, io: CliIo, json: boolean): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (error instanceof UsageError || error instanceof ConfigError) {
    io.stderr(`satang: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof ConnectionError) {
    io.stderr(
      `satang: ${error.message}. Is the server running? Start it with \`npm start\`, or point the CLI at it ` +
        "with --url or SATANG_URL.\n",
    );
    return EXIT_UNREACHABLE;
  }
  if (error instanceof SatangError) {
    if (json) {
      const body = { code: error.code, message: error.message, metadata: error.metadata ?? null };
      io.stdout(`${JSON.stringify({ error: body })}\n`);
    }
    const field = (error.metadata as { field?: unknown } | undefined)?.field;
    io.stderr(
      `Error ${error.code}: ${error.message}${typeof field === "string" ? ` (field: ${field})` : ""}\n`,
    );
    if (error.code === "INVALID_CREDENTIALS") {
      io.stderr(
        "Check the API key and secret: --api-key/--api-secret or SATANG_API_KEY/SATANG_API_SECRET.\n",
      );
    } else if (error.code === "RESOURCE_NOT_FOUND" && /^Route /.test(error.message)) {
      io.stderr("Sandbox routes exist only on a sandbox server (SATANG_ENV=sandbox).\n");
    }
    return EXIT_API_ERROR;
  }
  io.stderr(`satang: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_API_ERROR;
}

function eventList(value: string): Array<EventType | "*"> {
  const types = value
    .split(",")
    .map((type) => type.trim())
    .filter((type) => type !== "");
  if (types.length === 0) throw new InvalidArgumentError("give at least one event type");
  if (types.includes("*")) {
    if (types.length > 1) throw new InvalidArgumentError('"*" means every event; give it alone');
    return ["*"];
  }
  for (const type of types) {
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw new InvalidArgumentError(`unknown event type "${type}"; expected ${EVENT_TYPES.join(", ")} or *`);
    }
  }
  return types as EventType[];
}

function forwardUrl(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError("expected a URL such as http://localhost:4242/webhooks");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InvalidArgumentError("expected an http or https URL");
  }
  return parsed.toString();
}

function positiveSeconds(value: string): number {
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value) || Number(value) <= 0) {
    throw new InvalidArgumentError("expected a number of seconds greater than zero");
  }
  return Number(value);
}

function satangAmount(value: string): string {
  if (!/^[0-9]{1,13}(\.0{1,2})?$/.test(value) || /^0+(\.0+)?$/.test(value)) {
    throw new InvalidArgumentError('expected an amount in satang such as "10000.00" (100.00 THB)');
  }
  return value;
}

/**
 * Adds `listen` and `trigger` to the program. `finish` records the exit code: these commands
 * report their own errors, because their hints (API key, sandbox) differ from the operator
 * commands' (admin token).
 */
export function registerDevCommands(program: Command, io: CliIo, finish: (exitCode: number) => void): void {
  devFlags(
    program
      .command("listen")
      .description("forward sandbox events, signed with Standard Webhooks, to a local URL (Ctrl-C stops)")
      .requiredOption(
        "--forward-to <url>",
        "where to POST each event, e.g. http://localhost:4242/webhooks",
        forwardUrl,
      )
      .option("--events <types>", "comma-separated event types, or * for all (default: *)", eventList)
      .option(
        "--signing-secret <whsec>",
        "sign forwarded events with this secret (default: one derived from the API secret, printed at start)",
      )
      .addOption(
        new Option(
          "--mode <mode>",
          "endpoint: register a temporary webhook endpoint on the server (the server delivers to this " +
            "process); poll: read GET /api/v1/events; auto: endpoint when the server is on this machine",
        )
          .choices(["auto", "endpoint", "poll"])
          .default("auto"),
      )
      .option("--poll-interval <seconds>", "seconds between polls in poll mode", positiveSeconds, 2),
  )
    .addHelpText(
      "after",
      `
Each forwarded event is POSTed with the same body the server sends and fresh
webhook-id, webhook-timestamp and webhook-signature headers, signed with the
signing secret printed at start: verify it with Satang.webhooks.verify or any
Standard Webhooks library. One line is printed per event with the result.

In endpoint mode the server's webhook worker delivers (satang serve runs it):
your handler's non-2xx answer makes the server retry, as in production.

Examples:
  satang listen --forward-to http://localhost:4242/webhooks
  satang listen --forward-to http://localhost:4242/webhooks --events payment.received,payment.expired
  SATANG_URL=https://sandbox.example satang listen --forward-to http://localhost:4242/hooks --mode poll`,
    )
    .action(
      async (
        flags: DevFlags & {
          forwardTo: string;
          events?: Array<EventType | "*">;
          signingSecret?: string;
          mode: ListenMode;
          pollInterval: number;
        },
      ) => {
        try {
          const { satang, baseUrl } = devClient(flags, io.env);
          await runListen({
            satang,
            baseUrl,
            apiSecret: flags.apiSecret ?? io.env.SATANG_API_SECRET ?? "",
            forwardTo: flags.forwardTo,
            events: flags.events ?? ["*"],
            signingSecret: flags.signingSecret,
            mode: flags.mode,
            pollIntervalMs: flags.pollInterval * 1000,
            json: Boolean(flags.json),
            io,
          });
          finish(EXIT_OK);
        } catch (error) {
          finish(reportDevError(error, io, Boolean(flags.json)));
        }
      },
    );

  devFlags(
    program
      .command("trigger")
      .description("create and simulate, in the sandbox, what produces an event")
      .addArgument(new Argument("<event>", "the event to produce").choices(EVENT_TYPES))
      .option("--amount <satang>", 'amount in satang (default "10000.00", that is 100.00 THB)', satangAmount),
  )
    .addHelpText(
      "after",
      `
What each event takes:
  payment.received     a PromptPay payment, paid by the simulated customer
  payment.failed       a PromptPay payment, failed by the simulated bank
  payment.expired      a PromptPay payment expiring in 5 minutes, then the test clock moved 5 minutes on
  payment.canceled     a PromptPay payment, canceled
  withdraw.processing  a withdraw the simulated bank takes
  withdraw.paid        a withdraw taken, then paid
  withdraw.failed      a withdraw the simulated bank fails
  withdraw.canceled    a withdraw, canceled
Withdraws need funds: when the wallet is short, a simulated payment is settled
into it first (which also emits payment.received).

Examples:
  satang trigger payment.received
  satang trigger withdraw.paid --amount 50000.00 --json`,
    )
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
        finish(EXIT_OK);
      } catch (error) {
        finish(reportDevError(error, io, Boolean(flags.json)));
      }
    });
}
