/**
 * What the developer commands (`listen`, `trigger`) share: the merchant's credentials and the
 * SDK client they make. These commands talk to the public API with the merchant's API key,
 * never with the operator token, so they exercise the same API a merchant's code does.
 */
import { Satang } from "@satang/sdk";
import type { Command } from "commander";
import { resolveBaseUrl, UsageError } from "../client.ts";

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

/** Adds --api-key, --api-secret, --url and --json after the options the command already has. */
export function devFlags(command: Command): Command {
  return command
    .option("--api-key <key>", "the integration's API key (default: SATANG_API_KEY)")
    .option("--api-secret <secret>", "its secret (default: SATANG_API_SECRET)")
    .option("--url <url>", "server address (default: SATANG_URL, else http://HOST:PORT)")
    .option("--json", "machine-readable output: one JSON object per line");
}
