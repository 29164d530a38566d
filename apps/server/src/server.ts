/**
 * The process around the app: builds Deps from Config, opens the store, applies migrations,
 * runs the first-start bootstrap, listens, and shuts down gracefully.
 *
 * Shutdown order matters: the HTTP server closes (fastify's close stops accepting connections,
 * answers 503 to requests arriving meanwhile and waits for in-flight requests) while the
 * background workers finish the batch they are on, and only then the store closes, so neither
 * a request nor a job loses its database halfway.
 *
 * `startWorker` is the same process without HTTP (`satang worker`): the background jobs only.
 */
import { randomBytes } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { buildApp } from "./app.ts";
import { type BootstrapResult, bootstrap } from "./bootstrap.ts";
import { type Config, ConfigError, parseSecretKey } from "./config.ts";
import { openStore, type Store } from "./db/connect.ts";
import { migrateToLatest } from "./db/migrate.ts";
import type { Deps } from "./deps.ts";
import { JOBS } from "./jobs/index.ts";
import { type RunningWorkers, startWorkers } from "./jobs/runner.ts";
import { systemClock } from "./lib/clock.ts";
import { SecretBox } from "./lib/crypto.ts";
import { SHUTDOWN_GRACE_MS } from "./lib/limits.ts";

export const SECRET_KEY_FILE = "secret.key";
/**
 * The embedded database lives in its own directory under DATA_DIR, apart from the key and token
 * files, so a copy or dump of the database never carries the key that opens its secrets.
 */
export const EMBEDDED_DATABASE_DIR = "pglite";
const DATA_DIR_LOCK_FILE = "satang.pid";

/** Field names whose values never reach a log line, at any of the first few nesting levels. */
const SECRET_FIELDS = [
  "apiSecret",
  "secret",
  "password",
  "token",
  "adminToken",
  "secretKey",
  "clientSecret",
  "customerBankAccountNumber",
  "accountNumber",
  "bankAccountNumber",
];
const SECRET_HEADERS = ["authorization", "x-signature", "x-api-key", "cookie"];

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const header of SECRET_HEADERS) {
    paths.push(`req.headers["${header}"]`, `headers["${header}"]`, `request.headers["${header}"]`);
  }
  for (const field of SECRET_FIELDS) {
    paths.push(field, `*.${field}`, `*.*.${field}`, `*.*.*.${field}`);
  }
  return paths;
}

/** pino options: JSON lines at LOG_LEVEL, with secrets, tokens and account numbers redacted. */
export function loggerOptions(config: Pick<Config, "logLevel">): Record<string, unknown> {
  return {
    level: config.logLevel,
    redact: { paths: redactPaths(), censor: "[redacted]" },
  };
}

/**
 * The key that seals integration secrets. Live must be given SECRET_KEY (config.ts refuses to
 * start without it). Sandbox without SECRET_KEY generates a key once and keeps it in
 * DATA_DIR/secret.key (mode 0600), also when the database is PostgreSQL: several nodes sharing
 * one database must then be given the same SECRET_KEY, which bootstrap checks.
 */
export function resolveSecretKey(config: Config): Buffer {
  if (config.secretKey) return config.secretKey;
  if (config.env === "live") throw new ConfigError("SECRET_KEY is required when SATANG_ENV=live");
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, SECRET_KEY_FILE);
  if (!existsSync(file)) {
    // The key is written in full to a private file first and then linked into place: linking
    // fails when the name exists, so two processes starting at once end up with one key, and
    // neither can read a half-written file.
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    writeFileSync(temporary, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  return parseSecretKey(readFileSync(file, "utf8").trim(), file);
}

/** Directories this process holds the embedded-store lock of. */
const heldDataDirs = new Set<string>();

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The embedded database (PGlite) belongs to one process: a second process opening the same
 * directory would corrupt it. A pid file in DATA_DIR marks the owner; a file left by a process
 * that no longer runs (or by an earlier run that had this same pid, as in a restarted
 * container) is taken over. Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, DATA_DIR_LOCK_FILE);
  // The pid is written in full before the lock file appears (a link fails when the name
  // exists), so another process never reads a half-written lock. Two processes taking over the
  // same stale lock at the same instant are not excluded; that needs a crash and two starts at
  // once, and the lock exists to catch the everyday mistake of a second command on a live store.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(temporary, file);
        heldDataDirs.add(dir);
        return () => {
          heldDataDirs.delete(dir);
          rmSync(file, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let owner = Number.NaN;
      try {
        owner = Number(readFileSync(file, "utf8").trim());
      } catch {
        continue;
      }
      const inUse =
        Number.isInteger(owner) &&
        owner > 0 &&
        (owner === process.pid ? heldDataDirs.has(dir) : processIsAlive(owner));
      if (inUse) {
        throw new ConfigError(
          `DATA_DIR ${dir} is in use by another Satang process (pid ${owner}). The embedded database ` +
            "allows one process at a time: stop that process first, or use DATABASE_URL (PostgreSQL) " +
            `to run several. If no Satang process is running, delete ${file}.`,
        );
      }
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(temporary, { force: true });
  }
  throw new ConfigError(`could not lock DATA_DIR ${dir}`);
}

/** Opens the store the configuration names; the embedded one is locked to this process. */
export async function openConfiguredStore(config: Config): Promise<Store> {
  if (config.databaseUrl) return openStore({ databaseUrl: config.databaseUrl });
  const release = lockDataDir(config.dataDir);
  try {
    const store = await openStore({ dataDir: join(config.dataDir, EMBEDDED_DATABASE_DIR) });
    return {
      ...store,
      close: async () => {
        try {
          await store.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

export interface StartOptions {
  /** pino options, or false for no logs. Defaults to loggerOptions(config). */
  logger?: false | Record<string, unknown>;
  /** Where the first-start text goes (stdout by default). */
  print?: (text: string) => void;
  /** Close and exit 0 on SIGTERM and SIGINT (what `satang serve` wants; tests do not). */
  handleSignals?: boolean;
  /**
   * Whether this process also runs the background workers (jobs/index.ts), default true.
   * `serve --no-workers` sets false and leaves them to `satang worker` processes. On the
   * embedded store the workers share the serving process's one connection, queued.
   */
  workers?: boolean;
  /** Called after the app is built and before it listens: lets embedders and tests add routes. */
  beforeListen?: (app: FastifyInstance) => void | Promise<void>;
}

export interface RunningServer {
  app: FastifyInstance;
  deps: Deps;
  store: Store;
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  port: number;
  bootstrap: BootstrapResult;
  workers: boolean;
  /** Drains in-flight requests, then closes the store. Safe to call more than once. */
  close(): Promise<void>;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const secrets = new SecretBox(resolveSecretKey(config));
  const store = await openConfiguredStore(config);
  let app: FastifyInstance | undefined;
  try {
    await migrateToLatest(store.db);
    const deps: Deps = {
      config,
      db: store.db,
      storeKind: store.kind,
      clock: systemClock,
      wallClock: systemClock,
      secrets,
    };
    const bootstrapped = await bootstrap(deps, options.print ? { print: options.print } : {});
    app = await buildApp(deps, { logger: options.logger ?? loggerOptions(config) });
    await options.beforeListen?.(app);
    await app.listen({ host: config.host, port: config.port });
    const address = app.server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    const running = app;
    const runWorkers = options.workers ?? true;
    const workers: RunningWorkers | undefined = runWorkers
      ? startWorkers(deps, JOBS, running.log)
      : undefined;

    let closing: Promise<void> | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      running.log.info({ signal }, "shutting down: draining in-flight requests");
      close().then(
        () => process.exit(0),
        (err) => {
          running.log.error({ err }, "shutdown failed");
          process.exit(1);
        },
      );
    };
    const close = (): Promise<void> => {
      closing ??= (async () => {
        if (options.handleSignals) {
          process.off("SIGTERM", onSignal);
          process.off("SIGINT", onSignal);
        }
        // Requests that outlive the grace period are cut off, so a stuck client cannot hold the
        // process (and a deployment's rollout) forever.
        const force = setTimeout(() => running.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        force.unref();
        try {
          await Promise.all([running.close(), workers?.stop()]);
        } finally {
          clearTimeout(force);
          await store.close();
        }
      })();
      return closing;
    };
    if (options.handleSignals) {
      process.once("SIGTERM", onSignal);
      process.once("SIGINT", onSignal);
    }
    return {
      app: running,
      deps,
      store,
      url: `http://${host}:${address.port}`,
      port: address.port,
      bootstrap: bootstrapped,
      workers: runWorkers,
      close,
    };
  } catch (error) {
    await app?.close().catch(() => {});
    await store.close();
    throw error;
  }
}

export interface WorkerOptions {
  /** pino options, or false for no logs. Defaults to loggerOptions(config). */
  logger?: false | Record<string, unknown>;
  /** Stop the jobs, close and exit 0 on SIGTERM and SIGINT (what `satang worker` wants). */
  handleSignals?: boolean;
}

export interface RunningWorker {
  deps: Deps;
  store: Store;
  /** Lets every job finish the batch it is on, then closes the store. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * `satang worker`: the background jobs without HTTP, for deployments that run the API and the
 * workers in separate processes. Any number may run against one PostgreSQL: the jobs claim
 * their rows with FOR UPDATE SKIP LOCKED. On the embedded store the data directory's lock
 * refuses a worker beside a running server, since PGlite belongs to one process.
 */
export async function startWorker(config: Config, options: WorkerOptions = {}): Promise<RunningWorker> {
  const secrets = new SecretBox(resolveSecretKey(config));
  const store = await openConfiguredStore(config);
  try {
    await migrateToLatest(store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  const deps: Deps = {
    config,
    db: store.db,
    storeKind: store.kind,
    clock: systemClock,
    wallClock: systemClock,
    secrets,
  };
  const log =
    options.logger === false ? pino({ enabled: false }) : pino(options.logger ?? loggerOptions(config));
  const workers = startWorkers(deps, JOBS, log);
  log.info({ jobs: JOBS.map((job) => job.name), store: store.kind }, "worker started");

  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    log.info({ signal }, "shutting down: letting the jobs finish their batch");
    close().then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (options.handleSignals) {
        process.off("SIGTERM", onSignal);
        process.off("SIGINT", onSignal);
      }
      try {
        await workers.stop();
      } finally {
        await store.close();
      }
    })();
    return closing;
  };
  if (options.handleSignals) {
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  }
  return { deps, store, close };
}
