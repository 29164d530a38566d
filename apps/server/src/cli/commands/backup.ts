/**
 * `satang backup <file>` and `satang restore <file>`: the embedded store's backups
 * (docs/operations.md). PostgreSQL is backed up by its own tools, so both refuse a DATABASE_URL.
 *
 * - backup: a consistent copy of the embedded database (a gzipped tar). With --url, or while a
 *   server holds DATA_DIR, the copy is the server's own (GET /admin/v1/backup, taken between
 *   two transactions, with the operator token; a server on PostgreSQL refuses it); otherwise
 *   the command opens the database under DATA_DIR itself, and refuses when there is none there
 *   (it would have made an empty one and written a copy of nothing).
 *   The file is written to a temporary name, readable by its owner only, then renamed.
 * - restore: only with no server running (it takes DATA_DIR's lock). The copy is opened in a
 *   directory of its own first; only once it opens does it replace the database, whose former
 *   directory is kept beside it (pglite.before-restore-<time>) rather than deleted.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { type Config, ConfigError, loadConfig } from "../../config.ts";
import { DATA_DIR_LOCK_FILE, EMBEDDED_DATABASE_DIR } from "../../data-dir.ts";
import { tightenDataDir } from "../../data-dir-permissions.ts";
import {
  ApiError,
  addressSource,
  type ClientOptions,
  resolveBaseUrl,
  resolveToken,
  UnreachableError,
} from "../client.ts";
import type { CliIo, CommandContext } from "../io.ts";

const POSTGRES_BACKUPS =
  "DATABASE_URL names PostgreSQL, which is backed up with its own tools (WAL archiving and base " +
  "backups with pgBackRest): see docs/operations.md";

/** The pid of the live process that holds DATA_DIR, if any. */
function dataDirOwner(dataDir: string): number | undefined {
  const file = join(dataDir, DATA_DIR_LOCK_FILE);
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : undefined;
  }
}

/** The running server's copy, through the operator API. */
async function copyFromServer(flags: ClientOptions, env: NodeJS.ProcessEnv): Promise<Buffer> {
  const baseUrl = resolveBaseUrl(flags, env);
  const token = resolveToken(flags, env);
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/admin/v1/backup`, {
      headers: { authorization: `Bearer ${token}`, "x-satang-client": "cli" },
    });
  } catch (error) {
    const reason = (error as Error & { cause?: Error }).cause?.message ?? String(error);
    throw new UnreachableError(baseUrl, reason, addressSource(flags, env));
  }
  const body = Buffer.from(await response.arrayBuffer());
  if (response.ok) return body;
  if (response.status === 404 && body.toString("utf8").includes("Route GET /admin/v1/backup not found")) {
    // A server of a release from before `satang backup`: its database is copied with it stopped.
    throw new ConfigError(
      `The server at ${baseUrl} has no backup route (it runs an earlier release of Satang): stop it ` +
        "and run satang backup again, which then copies DATA_DIR's database itself.",
    );
  }
  let error: { code?: string; message?: string; metadata?: Record<string, unknown> } = {};
  try {
    error = (JSON.parse(body.toString("utf8")) as { error: typeof error }).error ?? {};
  } catch {}
  throw new ApiError(
    response.status,
    error.code ?? "HTTP_ERROR",
    error.message ?? `HTTP ${response.status}`,
    error.metadata,
  );
}

/** A copy taken by opening the database here (no server holds it). */
async function copyHere(config: Config): Promise<Buffer> {
  const directory = join(config.dataDir, EMBEDDED_DATABASE_DIR);
  if (!existsSync(directory)) {
    throw new ConfigError(
      `No embedded database under DATA_DIR (${resolve(directory)} does not exist), so there is nothing ` +
        "to copy. For a running server's copy pass --url (a server on PostgreSQL is backed up with " +
        "PostgreSQL's own tools: see docs/operations.md).",
    );
  }
  const { openConfiguredStore } = await import("../../server.ts");
  const store = await openConfiguredStore(config);
  try {
    if (!store.dump) throw new ConfigError(POSTGRES_BACKUPS);
    return Buffer.from(await (await store.dump()).arrayBuffer());
  } finally {
    await store.close();
  }
}

async function runBackup(file: string, flags: ClientOptions, io: CliIo): Promise<void> {
  const config = loadConfig(io.env);
  if (config.databaseUrl) throw new ConfigError(POSTGRES_BACKUPS);
  const target = resolve(file);
  // Checked before a copy is asked for, so a mistyped path costs no copy of the database.
  const folder = dirname(target);
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError(`${folder} is not a directory, so the copy cannot be written to ${target}`);
  }
  const owner = dataDirOwner(config.dataDir);
  const fromServer = flags.url !== undefined || owner !== undefined;
  const copy = fromServer ? await copyFromServer(flags, io.env) : await copyHere(config);
  const temporary = `${target}.${process.pid}.partial`;
  try {
    writeFileSync(temporary, copy, { mode: 0o600, flag: "wx" });
    renameSync(temporary, target);
  } catch (error) {
    throw new ConfigError(`The copy could not be written to ${target}: ${(error as Error).message}`);
  } finally {
    rmSync(temporary, { force: true });
  }
  const from = !fromServer
    ? ""
    : owner === undefined
      ? ` from the server at ${resolveBaseUrl(flags, io.env)}`
      : ` from the running server (pid ${owner})`;
  io.stdout(`Wrote a consistent copy of the embedded database${from} to ${target} (${copy.length} bytes).\n`);
}

async function runRestore(file: string, io: CliIo): Promise<void> {
  const config = loadConfig(io.env);
  if (config.databaseUrl) throw new ConfigError(POSTGRES_BACKUPS);
  const source = resolve(file);
  if (!existsSync(source)) throw new ConfigError(`${source} does not exist`);
  const { lockDataDir } = await import("../../server.ts");
  const { PGlite } = await import("@electric-sql/pglite");
  const release = lockDataDir(config.dataDir); // refuses while a server runs on DATA_DIR
  try {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const current = join(config.dataDir, EMBEDDED_DATABASE_DIR);
    const incoming = `${current}.restoring-${stamp}`;
    try {
      // Opened as it is, and asked for the table every Satang database has.
      const lite = await PGlite.create({ dataDir: incoming, loadDataDir: new Blob([readFileSync(source)]) });
      try {
        await lite.query("select count(*) from merchants");
      } finally {
        await lite.close();
      }
    } catch (error) {
      rmSync(incoming, { recursive: true, force: true });
      throw new ConfigError(`${source} is not a Satang backup that opens: ${(error as Error).message}`);
    }
    // PGlite writes its files 0666 whatever the umask: the restored database is made private
    // before it takes its place, as every store is (data-dir-permissions.ts).
    tightenDataDir(incoming);
    let kept = "";
    if (existsSync(current)) {
      kept = `${current}.before-restore-${stamp}`;
      renameSync(current, kept);
    }
    renameSync(incoming, current);
    io.stdout(
      `Restored the embedded database from ${source}.${kept ? ` The database it replaced is kept in ${kept}.` : ""}\n`,
    );
  } finally {
    release();
  }
}

/** Adds `backup` and `restore` to the program. */
export function registerBackupCommands(program: Command, { io }: CommandContext): void {
  program
    .command("backup")
    .description("write a consistent copy of the embedded database to a file (also while the server runs)")
    .argument("<file>", "where to write the copy (a gzipped tar)")
    .option(
      "--url <url>",
      "take the copy from the server at this address (without it: from the server holding DATA_DIR, else from DATA_DIR's database)",
    )
    .option("--token <token>", "operator token (default ADMIN_TOKEN, else DATA_DIR/admin-token)")
    .action(async (file: string, flags: ClientOptions) => runBackup(file, flags, io));
  program
    .command("restore")
    .description("replace the embedded database with a copy made by `satang backup` (server stopped)")
    .argument("<file>", "the copy to restore")
    .action(async (file: string) => runRestore(file, io));
}
