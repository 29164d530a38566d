/**
 * Registration of `satang listen --forward-to URL`: forwards the merchant's events, signed with
 * Standard Webhooks, to a local URL (cli/listen.ts does the work). It reports its own errors,
 * with the developer commands' hints, and records the exit code.
 */
import { EVENT_TYPES, type EventType } from "@satang/sdk";
import { type Command, InvalidArgumentError, Option } from "commander";
import { type CommandContext, EXIT_OK } from "../io.ts";
import { type ListenMode, runListen } from "../listen.ts";
import { reportDevError } from "../report.ts";
import { type DevFlags, devClient, devFlags } from "./dev-options.ts";

interface ListenFlags extends DevFlags {
  forwardTo: string;
  events?: Array<EventType | "*">;
  signingSecret?: string;
  mode: ListenMode;
  pollInterval: number;
}

const HELP_AFTER = `
Each forwarded event is POSTed with the same body the server sends and fresh
webhook-id, webhook-timestamp and webhook-signature headers, signed with the
signing secret printed at start: verify it with Satang.webhooks.verify or any
Standard Webhooks library. One line is printed per event with the result.

In endpoint mode the server's webhook worker delivers (satang serve runs it):
your handler's non-2xx answer makes the server retry, as in production.

Examples:
  satang listen --forward-to http://localhost:4242/webhooks
  satang listen --forward-to http://localhost:4242/webhooks --events payment.received,payment.expired
  SATANG_URL=https://sandbox.example satang listen --forward-to http://localhost:4242/hooks --mode poll`;

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

function modeOption(): Option {
  return new Option(
    "--mode <mode>",
    "endpoint: register a temporary webhook endpoint on the server (the server delivers to this " +
      "process); poll: read GET /api/v1/events; auto: endpoint when the server is on this machine",
  )
    .choices(["auto", "endpoint", "poll"])
    .default("auto");
}

/** Adds `listen` to the program. */
export function registerListenCommand(program: Command, { io, finish }: CommandContext): void {
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
      .addOption(modeOption())
      .option("--poll-interval <seconds>", "seconds between polls in poll mode", positiveSeconds, 2),
  )
    .addHelpText("after", HELP_AFTER)
    .action(async (flags: ListenFlags) => {
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
        finish({ exitCode: EXIT_OK });
      } catch (error) {
        finish({ exitCode: reportDevError(error, io, Boolean(flags.json), flags.url) });
      }
    });
}
