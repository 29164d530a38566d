/**
 * Configuration comes from the environment and is validated once, at start. A bad value stops
 * the process with a message that names the variable and says what it accepts.
 */
import { RATE_LIMIT_LIVE_PER_MINUTE, RATE_LIMIT_SANDBOX_PER_MINUTE } from "./lib/limits.ts";

export type Environment = "sandbox" | "live";

export interface Config {
  env: Environment;
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string | undefined;
  dataDir: string;
  rateLimitPerMinute: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
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

function url(name: string, raw: string | undefined, protocols: string[]): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(" or ")}, got "${parsed.protocol}"`);
  }
  return raw;
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

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const envName = env.SATANG_ENV ?? "sandbox";
  if (envName !== "sandbox" && envName !== "live") {
    throw new ConfigError(`SATANG_ENV must be "sandbox" or "live", got "${envName}"`);
  }
  const port = integer(env, "PORT", 3000, 0, 65535);
  const host = env.HOST || "127.0.0.1";
  const publicBaseUrl = (
    url("PUBLIC_BASE_URL", env.PUBLIC_BASE_URL, ["http:", "https:"]) ??
    `http://${host.includes(":") ? `[${host}]` : host}:${port}`
  ).replace(/\/+$/, "");
  const databaseUrl = url("DATABASE_URL", env.DATABASE_URL, ["postgres:", "postgresql:"]);
  const redisUrl = url("REDIS_URL", env.REDIS_URL, ["redis:", "rediss:"]);
  const rateLimitPerMinute = integer(
    env,
    "RATE_LIMIT_PER_MINUTE",
    envName === "live" ? RATE_LIMIT_LIVE_PER_MINUTE : RATE_LIMIT_SANDBOX_PER_MINUTE,
    1,
    10_000_000,
  );
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError("ADMIN_TOKEN must be at least 16 characters");
  }
  const secretKey = env.SECRET_KEY ? parseSecretKey(env.SECRET_KEY) : undefined;
  if (envName === "live" && !secretKey) {
    throw new ConfigError("SECRET_KEY is required when SATANG_ENV=live (32 bytes, hex or base64)");
  }
  const logLevel = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);
  }
  const allowLoopback = env.WEBHOOK_ALLOW_LOOPBACK ?? "";
  if (!["", "true", "false", "1", "0"].includes(allowLoopback)) {
    throw new ConfigError(`WEBHOOK_ALLOW_LOOPBACK must be "true" or "false", got "${allowLoopback}"`);
  }
  const loopbackAsked = allowLoopback === "true" || allowLoopback === "1";
  if (envName === "live" && loopbackAsked) {
    throw new ConfigError("WEBHOOK_ALLOW_LOOPBACK cannot be enabled when SATANG_ENV=live");
  }
  const webhookAllowLoopback = envName === "sandbox" && (allowLoopback === "" || loopbackAsked);
  const pickup = env.SANDBOX_PAYOUT_PICKUP || "simulate";
  if (pickup !== "simulate" && pickup !== "automatic") {
    throw new ConfigError(`SANDBOX_PAYOUT_PICKUP must be "simulate" or "automatic", got "${pickup}"`);
  }
  const payoutPickup = envName === "live" ? "automatic" : pickup;
  return {
    env: envName,
    port,
    host,
    publicBaseUrl,
    databaseUrl,
    dataDir: env.DATA_DIR || "./data",
    rateLimitPerMinute,
    redisUrl,
    adminToken,
    secretKey,
    logLevel,
    webhookAllowLoopback,
    payoutPickup,
  };
}
