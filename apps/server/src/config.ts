/**
 * Configuration comes from the environment and is validated once, at start. A bad value stops
 * the process with a message that names the variable and says what it accepts.
 */
import { isIP } from "node:net";
import { DEFAULT_DATA_DIR } from "./data-dir.ts";
import { type DatabaseBounds, DEFAULT_DATABASE_BOUNDS } from "./db/bounds.ts";
import { EMBEDDED_SYNC_MODES, type EmbeddedSyncMode } from "./db/embedded-sync.ts";
import { parseMultiHostUrl } from "./db/primary.ts";
import {
  PAYOUT_UNDECIDED_ALERT_S_DEFAULT,
  PAYOUT_UNDECIDED_ALERT_S_MAX,
  PROVIDER_EXCHANGE_RETENTION_DAYS_DEFAULT,
  PROVIDER_EXCHANGE_RETENTION_DAYS_MAX,
  RATE_LIMIT_LIVE_PER_MINUTE,
  RATE_LIMIT_SANDBOX_PER_MINUTE,
} from "./lib/limits.ts";

export type Environment = "sandbox" | "live";

export interface Config {
  env: Environment;
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
  /**
   * A direct PostgreSQL connection (not through a transaction-pooling PgBouncer) for LISTEN;
   * DATABASE_URL when unset (docs/DEPLOYMENT.md).
   */
  databaseDirectUrl: string | undefined;
  /**
   * DATABASE_PREPARED_STATEMENTS (`on`/`off`): named prepared statements on PostgreSQL
   * (db/prepared.ts). Off by default when DATABASE_DIRECT_URL is set (a transaction-pooling
   * PgBouncer before 1.21 is in front), on otherwise.
   */
  databasePreparedStatements: boolean;
  dataDir: string;
  rateLimitPerMinute: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  /**
   * OPERATOR_AUTH_FAILURES_PER_MINUTE: missing or wrong operator tokens one client address may
   * send in any 60 s before its operator requests are refused with 429 (default 20).
   */
  operatorAuthFailuresPerMinute: number;
  /** 32-byte key; undefined means "generate and keep one under DATA_DIR" (sandbox only). */
  secretKey: Buffer | undefined;
  logLevel: string;
  /**
   * Whether webhook URLs may point at loopback addresses (events/url-guard.ts). Sandbox allows
   * it unless WEBHOOK_ALLOW_LOOPBACK=false, so a developer can receive events on their own
   * machine; live never does, and refuses to start when asked to.
   */
  webhookAllowLoopback: boolean;
  /**
   * Who moves a pending withdraw to the payout provider (docs/lifecycle.md). `simulate` (the
   * sandbox default): nobody until a sandbox simulate route says so, so merchants' tests are
   * deterministic (CONTRACT 9). `automatic`: the payout worker picks every pending withdraw up,
   * as live always does. Set with SANDBOX_PAYOUT_PICKUP; live ignores it.
   */
  payoutPickup: "simulate" | "automatic";
  /**
   * The payment provider (CONTRACT 15): `simulated` (the sandbox default) or `scb`. Set with
   * SATANG_PROVIDER; live requires it and refuses `simulated`. The type keeps `undefined` for
   * callers that build a configuration by hand (tests), which then have no provider.
   */
  provider: ProviderName | undefined;
  /**
   * SATANG_PROVIDER as a failover order (CONTRACT 15, docs/providers/routing.md): the connectors
   * new payments are offered to, first to last, without duplicates; `provider` is its first.
   * `simulated` only ever stands alone. Optional for configurations built by hand (tests), which
   * then mean `[provider]`.
   */
  providers?: ProviderName[];
  /** Who pays withdraws: the provider's transfer API, or the operator's manual payout desk. */
  payouts: PayoutMode;
  /**
   * SATANG_PAYOUT_PROVIDER: the connector that pays withdraws (default: the first of
   * SATANG_PROVIDER that pays out); undefined with SATANG_PAYOUTS=manual.
   */
  payoutProvider?: ProviderName | undefined;
  /** The Opn connector's settings; present exactly when SATANG_PROVIDER names `opn`. */
  opn?: OpnConfig | undefined;
  /**
   * PAYOUT_UNDECIDED_ALERT_S (CONTRACT 15): a payout a connector holds undecided longer than
   * this is listed for the operator, counted by `satang_payouts_undecided` and logged at error.
   */
  payoutUndecidedAlertMs: number;
  /** The SCB connector's settings; present exactly when `provider` is `scb`. */
  scb: ScbConfig | undefined;
  /**
   * SCB_EXCHANGE_RETENTION_DAYS: recorded SCB exchanges older than this many days are deleted by
   * a background job. Read whatever the provider, so that a deployment that stopped using SCB
   * still trims what it recorded.
   */
  scbExchangeRetentionDays: number;
  /** Bounded database waits (CONTRACT 14, db/bounds.ts): DB_LOCK_TIMEOUT_MS and the rest. */
  databaseBounds: DatabaseBounds;
  /** EMBEDDED_SYNC: `commit` (each commit on disk before its answer) or `off` (db/embedded-sync.ts). */
  embeddedSync: EmbeddedSyncMode;
  /**
   * EMBEDDED_TEMPLATE: what a new, empty embedded store starts from instead of running initdb
   * (4 to 7 s): a closed embedded store's directory, copied (about 0.2 s of CPU), or a PGlite
   * snapshot (a `dumpDataDir()` tarball, unpacked by PGlite: about 1.5 s). The test suite points
   * it at its migrated template; unset, a new store is initialized as usual. A store that exists
   * ignores it.
   */
  embeddedTemplate: string | undefined;
  /** Who may read /metrics (CONTRACT 14). */
  metrics: MetricsConfig;
  /** Connection timeouts and the per-address connection cap (CONTRACT 14). */
  http: HttpLimitsConfig;
  /** Login throttling: per address, and how much password hashing may run at once. */
  login: LoginLimitsConfig;
}

export interface MetricsConfig {
  /** METRICS_TOKEN: the bearer token of /metrics; the operator token when unset. */
  token: string | undefined;
  /** METRICS_PORT: serve /metrics on this port only (no token asked there), not on the API port. */
  port: number | undefined;
}

export interface HttpLimitsConfig {
  /** HTTP_HEADERS_TIMEOUT_MS: all request headers within this (default 10 s). */
  headersTimeoutMs: number;
  /** HTTP_BODY_TIMEOUT_MS: the whole request, body included, within this (default 30 s). */
  requestTimeoutMs: number;
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this (default 5 s). */
  keepAliveTimeoutMs: number;
  /** HTTP_CONNECTIONS_PER_ADDRESS_MAX: open connections one client address may hold (default 100). */
  connectionsPerAddressMax: number;
}

export interface LoginLimitsConfig {
  /** LOGIN_PER_ADDRESS_PER_MINUTE: login attempts one client address may make per minute (default 20). */
  perAddressPerMinute: number;
  /** LOGIN_HASHES_MAX: password checks (argon2) running at once in this process (default 2). */
  hashesMax: number;
  /** LOGIN_QUEUE_MAX: logins waiting for a password check; more are refused with 503 (default 16). */
  queueMax: number;
}

export const PROVIDER_NAMES = ["simulated", "scb", "opn"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
/** The connectors that can pay withdraws (SATANG_PAYOUT_PROVIDER's default is the first named). */
const PAYING_PROVIDERS: readonly ProviderName[] = ["simulated", "scb", "opn"];
/** The live connectors a configuration names, in SATANG_PROVIDER's order: all but the sandbox's bank. */
export function liveProviderNames(config: Partial<Pick<Config, "provider" | "providers">>): ProviderName[] {
  const names = config.providers ?? (config.provider === undefined ? [] : [config.provider]);
  return names.filter((name) => name !== "simulated");
}

export const PAYOUT_MODES = ["provider", "manual"] as const;
export type PayoutMode = (typeof PAYOUT_MODES)[number];

/** What SCB payouts debit: the operator's corporate account (docs/providers/scb.md). */
export interface ScbPayerConfig {
  /** SCB_PAYER_ACCOUNT_NUMBER: the operator's 10-digit SCB THB account. */
  accountNumber: string;
  /** SCB_PAYER_TAX_ID: the operator's 13-digit tax id. */
  taxId: string;
  /** SCB_CORPORATE_ID: the corporate id SCB assigned at onboarding. */
  corporateId: string;
}

/**
 * SCB settings (CONTRACT 15, docs/providers/scb.md). The credentials and the callback token are
 * secrets: `toJSON` and the inspector print this object with them redacted, so logging the
 * configuration by mistake never leaks them.
 */
export interface ScbConfig {
  apiBaseUrl: string;
  apiKey: string;
  apiSecret: string;
  /** The operator's 15-digit biller id: every QR pays it, every confirmation must name it. */
  billerId: string;
  /** The secret last segment of the confirmation URL SCB posts to. */
  callbackToken: string;
  /** SCB_REF2: the constant ref2 of every QR (A-Z0-9, at most 20), or null for none. */
  ref2: string | null;
  /**
   * SCB_REF3_PREFIX: the "Reference 3 prefix" SCB assigned to the biller profile (A-Z0-9, 1-8).
   * Every QR's ref3 starts with it; SCB sends a QR 30 confirmation to the endpoint registered
   * for the biller id and this prefix. Null leaves ref3 out.
   */
  ref3Prefix: string | null;
  /** Payouts through SCB's transfer API; null when SATANG_PAYOUTS=manual. */
  payer: ScbPayerConfig | null;
  reconcileIntervalMs: number;
  inquiryDelayMs: number;
  /** SCB_TIMEOUT_MS: the bound of one HTTP call to SCB. */
  requestTimeoutMs: number;
  /** SCB_TOKEN_REFRESH_MARGIN_S: how long before its stated expiry an access token is replaced. */
  tokenRefreshMarginMs: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/**
 * How a refused URL setting is quoted: as given, unless it may carry a password (an `@`), which
 * a refusal never prints (it reaches terminals and logs).
 */
function quotedUrl(raw: string): string {
  return raw.includes("@") ? " (the value is not repeated: it may hold a password)" : `, got "${raw}"`;
}

function url(name: string, raw: string | undefined, protocols: string[]): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL${quotedUrl(raw)}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
  }
  return raw;
}

/**
 * A PostgreSQL URL: one host (read as a URL), or several in libpq's form
 * (`postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write`, db/primary.ts).
 */
function postgresUrl(name: string, raw: string | undefined): string | undefined {
  let multi: ReturnType<typeof parseMultiHostUrl>;
  try {
    multi = raw ? parseMultiHostUrl(raw) : undefined;
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
  if (multi) return raw;
  return url(name, raw, ["postgres:", "postgresql:"]);
}

/** Accepts 32 bytes as 64 hex characters or as base64. */
export function parseSecretKey(raw: string, name = "SECRET_KEY"): Buffer {
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(raw)) key = Buffer.from(raw, "hex");
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) key = Buffer.from(raw, "base64");
  if (key?.length !== 32) {
    throw new ConfigError(`${name} must be 32 bytes, given as 64 hex characters or base64`);
  }
  return key;
}

/** One DNS label: letters, digits and inner hyphens, at most 63 characters. */
const HOST_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${HOST_LABEL}(?:\\.${HOST_LABEL})*\\.?$`);

/** A last label of digits (or hex digits after 0x) makes a name an IPv4 address, not a host name. */
const NUMERIC_LAST_LABEL = /(?:^|\.)(?:[0-9]+|0x[0-9a-f]*)\.?$/i;

/** HOST: the address the API listens on, an IP address or a host name (default 127.0.0.1). */
function hostSetting(raw: string | undefined): string {
  const host = raw || "127.0.0.1";
  const literal = isIP(host) !== 0 && !host.includes("%");
  // 256.0.0.1 or 1.2.3.4.5 has the shape of a host name but is a malformed IPv4 address.
  if (!literal && (!HOST_NAME.test(host) || NUMERIC_LAST_LABEL.test(host))) {
    throw new ConfigError(`HOST must be an IP address or a host name (e.g. 0.0.0.0 or ::), got "${host}"`);
  }
  return host;
}

/**
 * ADMIN_TOKEN and METRICS_TOKEN: at least 16 characters, each a visible ASCII character (no
 * space), so that the token fits `Authorization: Bearer <token>` as it is typed; unset when empty.
 */
function bearerTokenSetting(
  env: NodeJS.ProcessEnv,
  name: "ADMIN_TOKEN" | "METRICS_TOKEN",
): string | undefined {
  const token = env[name] || undefined;
  if (token === undefined) return undefined;
  if (token.length < 16) throw new ConfigError(`${name} must be at least 16 characters`);
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError(
      `${name} must be visible ASCII characters only (letters, digits, punctuation; no spaces), as it is sent in an Authorization header`,
    );
  }
  return token;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/**
 * PUBLIC_BASE_URL: the address `paymentAppUrl` (`PUBLIC_BASE_URL/pay/{id}`) and QR image links
 * start with, an http or https URL with an optional path. A query or fragment would swallow the
 * path appended to it, and credentials would reach every customer's link: both are refused.
 */
function publicBaseUrlSetting(raw: string | undefined): string | undefined {
  const value = url("PUBLIC_BASE_URL", raw, ["http:", "https:"]);
  if (value === undefined) return undefined;
  const parsed = new URL(value);
  if (parsed.username || parsed.password) {
    throw new ConfigError(
      "PUBLIC_BASE_URL must not carry credentials: customers' payment links start with it",
    );
  }
  if (parsed.search || parsed.hash || /[?#]/.test(value)) {
    throw new ConfigError(
      `PUBLIC_BASE_URL must not have a query or fragment (paymentAppUrl appends /pay/{id} to it), got "${value}"`,
    );
  }
  return value;
}

/** WEBHOOK_ALLOW_LOOPBACK: on by default in sandbox, never in live (CONTRACT 12). */
function webhookLoopbackSetting(env: NodeJS.ProcessEnv, envName: Environment): boolean {
  const allowLoopback = env.WEBHOOK_ALLOW_LOOPBACK ?? "";
  if (!["", "true", "false", "1", "0"].includes(allowLoopback)) {
    throw new ConfigError(
      `WEBHOOK_ALLOW_LOOPBACK must be "true" or "false" (or "1" or "0"), got "${allowLoopback}"`,
    );
  }
  const loopbackAsked = allowLoopback === "true" || allowLoopback === "1";
  if (envName === "live" && loopbackAsked) {
    throw new ConfigError("WEBHOOK_ALLOW_LOOPBACK cannot be enabled when SATANG_ENV=live");
  }
  return envName === "sandbox" && (allowLoopback === "" || loopbackAsked);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const envName = env.SATANG_ENV ?? "sandbox";
  if (envName !== "sandbox" && envName !== "live") {
    throw new ConfigError(`SATANG_ENV must be "sandbox" or "live", got "${envName}"`);
  }
  const port = integer(env, "PORT", 3000, 0, 65535);
  const host = hostSetting(env.HOST);
  const publicBaseUrl = (
    publicBaseUrlSetting(env.PUBLIC_BASE_URL) ?? `http://${host.includes(":") ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, "");
  const databaseUrl = postgresUrl("DATABASE_URL", env.DATABASE_URL);
  const databaseDirectUrl = postgresUrl("DATABASE_DIRECT_URL", env.DATABASE_DIRECT_URL);
  const redisUrl = url("REDIS_URL", env.REDIS_URL, ["redis:", "rediss:"]);
  const rateLimitPerMinute = integer(
    env,
    "RATE_LIMIT_PER_MINUTE",
    envName === "live" ? RATE_LIMIT_LIVE_PER_MINUTE : RATE_LIMIT_SANDBOX_PER_MINUTE,
    1,
    10_000_000,
  );
  const adminToken = bearerTokenSetting(env, "ADMIN_TOKEN");
  const secretKey = env.SECRET_KEY ? parseSecretKey(env.SECRET_KEY) : undefined;
  if (envName === "live" && !secretKey) {
    throw new ConfigError("SECRET_KEY is required when SATANG_ENV=live (32 bytes, hex or base64)");
  }
  const logLevel = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const webhookAllowLoopback = webhookLoopbackSetting(env, envName);
  const pickup = env.SANDBOX_PAYOUT_PICKUP || "simulate";
  if (pickup !== "simulate" && pickup !== "automatic") {
    throw new ConfigError(`SANDBOX_PAYOUT_PICKUP must be "simulate" or "automatic", got "${pickup}"`);
  }
  const payoutPickup = envName === "live" ? "automatic" : pickup;
  const providers = loadProviderConfig(env, envName);
  const limits = loadLimitsConfig(env);
  return {
    ...loadDatabaseSettings(env),
    env: envName,
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    databaseDirectUrl,
    dataDir: env.DATA_DIR || DEFAULT_DATA_DIR,
    rateLimitPerMinute,
    redisUrl,
    adminToken,
    operatorAuthFailuresPerMinute: integer(env, "OPERATOR_AUTH_FAILURES_PER_MINUTE", 20, 1, 1_000_000),
    secretKey,
    logLevel,
    webhookAllowLoopback,
    payoutPickup,
    payoutUndecidedAlertMs:
      integer(
        env,
        "PAYOUT_UNDECIDED_ALERT_S",
        PAYOUT_UNDECIDED_ALERT_S_DEFAULT,
        1,
        PAYOUT_UNDECIDED_ALERT_S_MAX,
      ) * 1000,
    ...providers,
    ...limits,
  };
}

/** METRICS_*, HTTP_* and LOGIN_* settings (docs/operations.md). */
function loadLimitsConfig(env: NodeJS.ProcessEnv): Pick<Config, "metrics" | "http" | "login"> {
  const metricsToken = bearerTokenSetting(env, "METRICS_TOKEN");
  const metricsPort = env.METRICS_PORT ? integer(env, "METRICS_PORT", 0, 0, 65535) : undefined;
  const apiPort = integer(env, "PORT", 3000, 0, 65535);
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === apiPort) {
    throw new ConfigError(
      `METRICS_PORT must differ from PORT (both are ${apiPort}): it is a port of its own`,
    );
  }
  return {
    metrics: { token: metricsToken, port: metricsPort },
    http: {
      headersTimeoutMs: integer(env, "HTTP_HEADERS_TIMEOUT_MS", 10_000, 100, 600_000),
      requestTimeoutMs: integer(env, "HTTP_BODY_TIMEOUT_MS", 30_000, 100, 3_600_000),
      keepAliveTimeoutMs: integer(env, "HTTP_KEEP_ALIVE_TIMEOUT_MS", 5_000, 100, 600_000),
      connectionsPerAddressMax: integer(env, "HTTP_CONNECTIONS_PER_ADDRESS_MAX", 100, 1, 1_000_000),
    },
    login: {
      perAddressPerMinute: integer(env, "LOGIN_PER_ADDRESS_PER_MINUTE", 20, 1, 1_000_000),
      hashesMax: integer(env, "LOGIN_HASHES_MAX", 2, 1, 64),
      queueMax: integer(env, "LOGIN_QUEUE_MAX", 16, 0, 10_000),
    },
  };
}

/** The database's bounded waits (milliseconds) and the embedded store's durability. */
function loadDatabaseSettings(
  env: NodeJS.ProcessEnv,
): Pick<Config, "databaseBounds" | "embeddedSync" | "databasePreparedStatements" | "embeddedTemplate"> {
  const d = DEFAULT_DATABASE_BOUNDS;
  // Behind a transaction-pooling PgBouncer (DATABASE_DIRECT_URL set) named statements are off.
  const prepared =
    oneOf(env, "DATABASE_PREPARED_STATEMENTS", ["on", "off"]) ?? (env.DATABASE_DIRECT_URL ? "off" : "on");
  return {
    databasePreparedStatements: prepared === "on",
    databaseBounds: {
      lockTimeoutMs: integer(env, "DB_LOCK_TIMEOUT_MS", d.lockTimeoutMs, 10, 600_000),
      poolAcquireTimeoutMs: integer(env, "DB_POOL_ACQUIRE_TIMEOUT_MS", d.poolAcquireTimeoutMs, 10, 600_000),
      statementTimeoutMs: integer(env, "DB_STATEMENT_TIMEOUT_MS", d.statementTimeoutMs, 100, 3_600_000),
      idleInTransactionTimeoutMs: integer(
        env,
        "DB_IDLE_IN_TRANSACTION_TIMEOUT_MS",
        d.idleInTransactionTimeoutMs,
        100,
        3_600_000,
      ),
    },
    embeddedSync: oneOf(env, "EMBEDDED_SYNC", EMBEDDED_SYNC_MODES) ?? "commit",
    embeddedTemplate: env.EMBEDDED_TEMPLATE || undefined,
  };
}

// Live providers (CONTRACT 15). Secrets are never echoed in a message: a refusal names the
// variable and the rule, not the value.

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[]): T | undefined {
  const raw = env[name];
  if (raw === undefined || raw === "") return undefined;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.map((v) => `"${v}"`).join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

/** A required secret-ish text: checked against a pattern, never printed. */
function secretText(env: NodeJS.ProcessEnv, name: string, pattern: RegExp, rule: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") {
    throw new ConfigError(`${name} is required when SATANG_PROVIDER=scb (${rule})`);
  }
  if (!pattern.test(raw)) throw new ConfigError(`${name} must be ${rule}`);
  return raw;
}

/**
 * Whether `hostname` (as `URL` gives it) is a loopback address: 127.0.0.0/8, ::1 or localhost.
 * CONTRACT 15 lets a live connector call such an address over http (a local simulator).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1") return true;
  // URL has already written any IPv4 form (127.1, 0x7f.1, 2130706433) as four decimals.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function scbBaseUrl(env: NodeJS.ProcessEnv, envName: Environment): string {
  const raw = env.SCB_API_BASE_URL;
  if (raw === undefined || raw === "") {
    throw new ConfigError("SCB_API_BASE_URL is required when SATANG_PROVIDER=scb (an http or https URL)");
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError("SCB_API_BASE_URL must be an http or https URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError("SCB_API_BASE_URL must use http: or https:");
  }
  // Credentials and money travel on this connection (CONTRACT 15): only a local simulator may
  // be reached without TLS in live.
  if (envName === "live" && parsed.protocol !== "https:" && !isLoopbackHost(parsed.hostname)) {
    throw new ConfigError(
      "SCB_API_BASE_URL must be an https URL when SATANG_ENV=live (http is accepted only for a loopback address: 127.0.0.0/8, ::1, localhost)",
    );
  }
  // Credentials belong in SCB_API_KEY and SCB_API_SECRET, where they are kept out of logs.
  if (parsed.username || parsed.password) {
    throw new ConfigError("SCB_API_BASE_URL must not carry credentials; use SCB_API_KEY and SCB_API_SECRET");
  }
  if (parsed.search || parsed.hash)
    throw new ConfigError("SCB_API_BASE_URL must not have a query or fragment");
  return raw.replace(/\/+$/, "");
}

const REDACTED = "[redacted]";

function redactedView(config: ScbConfig): Record<string, unknown> {
  return { ...config, apiKey: REDACTED, apiSecret: REDACTED, callbackToken: REDACTED };
}

function withRedaction(config: ScbConfig): ScbConfig {
  const view = () => redactedView(config);
  Object.defineProperty(config, "toJSON", { value: view, enumerable: false });
  Object.defineProperty(config, Symbol.for("nodejs.util.inspect.custom"), { value: view, enumerable: false });
  return config;
}

const SCB_PAYER_SETTINGS = [
  ["SCB_PAYER_ACCOUNT_NUMBER", /^[0-9]{10}$/, "the 10-digit SCB account number"],
  ["SCB_PAYER_TAX_ID", /^[0-9]{13}$/, "the 13-digit tax id"],
  ["SCB_CORPORATE_ID", /^[A-Za-z0-9]{1,35}$/, "1-35 letters or digits"],
] as const;

/**
 * SCB's payer settings: required when SCB pays withdraws. When it does not, one that is set is
 * still checked, so a mistyped value is found at start and not on the day payouts are switched
 * to SCB; and all three set keep SCB able to ask about the transfers it was sent before new
 * payouts went elsewhere (they stay with SCB, lifecycle/context.ts `providerHolding`).
 */
function loadScbPayer(env: NodeJS.ProcessEnv, payouts: PayoutMode): ScbPayerConfig | null {
  if (payouts === "manual") {
    const values = SCB_PAYER_SETTINGS.map(([name, pattern, what]) =>
      env[name] ? secretText(env, name, pattern, what) : undefined,
    );
    if (values.some((value) => value === undefined)) return null;
    const [accountNumber, taxId, corporateId] = values as [string, string, string];
    return { accountNumber, taxId, corporateId };
  }
  const missing = SCB_PAYER_SETTINGS.map(([name]) => name).filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new ConfigError(
      `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required for payouts through SCB; ` +
        "set them, or set SATANG_PAYOUT_PROVIDER to another connector of SATANG_PROVIDER that pays out, " +
        "or SATANG_PAYOUTS=manual to pay withdraws from the manual payout desk",
    );
  }
  const [accountNumber, taxId, corporateId] = SCB_PAYER_SETTINGS.map(([name, pattern, what]) =>
    secretText(env, name, pattern, what),
  ) as [string, string, string];
  return { accountNumber, taxId, corporateId };
}

function loadScbConfig(env: NodeJS.ProcessEnv, payouts: PayoutMode, envName: Environment): ScbConfig {
  const ref2 = env.SCB_REF2 || null;
  if (ref2 !== null && !/^[A-Z0-9]{1,20}$/.test(ref2)) {
    throw new ConfigError(`SCB_REF2 must be 1-20 upper-case letters or digits, got "${ref2}"`);
  }
  const ref3Prefix = env.SCB_REF3_PREFIX || null;
  if (ref3Prefix !== null && !/^[A-Z0-9]{1,8}$/.test(ref3Prefix)) {
    throw new ConfigError(`SCB_REF3_PREFIX must be 1-8 upper-case letters or digits, got "${ref3Prefix}"`);
  }
  return withRedaction({
    apiBaseUrl: scbBaseUrl(env, envName),
    apiKey: secretText(env, "SCB_API_KEY", /^[\x21-\x7E]{1,200}$/, "1-200 printable characters"),
    apiSecret: secretText(env, "SCB_API_SECRET", /^[\x21-\x7E]{1,200}$/, "1-200 printable characters"),
    billerId: secretText(env, "SCB_BILLER_ID", /^[0-9]{15}$/, "the 15-digit biller id"),
    callbackToken: secretText(
      env,
      "SCB_CALLBACK_TOKEN",
      /^[A-Za-z0-9_-]{32,200}$/,
      "32-200 characters of letters, digits, _ or - (it is a URL path segment)",
    ),
    ref2,
    ref3Prefix,
    payer: loadScbPayer(env, payouts),
    reconcileIntervalMs: integer(env, "SCB_RECONCILE_INTERVAL_S", 60, 1, 86_400) * 1000,
    // SCB's transfer answers say to inquire "after 45 minutes" (docs/providers/scb.md).
    inquiryDelayMs: integer(env, "SCB_INQUIRY_DELAY_S", 2_700, 0, 2_700) * 1000,
    requestTimeoutMs: integer(env, "SCB_TIMEOUT_MS", 15_000, 100, 120_000),
    tokenRefreshMarginMs: integer(env, "SCB_TOKEN_REFRESH_MARGIN_S", 120, 0, 900) * 1000,
  });
}

/**
 * The Opn Payments connector's settings (CONTRACT 15, docs/providers/opn.md). Read by
 * `opnConfigFrom` when `opn` is named in SATANG_PROVIDER; never logged (the secrets are redacted
 * from every print of the object).
 */
export interface OpnConfig {
  /** OPN_API_BASE_URL: Opn's API (default https://api.omise.co); tests point it at a simulator. */
  apiBaseUrl: string;
  /** OPN_SECRET_KEY: the account's secret key (`skey_...`), sent as the HTTP Basic user. */
  secretKey: string;
  /** OPN_PUBLIC_KEY: the public key (`pkey_...`), or null: the server-side flows need none. */
  publicKey: string | null;
  /** OPN_CALLBACK_TOKEN: the secret path segment of `/providers/opn/confirmations/{token}`. */
  callbackToken: string;
  /**
   * OPN_WEBHOOK_SECRET: the webhook signing secret of Opn's dashboard (base64), or null. When
   * set, a notification without a valid `Omise-Signature` is refused as forged; either way a
   * notification is only a claim that the charge is then retrieved to check.
   */
  webhookSecret: string | null;
  /** OPN_TIMEOUT_MS: the bound of one HTTP call to Opn. */
  requestTimeoutMs: number;
  /** OPN_RECIPIENT_VERIFY_MAX_S: how long a payout waits for Opn to verify its recipient. */
  recipientVerifyMaxMs: number;
}

const OPN_DEFAULT_API_BASE_URL = "https://api.omise.co";

function opnText(env: NodeJS.ProcessEnv, name: string, pattern: RegExp, rule: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") {
    throw new ConfigError(`${name} is required when SATANG_PROVIDER names opn (${rule})`);
  }
  if (!pattern.test(raw)) throw new ConfigError(`${name} must be ${rule}`);
  return raw;
}

function opnBaseUrl(env: NodeJS.ProcessEnv, envName: Environment): string {
  const raw = env.OPN_API_BASE_URL || OPN_DEFAULT_API_BASE_URL;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError("OPN_API_BASE_URL must be an http or https URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError("OPN_API_BASE_URL must use http: or https:");
  }
  // A secret key travels on this connection: only a local simulator may be reached without TLS.
  if (envName === "live" && parsed.protocol !== "https:" && !isLoopbackHost(parsed.hostname)) {
    throw new ConfigError(
      "OPN_API_BASE_URL must be an https URL when SATANG_ENV=live (http is accepted only for a loopback address: 127.0.0.0/8, ::1, localhost)",
    );
  }
  // The secret key belongs in OPN_SECRET_KEY, where it is kept out of logs.
  if (parsed.username || parsed.password) {
    throw new ConfigError("OPN_API_BASE_URL must not carry credentials; use OPN_SECRET_KEY");
  }
  if (parsed.search || parsed.hash)
    throw new ConfigError("OPN_API_BASE_URL must not have a query or fragment");
  return raw.replace(/\/+$/, "");
}

function withOpnRedaction(config: OpnConfig): OpnConfig {
  const view = () => ({
    ...config,
    secretKey: REDACTED,
    callbackToken: REDACTED,
    webhookSecret: config.webhookSecret === null ? null : REDACTED,
  });
  Object.defineProperty(config, "toJSON", { value: view, enumerable: false });
  Object.defineProperty(config, Symbol.for("nodejs.util.inspect.custom"), { value: view, enumerable: false });
  return config;
}

/** Reads the Opn connector's settings; each error names its variable and never prints a secret. */
export function opnConfigFrom(env: NodeJS.ProcessEnv, envName: Environment = "sandbox"): OpnConfig {
  const publicKey = env.OPN_PUBLIC_KEY || null;
  if (publicKey !== null && !/^pkey_[A-Za-z0-9_]{1,200}$/.test(publicKey)) {
    throw new ConfigError("OPN_PUBLIC_KEY must be Opn's public key (pkey_...)");
  }
  const webhookSecret = env.OPN_WEBHOOK_SECRET || null;
  if (webhookSecret !== null && !/^[A-Za-z0-9+/_-]{16,200}={0,2}$/.test(webhookSecret)) {
    throw new ConfigError("OPN_WEBHOOK_SECRET must be the base64 webhook secret of Opn's dashboard");
  }
  return withOpnRedaction({
    apiBaseUrl: opnBaseUrl(env, envName),
    secretKey: opnText(env, "OPN_SECRET_KEY", /^skey_[A-Za-z0-9_]{1,200}$/, "Opn's secret key (skey_...)"),
    publicKey,
    callbackToken: opnText(
      env,
      "OPN_CALLBACK_TOKEN",
      /^[A-Za-z0-9_-]{32,200}$/,
      "32-200 characters of letters, digits, _ or - (it is a URL path segment)",
    ),
    webhookSecret,
    requestTimeoutMs: integer(env, "OPN_TIMEOUT_MS", 15_000, 100, 120_000),
    recipientVerifyMaxMs: integer(env, "OPN_RECIPIENT_VERIFY_MAX_S", 7 * 86_400, 60, 90 * 86_400) * 1000,
  });
}

/**
 * SATANG_PROVIDER: one name, or a comma-separated failover order of live connectors (CONTRACT 15,
 * docs/providers/routing.md). Names are trimmed; an empty entry, an unknown name or a repeated
 * one is refused; `simulated` stands only alone.
 */
function providerList(env: NodeJS.ProcessEnv, envName: Environment): ProviderName[] | undefined {
  const raw = env.SATANG_PROVIDER;
  if (raw === undefined || raw.trim() === "") return undefined;
  const names = raw.split(",").map((name) => name.trim());
  const allowed = `one of ${PROVIDER_NAMES.map((v) => `"${v}"`).join(", ")} or a comma-separated order of live ones (e.g. "scb,opn")`;
  const list: ProviderName[] = [];
  for (const name of names) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(name)) {
      throw new ConfigError(`SATANG_PROVIDER must be ${allowed}, got "${raw}"`);
    }
    if ((list as string[]).includes(name)) {
      throw new ConfigError(
        `SATANG_PROVIDER names "${name}" twice; each connector appears once in the order`,
      );
    }
    list.push(name as ProviderName);
  }
  if (list.includes("simulated") && list.length > 1) {
    throw new ConfigError(
      "SATANG_PROVIDER=simulated stands alone; a failover order names live connectors only",
    );
  }
  if (envName === "live" && list[0] === "simulated") {
    throw new ConfigError("SATANG_PROVIDER=simulated is refused when SATANG_ENV=live; use scb, opn or both");
  }
  return list;
}

/**
 * SATANG_PAYOUT_PROVIDER: the connector that pays withdraws; by default the first of
 * SATANG_PROVIDER that pays out (every connector does today). Read only when payouts go to a
 * connector: with SATANG_PAYOUTS=manual the operator's desk pays and it is undefined.
 */
function payoutProviderOf(
  env: NodeJS.ProcessEnv,
  providers: readonly ProviderName[],
  payouts: PayoutMode,
): ProviderName | undefined {
  if (payouts === "manual") return undefined;
  const raw = env.SATANG_PAYOUT_PROVIDER?.trim();
  if (raw === undefined || raw === "") return providers.find((name) => PAYING_PROVIDERS.includes(name));
  if (!(providers as readonly string[]).includes(raw)) {
    throw new ConfigError(
      `SATANG_PAYOUT_PROVIDER must be one of the connectors SATANG_PROVIDER names (${providers.join(", ")}), got "${raw}"`,
    );
  }
  return raw as ProviderName;
}

function loadProviderConfig(
  env: NodeJS.ProcessEnv,
  envName: Environment,
): Pick<
  Config,
  "provider" | "providers" | "payouts" | "payoutProvider" | "scb" | "opn" | "scbExchangeRetentionDays"
> {
  const asked = providerList(env, envName);
  // A live deployment without a connector would serve payments that nothing collects and
  // withdraws that nothing pays (CONTRACT 15): it does not start.
  if (envName === "live" && asked === undefined) {
    throw new ConfigError(
      "SATANG_PROVIDER is required when SATANG_ENV=live (scb, opn, or an order such as scb,opn)",
    );
  }
  const providers: ProviderName[] = asked ?? ["simulated"];
  const provider = providers[0] ?? "simulated";
  const payouts = oneOf(env, "SATANG_PAYOUTS", PAYOUT_MODES) ?? "provider";
  const payoutProvider = payoutProviderOf(env, providers, payouts);
  // SCB's payer settings are needed only when SCB pays withdraws.
  const scbPayouts: PayoutMode = payoutProvider === "scb" ? "provider" : "manual";
  const scb = providers.includes("scb") ? loadScbConfig(env, scbPayouts, envName) : undefined;
  const opn = providers.includes("opn") ? opnConfigFrom(env, envName) : undefined;
  const scbExchangeRetentionDays = integer(
    env,
    "SCB_EXCHANGE_RETENTION_DAYS",
    PROVIDER_EXCHANGE_RETENTION_DAYS_DEFAULT,
    1,
    PROVIDER_EXCHANGE_RETENTION_DAYS_MAX,
  );
  return { provider, providers, payouts, payoutProvider, scb, opn, scbExchangeRetentionDays };
}
