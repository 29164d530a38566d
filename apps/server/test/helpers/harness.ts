/**
 * A service for one test file: a real database (PGlite or PostgreSQL), a manual business
 * clock, a merchant with an integration, and helpers that send signed requests.
 */
import { nextTimestamp, type Satang, type SatangConfig, signRequest } from "@satang/sdk";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { buildApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { DatabaseBounds } from "../../src/db/bounds.ts";
import { buildDeps, type Deps, type DepsInput } from "../../src/deps.ts";
import { createIntegration, type IntegrationInput } from "../../src/integrations/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { SecretBox } from "../../src/lib/crypto.ts";
import { createMerchant, type MerchantInput } from "../../src/merchants/service.ts";
import { sdkClient } from "./sdk.ts";
import { openTestStore, type TestStore } from "./store.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

export interface Credentials {
  merchantId: string;
  integrationId: string;
  apiKey: string;
  apiSecret: string;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  raw: LightMyRequestResponse;
}

export interface RequestOptions {
  credentials?: Credentials;
  headers?: Record<string, string>;
  /** Send this exact text as the body instead of JSON.stringify(body). */
  rawBody?: string;
  signatureVersion?: "v1" | "v2";
  /** Another app built over other deps (a store behind a proxy); the service's own otherwise. */
  app?: FastifyInstance;
}

export interface TestService {
  app: FastifyInstance;
  deps: Deps;
  clock: ManualClock;
  store: TestStore;
  credentials: Credentials;
  request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    options?: RequestOptions,
  ): Promise<TestResponse<T>>;
  admin<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<TestResponse<T>>;
  newMerchant(input?: Partial<MerchantInput>, integration?: IntegrationInput): Promise<Credentials>;
  /**
   * Another process's dependencies (its own dispatcher and simulated bank) over the same
   * database and clocks, unless `overrides` says otherwise; webhook overrides add to the
   * service's own.
   */
  depsWith(overrides: Partial<Omit<DepsInput, "config" | "storeKind" | "secrets">>): Deps;
  /** The SDK signed with `credentials`, calling the app in-process (no retries). */
  sdk: Satang;
  /** The SDK for another merchant's credentials. */
  sdkFor(credentials: Credentials, options?: Partial<SatangConfig>): Satang;
  close(): Promise<void>;
}

export const DEFAULT_MERCHANT: MerchantInput = {
  name: "Test Shop",
  promptpayId: "0812345678",
  collectionAccount: { bankCode: "014", accountNumber: "1234567890", accountName: "Test Shop Co., Ltd." },
};

function toResponse(raw: LightMyRequestResponse): TestResponse {
  let body: unknown = raw.body;
  const type = String(raw.headers["content-type"] ?? "");
  if (type.includes("application/json")) body = raw.json();
  return { status: raw.statusCode, headers: raw.headers, body, raw };
}

export async function startService(
  options: {
    env?: Record<string, string>;
    config?: Partial<Config>;
    poolSize?: number;
    /** Bounded database waits of the test's store (db/bounds.ts); the defaults otherwise. */
    bounds?: Partial<DatabaseBounds>;
    /** Replaces parts of the dependencies, e.g. `webhooks` (a test resolver or timeout). */
    deps?: Partial<
      Pick<
        DepsInput,
        "webhooks" | "wallClock" | "provider" | "exchangeRecorder" | "liveConnectors" | "routing"
      >
    >;
  } = {},
): Promise<TestService> {
  const store = await openTestStore({ poolSize: options.poolSize, bounds: options.bounds });
  const config: Config = {
    ...loadConfig({
      ADMIN_TOKEN,
      PUBLIC_BASE_URL: "http://pay.test",
      RATE_LIMIT_PER_MINUTE: "1000000",
      ...options.env,
    }),
    ...options.config,
  };
  const clock = new ManualClock(Date.now());
  const input: DepsInput = {
    config,
    db: store.db,
    storeKind: store.kind,
    clock,
    secrets: new SecretBox(Buffer.alloc(32, 7)),
    databaseReachable: (timeoutMs) => store.reachable(timeoutMs),
    databaseDump: store.dump,
    ...options.deps,
  };
  const deps = buildDeps(input);
  const depsWith: TestService["depsWith"] = (overrides) =>
    buildDeps({ ...input, ...overrides, webhooks: { ...input.webhooks, ...overrides.webhooks } });
  const app = await buildApp(deps);
  await app.ready();

  const newMerchant = async (input: Partial<MerchantInput> = {}, integration: IntegrationInput = {}) => {
    const merchant = await createMerchant(deps, { ...DEFAULT_MERCHANT, ...input });
    const created = await createIntegration(deps, merchant.id, integration);
    return {
      merchantId: merchant.id,
      integrationId: created.id,
      apiKey: created.apiKey,
      apiSecret: created.apiSecret,
    };
  };
  const credentials = await newMerchant();

  // Signed at the service's real time, which a test may move (a bank's clock shared with it).
  // Two reads of two clocks can step back a millisecond between calls, so the times are kept
  // strictly increasing here too: one body signed twice never gets one signature.
  let lastSignedAt = 0;
  const signedAt = () => {
    const at = nextTimestamp() + (deps.wallClock.now().getTime() - Date.now());
    lastSignedAt = Math.max(at, lastSignedAt + 1);
    return lastSignedAt;
  };

  const request = async (method: string, path: string, body?: unknown, opts: RequestOptions = {}) => {
    const creds = opts.credentials ?? credentials;
    const payload = opts.rawBody ?? (body === undefined ? "" : JSON.stringify(body));
    const headers: Record<string, string> = {
      ...signRequest({
        apiKey: creds.apiKey,
        apiSecret: creds.apiSecret,
        body: payload,
        method,
        path,
        version: opts.signatureVersion ?? "v1",
        timestamp: signedAt(),
      }),
      ...(payload !== "" ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    };
    const target = opts.app ?? app;
    const raw = await target.inject({ method: method as "GET", url: path, payload, headers });
    return toResponse(raw);
  };

  const admin = async (method: string, path: string, body?: unknown, token: string = ADMIN_TOKEN) => {
    const raw = await app.inject({
      method: method as "GET",
      url: path,
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
    });
    return toResponse(raw);
  };

  return {
    app,
    deps,
    clock,
    store,
    credentials,
    request,
    admin,
    newMerchant,
    depsWith,
    sdk: sdkClient(app, credentials),
    sdkFor: (creds, sdkOptions) => sdkClient(app, creds, sdkOptions),
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
