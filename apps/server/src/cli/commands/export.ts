/**
 * `satang export <payments|withdraws|refunds|ledger> --from <date> --to <date> [--out file]`: downloads
 * a CSV export (GET /api/v1/reports/<kind>.csv, CONTRACT 11) with the merchant's API key, signed
 * with signature v2 (method, path and query bound), and streams it to the file or to stdout.
 * The server checks the range (at most 366 days) and answers a refusal in the JSON envelope,
 * which is printed as every other refusal (exit 1).
 */
import { createWriteStream, fchmodSync, openSync, type WriteStream } from "node:fs";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { signRequest } from "@satang/sdk";
import { Argument, type Command } from "commander";
import { ApiError, addressSource, UnreachableError, UsageError } from "../client.ts";
import { type CliIo, type CommandContext, EXIT_OK } from "../io.ts";
import { reportError } from "../report.ts";
import { type DevFlags, devClient, devFlags } from "./dev-options.ts";

const KINDS = ["payments", "withdraws", "refunds", "ledger"] as const;
type ExportKind = (typeof KINDS)[number];

interface ExportFlags extends DevFlags {
  from: string;
  to: string;
  out?: string;
  status?: string;
  type?: string;
  account?: string;
}

/**
 * The filters each kind takes (its export's query parameters, reports/schemas.ts): a filter
 * given to a kind without it is refused here (exit 2), as the server would refuse the parameter,
 * rather than sent and answered as an unfiltered file.
 */
const FILTERS: Record<ExportKind, readonly ("status" | "type" | "account")[]> = {
  payments: ["status"],
  withdraws: ["status"],
  refunds: ["status"],
  ledger: ["type", "account"],
};

/** The export's query: the range and the filters given, each one this kind takes. */
function exportQuery(kind: ExportKind, flags: ExportFlags): URLSearchParams {
  const query = new URLSearchParams({ dateFrom: flags.from, dateTo: flags.to });
  for (const filter of ["status", "type", "account"] as const) {
    const value = flags[filter];
    if (value === undefined) continue;
    if (!FILTERS[kind].includes(filter)) {
      const takes = FILTERS[kind].map((name) => `--${name}`).join(" and ");
      throw new UsageError(`--${filter} does not apply to the ${kind} export (it takes ${takes})`);
    }
    query.set(filter, value);
  }
  return query;
}

const HELP_AFTER = `
Dates are ISO 8601 (2026-01-01, or 2026-01-01T00:00:00+07:00); rows created at or after
--from and before --to, at most 366 days apart. Amounts are in THB, times in UTC and Bangkok.

Examples:
  satang export payments --from 2026-01-01 --to 2026-02-01 --out payments-january.csv
  satang export withdraws --from 2026-01-01 --to 2026-01-02 --status paid
  satang export ledger --from 2026-01-01 --to 2027-01-01 > ledger-2026.csv
  satang export ledger --from 2026-01-01 --to 2026-02-01 --account wallet_available`;

async function refusal(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const { error } = JSON.parse(text) as {
      error: { code: string; message: string; metadata?: Record<string, unknown> };
    };
    return new ApiError(response.status, error.code, error.message, error.metadata);
  } catch {
    return new ApiError(
      response.status,
      "HTTP_ERROR",
      `HTTP ${response.status}: ${text.slice(0, 200)}`,
      undefined,
    );
  }
}

/** Streams one export to `out` (a file) or to the CLI's stdout. */
async function runExport(kind: ExportKind, flags: ExportFlags, io: CliIo): Promise<void> {
  const { baseUrl } = devClient(flags, io.env);
  const query = exportQuery(kind, flags);
  const path = `/api/v1/reports/${kind}.csv?${query.toString()}`;
  const headers = signRequest({
    apiKey: (flags.apiKey ?? io.env.SATANG_API_KEY) as string,
    apiSecret: (flags.apiSecret ?? io.env.SATANG_API_SECRET) as string,
    body: "",
    method: "GET",
    path,
    version: "v2",
  });
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, { headers: { ...headers } });
  } catch (error) {
    throw new UnreachableError(
      baseUrl,
      (error as Error & { cause?: Error }).cause?.message ?? String(error),
      addressSource(flags, io.env),
    );
  }
  if (!response.ok || !response.body) throw await refusal(response);
  const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
  const sink = flags.out
    ? privateFile(flags.out)
    : new Writable({
        write(chunk: Buffer, _encoding, done) {
          io.stdout(chunk.toString("utf8"));
          done();
        },
      });
  await pipeline(body, sink);
  if (flags.out) io.stderr(`Wrote ${kind} ${flags.from} to ${flags.to} to ${flags.out}\n`);
}

/**
 * The --out file, readable by its owner only (0600), like the payout desk's CSV: an export holds
 * a merchant's customers and amounts. A file that already exists is narrowed before a byte of
 * the export is written to it.
 */
function privateFile(path: string): WriteStream {
  const fd = openSync(path, "w", 0o600);
  fchmodSync(fd, 0o600);
  return createWriteStream(path, { fd });
}

/** Adds `export` to the program. */
export function registerExportCommand(program: Command, { io, finish }: CommandContext): void {
  devFlags(
    program
      .command("export")
      .description("download payments, withdraws, refunds or ledger movements as CSV for a date range")
      .addArgument(new Argument("<kind>", "what to export").choices(KINDS))
      .requiredOption("--from <date>", "first day or instant (inclusive), ISO 8601")
      .requiredOption("--to <date>", "end day or instant (exclusive), ISO 8601")
      .option("--status <status>", "only rows in this status (payments, withdraws, refunds)")
      .option(
        "--type <kind>",
        "ledger: only movements of this kind of transaction (settlement, withdraw_hold, ...)",
      )
      .option(
        "--account <account>",
        "ledger: only movements on this account (wallet_available, wallet_held, ...)",
      )
      .option("--out <file>", "write the CSV to this file instead of stdout"),
  )
    .addHelpText("after", HELP_AFTER)
    .action(async (kind: ExportKind, flags: ExportFlags) => {
      try {
        await runExport(kind, flags, io);
        finish({ exitCode: EXIT_OK });
      } catch (error) {
        finish({ exitCode: reportError(error, io, Boolean(flags.json)) });
      }
    });
}
