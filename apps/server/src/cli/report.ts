/**
 * How a failed command is reported: a message on stderr (and with --json an error object on
 * stdout) and the exit code its kind promises. Operator and server commands share one reporter;
 * the developer commands have their own, because their hints (API key, sandbox) differ from the
 * operator commands' (admin token).
 */
import { ConnectionError, SatangError } from "@satang/sdk";
import { CommanderError } from "commander";
import { ConfigError } from "../config.ts";
import { ApiError, addressSource, UnreachableError, UsageError } from "./client.ts";
import { type CliIo, EXIT_API_ERROR, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE } from "./io.ts";
import { terminalSafe } from "./options.ts";

/** Commander has already printed its message (or the help text) when it throws. */
function commanderExit(error: CommanderError): number {
  return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
}

/** An error that is neither the API's answer nor a usage mistake: a failure of the process itself. */
function reportProcessError(error: unknown, io: CliIo): number {
  const code = (error as NodeJS.ErrnoException).code;
  // AggregateError (several addresses tried) can carry an empty message and only a code.
  const message = (error instanceof Error ? error.message : String(error)) || code || "unknown error";
  const hostname = (error as { hostname?: unknown }).hostname;
  if (code === "EADDRINUSE") {
    io.stderr(`satang: ${message}: another process already listens there. Stop it, or set PORT.\n`);
  } else if (code === "ENOTFOUND" && hostname !== undefined && hostname === io.env.HOST) {
    // The listen's own lookup: HOST, not the database, names a host that does not resolve.
    io.stderr(
      `satang: HOST names ${String(hostname)}, which does not resolve (${message}); set HOST to an ` +
        "address or a host name of this machine.\n",
    );
    return EXIT_USAGE;
  } else if (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "ETIMEDOUT") {
    io.stderr(
      `satang: cannot connect to the database named by DATABASE_URL (${message}). Is PostgreSQL running?\n`,
    );
  } else {
    io.stderr(`satang: ${message}\n`);
  }
  return EXIT_API_ERROR;
}

/** Reports a failure of an operator or server command and returns its exit code. */
export function reportError(error: unknown, io: CliIo, json: boolean): number {
  if (error instanceof CommanderError) return commanderExit(error);
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
    io.stderr(terminalSafe(`Error ${error.code}: ${error.message}${field}\n`));
    if (error.code === "INVALID_CREDENTIALS") {
      io.stderr("Check the admin token: --token, ADMIN_TOKEN, or DATA_DIR/admin-token.\n");
    }
    return EXIT_API_ERROR;
  }
  return reportProcessError(error, io);
}

/** Prints what the API refused, with a hint for the refusals a developer can fix. */
function reportRefusal(error: SatangError, io: CliIo, json: boolean): number {
  if (json) {
    const body = { code: error.code, message: error.message, metadata: error.metadata ?? null };
    io.stdout(`${JSON.stringify({ error: body })}\n`);
  }
  const field = (error.metadata as { field?: unknown } | undefined)?.field;
  io.stderr(
    terminalSafe(
      `Error ${error.code}: ${error.message}${typeof field === "string" ? ` (field: ${field})` : ""}\n`,
    ),
  );
  if (error.code === "INVALID_CREDENTIALS") {
    io.stderr("Check the API key and secret: --api-key/--api-secret or SATANG_API_KEY/SATANG_API_SECRET.\n");
  } else if (error.code === "RESOURCE_NOT_FOUND" && /^Route /.test(error.message)) {
    io.stderr("Sandbox routes exist only on a sandbox server (SATANG_ENV=sandbox).\n");
  }
  return EXIT_API_ERROR;
}

/**
 * Reports a failure of a developer command (`listen`, `trigger`) and returns its exit code.
 * `url` is the command's --url flag, if given: an unreachable server is reported with where
 * its address came from.
 */
export function reportDevError(error: unknown, io: CliIo, json: boolean, url?: string): number {
  if (error instanceof CommanderError) return commanderExit(error);
  if (error instanceof UsageError || error instanceof ConfigError) {
    io.stderr(`satang: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof ConnectionError) {
    const source = addressSource({ url }, io.env);
    io.stderr(
      `satang: ${error.message}; that address is ${source}. Is the server running? Start it with ` +
        "`npm start`, or set SATANG_URL to the server's address (e.g. " +
        "SATANG_URL=https://sandbox.example.com), or pass --url.\n",
    );
    return EXIT_UNREACHABLE;
  }
  if (error instanceof SatangError) return reportRefusal(error, io, json);
  io.stderr(`satang: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT_API_ERROR;
}
