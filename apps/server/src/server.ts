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
import { cpSync, existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { buildApp } from "./app.ts";
import { type BootstrapResult, bootstrap } from "./bootstrap.ts";
import { type Config, ConfigError, parseSecretKey } from "./config.ts";
import { DATA_DIR_LOCK_FILE, EMBEDDED_DATABASE_DIR, SECRET_KEY_FILE } from "./data-dir.ts";
import { createPrivateDir, secureDataDir, tightenDataDir } from "./data-dir-permissions.ts";
import { embeddedStoreExists, openStore, type Store } from "./db/connect.ts";
import { migrateToLatest } from "./db/migrate.ts";
import { buildDeps, type Deps } from "./deps.ts";
import { JOBS } from "./jobs/index.ts";
import { type RunningWorkers, startWorkers } from "./jobs/runner.ts";
import { SecretBox } from "./lib/crypto.ts";
import { SHUTDOWN_GRACE_MS } from "./lib/limits.ts";
import { fieldRedaction, redactError, redactText } from "./lib/redaction.ts";
import { listenMetrics } from "./ops/metrics-port.ts";
import { connectorSecrets, unreadableAnswersOf } from "./providers/registry.ts";
import {
  addressesMessage,
  explainBindError,
  holdRequestsUntilStarted,
  storeProgress,
} from "./start-output.ts";

/** Field names whose values never reach a log line, at any depth. */
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

/** Every log line's members of these names lose their values (lib/redaction.ts). */
const redactSecretFields = fieldRedaction([...SECRET_FIELDS, ...SECRET_HEADERS]);

/**
 * A provider's confirmation route carries its callback token as the last path segment
 * (CONTRACT 15: `/providers/{name}/confirmations/{token}`). Request logs show the segment by the
 * setting's name, never its value, whatever the token looks like or whether it is right.
 */
const CONFIRMATION_PATH = /^(\/providers\/([A-Za-z0-9_-]+)\/confirmations\/)[^?#]*/;

/** `url` as logged: a confirmation route's token replaced by the name of its setting. */
export function loggedUrl(url: string): string {
  return url.replace(CONFIRMATION_PATH, (_match, prefix: string, provider: string) => {
    return `${prefix}{${provider.toUpperCase().replace(/-/g, "_")}_CALLBACK_TOKEN}`;
  });
}

/** Fastify's request fields, with the URL as `loggedUrl` writes it. */
function requestSerializer(request: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}): Record<string, unknown> {
  return {
    method: request.method,
    url: typeof request.url === "string" ? loggedUrl(request.url) : request.url,
    version: request.headers?.["accept-version"],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * pino options: JSON lines at LOG_LEVEL, errors without their SQL and parameters, and every
 * finished line redacted by field name at any depth (SECRET_FIELDS, SECRET_HEADERS), by shape
 * (lib/redaction.ts: tokens, keys, account numbers) and by value: the configured operator and metrics tokens,
 * and every connector's secrets (providers/registry.ts: API keys, secrets, callback tokens),
 * each named there rather than left to look like a token.
 */
export function loggerOptions(
  config: Pick<Config, "logLevel"> &
    Partial<Pick<Config, "adminToken" | "metrics">> &
    Parameters<typeof connectorSecrets>[0],
): Record<string, unknown> {
  const literals = [config.adminToken, config.metrics?.token, ...connectorSecrets(config)].filter(
    (t): t is string => Boolean(t),
  );
  // An error's message alone (a job's `error: "read ECONNRESET"`) is logged as the text it is.
  const errorSerializer = (error: unknown) =>
    error !== null && typeof error === "object"
      ? redactError(pino.stdSerializers.err(error as Error))
      : error;
  return {
    level: config.logLevel,
    serializers: { err: errorSerializer, error: errorSerializer, req: requestSerializer },
    hooks: { streamWrite: (line: string) => redactText(redactSecretFields(line), literals) },
  };
}

/**
 * The key that seals integration secrets. Live must be given SECRET_KEY (config.ts refuses to
 * start without it). Sandbox without SECRET_KEY generates a key once and keeps it in
 * DATA_DIR/secret.key (mode 0600), also when the database is PostgreSQL: several nodes sharing
 * one database must then be given the same SECRET_KEY, which bootstrap checks.
 */
function resolveSecretKey(config: Config): Buffer {
  if (config.secretKey) return config.secretKey;
  if (config.env === "live") throw new ConfigError("SECRET_KEY is required when SATANG_ENV=live");
  createPrivateDir(config.dataDir);
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
  createPrivateDir(dir);
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

/**
 * EMBEDDED_TEMPLATE for a new embedded store: a directory (a closed store's files) is copied into
 * place, a file (a `dumpDataDir()` tarball) is handed to PGlite to unpack. A store that exists,
 * or a template that does not, is left alone.
 */
function startFromTemplate(template: string | undefined, dataDir: string): { loadDataDir?: Blob } {
  if (!template || !existsSync(template) || embeddedStoreExists(dataDir)) return {};
  if (!statSync(template).isDirectory()) return { loadDataDir: new Blob([readFileSync(template)]) };
  cpSync(template, dataDir, { recursive: true });
  return {};
}

/** Opens the store the configuration names; the embedded one is locked to this process. */
export async function openConfiguredStore(config: Config): Promise<Store> {
  const bounds = config.databaseBounds;
  if (config.databaseUrl) {
    return openStore({
      databaseUrl: config.databaseUrl,
      listenUrl: config.databaseDirectUrl,
      bounds,
      preparedStatements: config.databasePreparedStatements,
    });
  }
  // The embedded store's files carry every secret it keeps: DATA_DIR is private to this user.
  secureDataDir(config.dataDir, (message) => process.emitWarning(message, "DataDirPermissions"));
  const release = lockDataDir(config.dataDir);
  try {
    const dataDir = join(config.dataDir, EMBEDDED_DATABASE_DIR);
    const store = await openStore({
      dataDir,
      bounds,
      embeddedSync: config.embeddedSync,
      ...startFromTemplate(config.embeddedTemplate, dataDir),
    });
    tightenDataDir(config.dataDir);
    return {
      ...store,
      close: async () => {
        try {
          await store.close();
          tightenDataDir(config.dataDir);
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

interface StartOptions {
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
  /** The port of METRICS_PORT's server, when it runs. */
  metricsPort: number | undefined;
  bootstrap: BootstrapResult;
  workers: boolean;
  /** Drains in-flight requests, then closes the store. Safe to call more than once. */
  close(): Promise<void>;
}

/** A process's dependencies over its own store, migrated and ready. */
interface OpenedProcess {
  deps: Deps;
  store: Store;
}

/**
 * What `serve` and `worker` both start with: the secret key, the configured store with its
 * migrations applied, and everything built on them by the composition root (deps.ts).
 */
async function openProcess(config: Config, print?: (text: string) => void): Promise<OpenedProcess> {
  const secrets = new SecretBox(resolveSecretKey(config));
  const progress = storeProgress(config);
  print?.(progress.opening);
  const store = await openConfiguredStore(config);
  try {
    print?.(progress.migrating);
    await migrateToLatest(store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  const databaseReachable = (timeoutMs: number) => store.reachable(timeoutMs);
  return {
    deps: buildDeps({
      config,
      db: store.db,
      storeKind: store.kind,
      secrets,
      databaseReachable,
      databaseDump: store.dump,
    }),
    store,
  };
}

interface ShutdownLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * The one way a process ends: `stop` (drain what it is doing), then the store closes, whatever
 * `stop` did. The returned close is safe to call more than once. With `handleSignals`, SIGTERM
 * and SIGINT close the process and exit 0 (1 when closing fails).
 */
function shutdownOnce(options: {
  store: Store;
  log: ShutdownLogger;
  handleSignals: boolean | undefined;
  /** What the log says a signal starts. */
  draining: string;
  stop: () => Promise<unknown>;
}): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    options.log.info({ signal }, options.draining);
    close().then(
      () => process.exit(0),
      (err) => {
        options.log.error({ err }, "shutdown failed");
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
        await options.stop();
      } finally {
        await options.store.close();
      }
    })();
    return closing;
  };
  if (options.handleSignals) {
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  }
  return close;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const print = options.print ?? ((text: string) => process.stdout.write(text));
  const { deps, store } = await openProcess(config, print);
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp(deps, { logger: options.logger ?? loggerOptions(config) });
    const started = holdRequestsUntilStarted(app);
    await options.beforeListen?.(app);
    // Bound before bootstrap: a start that cannot bind generates (and loses) no credentials.
    await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
      throw explainBindError(error, config.host, config.port, "PORT");
    });
    const metricsPort = config.metrics.port;
    const metricsServer =
      metricsPort === undefined
        ? undefined
        : await listenMetrics(app, config.host, metricsPort, config.http).catch((error: unknown) => {
            throw explainBindError(error, config.host, metricsPort, "METRICS_PORT");
          });
    const bootstrapped = await bootstrap(deps, { print });
    started();
    const address = app.server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    const running = app;
    const runWorkers = options.workers ?? true;
    const workers: RunningWorkers | undefined = runWorkers
      ? startWorkers(deps, JOBS, running.log)
      : undefined;
    const close = shutdownOnce({
      store,
      log: running.log,
      handleSignals: options.handleSignals,
      draining: "shutting down: draining in-flight requests",
      stop: async () => {
        // Requests that outlive the grace period are cut off, so a stuck client cannot hold the
        // process (and a deployment's rollout) forever.
        const force = setTimeout(() => running.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        force.unref();
        try {
          metricsServer?.closeAllConnections();
          metricsServer?.close();
          await Promise.all([running.close(), workers?.stop()]);
        } finally {
          clearTimeout(force);
        }
      },
    });
    // Said only once SIGTERM is handled, so whoever waits for this line may stop the server.
    print(addressesMessage(config, `http://${host}:${address.port}`));
    return {
      app: running,
      deps,
      store,
      url: `http://${host}:${address.port}`,
      port: address.port,
      metricsPort: metricsServer ? (metricsServer.address() as AddressInfo).port : undefined,
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

interface WorkerOptions {
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
  const { deps, store } = await openProcess(config);
  const log =
    options.logger === false ? pino({ enabled: false }) : pino(options.logger ?? loggerOptions(config));
  for (const unreadable of unreadableAnswersOf(deps.connectors)) unreadable.attach(log);
  const workers = startWorkers(deps, JOBS, log);
  const close = shutdownOnce({
    store,
    log,
    handleSignals: options.handleSignals,
    draining: "shutting down: letting the jobs finish their batch",
    stop: () => workers.stop(),
  });
  // Said only once SIGTERM is handled, so whoever waits for this line may stop the worker.
  log.info({ jobs: JOBS.map((job) => job.name), store: store.kind }, "worker started");
  return { deps, store, close };
}
